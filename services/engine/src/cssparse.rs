//! The Stylo parser context for author CSS the engine parses itself, outside
//! a stylesheet: a `media` attribute (`media`), one declaration for
//! `CSS.supports` (`js::web`).

use style::context::QuirksMode;
use style::parser::ParserContext;
use style::stylesheets::{CssRuleType, Origin, UrlExtraData};
use style_traits::ParsingMode;

/// A context that parses as an author stylesheet at `url_data` would, inside
/// a rule of `rule_type`.
pub(crate) fn author_context(url_data: &UrlExtraData, rule_type: CssRuleType) -> ParserContext<'_> {
    ParserContext::new(
        Origin::Author,
        url_data,
        Some(rule_type),
        ParsingMode::DEFAULT,
        QuirksMode::NoQuirks,
        Default::default(),
        None,
        None,
        Default::default(),
    )
}
