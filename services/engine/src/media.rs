//! The `media` attribute of `<link rel=stylesheet>` and `<style>`.
//!
//! Blitz parses every author stylesheet for all media, so a page's print
//! stylesheet (`<link rel=stylesheet href=print.css media=print>`, which
//! mdBook and many documentation themes ship to hide their navigation on
//! paper) would hide that navigation on screen too. Browsers give such a sheet
//! the attribute's media list and apply its rules only where the list matches;
//! [`apply`] does the same by setting the parsed list on the sheet Blitz made,
//! before styles are resolved. It runs again after the tree changes, so the
//! "load asynchronously" idiom (`media=print` changed to `all` once loaded)
//! turns the sheet on as in a browser.

use blitz_dom::node::SpecialElementData;
use blitz_dom::{BaseDocument, local_name};
use style::media_queries::MediaList;
use style::servo_arc::Arc;
use style::stylesheets::{CssRuleType, UrlExtraData};
use style_traits::ToCss as _;

use crate::{cssparse, mutation};

/// What [`apply`] saw last: the tree's mutation count and the number of
/// author stylesheets. Equal means nothing it reads can have changed.
pub(crate) type Seen = Option<(u64, usize)>;

/// Give each `<link>`/`<style>` stylesheet of `doc` the media list of its
/// element's `media` attribute (none: all media).
pub(crate) fn apply(doc: &mut BaseDocument, seen: &mut Seen) {
    let now = (mutation::version(), doc.author_stylesheets().count());
    if *seen == Some(now) {
        return;
    }
    *seen = Some(now);
    let url_data = UrlExtraData(Arc::new(doc.url().clone()));
    let mut changed = Vec::new();
    {
        let guard = doc.guard().read();
        for (id, node) in doc.tree().iter() {
            let Some(el) = node.element_data() else {
                continue;
            };
            let SpecialElementData::Stylesheet(sheet) = &el.special_data else {
                continue;
            };
            let wanted = parse(el.attr(local_name!("media")).unwrap_or(""), &url_data);
            let current = sheet.0.media.read_with(&guard);
            if current.to_css_string() != wanted.to_css_string() {
                changed.push((id, sheet.clone(), wanted));
            }
        }
    }
    if changed.is_empty() {
        return;
    }
    for (id, sheet, wanted) in changed {
        {
            let mut guard = doc.guard().write();
            *sheet.0.media.write_with(&mut guard) = wanted;
        }
        // Adding the same sheet again takes the old entry out of the stylist
        // and puts it back, which makes the stylist read its media anew.
        doc.add_stylesheet_for_node(sheet, id);
    }
}

/// The media list of a `media` attribute (the HTML standard parses it as a
/// CSS media query list; an empty one matches all media).
fn parse(text: &str, url_data: &UrlExtraData) -> MediaList {
    let text = text.trim();
    if text.is_empty() {
        return MediaList::empty();
    }
    let mut context = cssparse::author_context(url_data, CssRuleType::Media);
    MediaList::parse(&mut context, &mut cssparser::Parser::new(text))
}
