//! Natives for URLs: resolving against the document's base and parsing into
//! the parts `URL` and `location` expose.

use rquickjs::{Ctx, Function, Object, Result};
use url::Url;

use super::{doc_url, with_doc};
use crate::inspect;

/// Add the urls natives to `native`.
pub(super) fn install<'js>(ctx: &Ctx<'js>, native: &Object<'js>) -> Result<()> {
    macro_rules! def {
        ($name:literal, $f:expr) => {
            native.set($name, Function::new(ctx.clone(), $f)?)?;
        };
    }
    def!("resolveUrl", |ctx: Ctx<'js>,
                        href: String|
     -> Result<Option<String>> {
        let url = doc_url(&ctx)?;
        with_doc(&ctx, |doc| {
            Ok(inspect::base_url_at(doc, Some(&url))
                .join(href.trim())
                .ok()
                .map(String::from))
        })
    });
    def!("parseUrl", |href: String,
                      base: Option<String>|
     -> Option<Vec<String>> {
        let parsed = match base {
            Some(base) => Url::parse(&base).ok()?.join(&href).ok()?,
            None => Url::parse(&href).ok()?,
        };
        let port = parsed.port().map(|p| p.to_string()).unwrap_or_default();
        let host = match parsed.port() {
            Some(p) => format!("{}:{p}", parsed.host_str().unwrap_or_default()),
            None => parsed.host_str().unwrap_or_default().to_owned(),
        };
        // Empty query and fragment read as '' (URL standard), not "?"/"#".
        let search = parsed
            .query()
            .filter(|q| !q.is_empty())
            .map(|q| format!("?{q}"))
            .unwrap_or_default();
        let hash = parsed
            .fragment()
            .filter(|f| !f.is_empty())
            .map(|f| format!("#{f}"))
            .unwrap_or_default();
        Some(vec![
            parsed.to_string(),
            format!("{}:", parsed.scheme()),
            parsed.username().to_owned(),
            parsed.password().unwrap_or_default().to_owned(),
            host,
            parsed.host_str().unwrap_or_default().to_owned(),
            port,
            parsed.path().to_owned(),
            search,
            hash,
            parsed.origin().ascii_serialization(),
        ])
    });
    Ok(())
}
