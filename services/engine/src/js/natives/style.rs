//! Natives for style as scripts read it: computed style, whether a
//! declaration parses (`CSS.supports`), and the style sheets' rules.

use blitz_dom::node::SpecialElementData;
use rquickjs::{Ctx, Function, Object, Result};
use style::properties::{
    PropertyDeclaration, PropertyDeclarationId, PropertyId, SourcePropertyDeclaration,
};
use style::shared_lock::ToCssWithGuard as _;
use style::stylesheets::{CssRuleType, UrlExtraData};
use url::Url;

use super::{from_id, live, with_doc, with_resolved_doc};
use crate::cssparse;

/// Whether `name: value` is a declaration Stylo accepts (all of `value`).
fn declaration_parses(name: &str, value: &str) -> bool {
    let Ok(url) = Url::parse(crate::state::INLINE_URL) else {
        return false;
    };
    let url_data = UrlExtraData(style::servo_arc::Arc::new(url));
    let context = cssparse::author_context(&url_data, CssRuleType::Style);
    let Ok(property) = PropertyId::parse(name, &context) else {
        return false;
    };
    let mut parser = cssparser::Parser::new(value);
    let mut declarations = SourcePropertyDeclaration::default();
    PropertyDeclaration::parse_into(&mut declarations, property, &context, &mut parser).is_ok()
        && parser.expect_exhausted().is_ok()
}

/// Add the style natives to `native`.
pub(super) fn install<'js>(ctx: &Ctx<'js>, native: &Object<'js>) -> Result<()> {
    macro_rules! def {
        ($name:literal, $f:expr) => {
            native.set($name, Function::new(ctx.clone(), $f)?)?;
        };
    }
    // The rules of the stylesheet an element (`<style>`, `<link>`) gives the
    // document, each serialized by Stylo; null when it gives none (yet).
    def!("sheetRules", |ctx: Ctx<'js>,
                        id: f64|
     -> Result<Option<Vec<String>>> {
        with_doc(&ctx, |doc| {
            let Some(node) = live(doc, id).and_then(|id| doc.get_node(id)) else {
                return Ok(None);
            };
            let Some(SpecialElementData::Stylesheet(sheet)) =
                node.element_data().map(|el| &el.special_data)
            else {
                return Ok(None);
            };
            let guard = doc.guard().read();
            let contents = sheet.0.contents.read_with(&guard);
            let rules = contents.rules.read_with(&guard);
            Ok(Some(
                rules
                    .0
                    .iter()
                    .map(|rule| rule.to_css_string(&guard).to_string())
                    .collect(),
            ))
        })
    });
    // Whether an element (`<style>`, `<link>`) gives the document a stylesheet.
    def!("hasSheet", |ctx: Ctx<'js>, id: f64| -> Result<bool> {
        with_doc(&ctx, |doc| {
            Ok(live(doc, id)
                .and_then(|id| doc.get_node(id))
                .and_then(|n| n.element_data())
                .is_some_and(|el| matches!(el.special_data, SpecialElementData::Stylesheet(_))))
        })
    });
    // `CSS.supports(property, value)`: whether Stylo parses the declaration.
    def!("cssSupports", |name: String, value: String| -> bool {
        declaration_parses(name.trim(), &value)
    });
    // `getComputedStyle(el).getPropertyValue(name)`: the computed value of a
    // longhand as Stylo serializes it; `None` for unknown or shorthand names.
    def!("computedStyle", |ctx: Ctx<'js>,
                           id: f64,
                           name: String|
     -> Result<Option<String>> {
        with_resolved_doc(&ctx, false, |doc| {
            let Some(node) = live(doc, id).and_then(|id| doc.get_node(id)) else {
                return Ok(None);
            };
            let Ok(property) = PropertyId::parse_enabled_for_all_content(name.trim()) else {
                return Ok(None);
            };
            let Some(longhand) = property.longhand_id() else {
                return Ok(None);
            };
            let id = PropertyDeclarationId::Longhand(longhand);
            if let Some(styles) = node.primary_styles() {
                return Ok(Some(styles.computed_value_to_string(id)));
            }
            // Inside a `display: none` subtree the style traversal stores no
            // style; the computed values exist all the same, resolved on demand.
            Ok(doc
                .resolve_undisplayed_style(node.id)
                .map(|styles| styles.computed_value_to_string(id)))
        })
    });
    // The laid-out box of an element: [width, height (border box), padding
    // left/top/right/bottom, border l/t/r/b, margin l/t/r/b], or nothing when
    // the element (or an ancestor) is `display: none`.
    def!("boxMetrics", |ctx: Ctx<'js>,
                        id: f64|
     -> Result<Option<Vec<f64>>> {
        with_resolved_doc(&ctx, true, |doc| {
            let Some(id) = live(doc, id) else {
                return Ok(None);
            };
            let mut current = Some(id);
            while let Some(n) = current.and_then(|c| doc.get_node(c)) {
                if n.primary_styles()
                    .is_some_and(|s| s.clone_display().is_none())
                {
                    return Ok(None);
                }
                current = n.parent;
            }
            let Some(node) = doc.get_node(id) else {
                return Ok(None);
            };
            if node.primary_styles().is_none() {
                return Ok(None);
            }
            let l = node.final_layout();
            let v = |x: f32| f64::from(x);
            Ok(Some(vec![
                v(l.size.width),
                v(l.size.height),
                v(l.padding.left),
                v(l.padding.top),
                v(l.padding.right),
                v(l.padding.bottom),
                v(l.border.left),
                v(l.border.top),
                v(l.border.right),
                v(l.border.bottom),
                v(l.margin.left),
                v(l.margin.top),
                v(l.margin.right),
                v(l.margin.bottom),
            ]))
        })
    });
    def!("elementFromPoint", |ctx: Ctx<'js>,
                              x: f64,
                              y: f64|
     -> Result<Option<f64>> {
        with_resolved_doc(&ctx, true, |doc| {
            Ok(doc.element_from_point(x as f32, y as f32).map(from_id))
        })
    });
    Ok(())
}
