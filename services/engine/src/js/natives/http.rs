//! Natives for HTTP and cookies: one request through the host's network
//! import (what `fetch` and `XMLHttpRequest` are built on), and
//! `document.cookie` read and written through the host's cookie jar.

use rquickjs::function::Opt;
use rquickjs::{ArrayBuffer, Ctx, Exception, Function, Object, Result, TypedArray};
use url::Url;

use super::{bytes, doc_url};
use crate::bindings::fleet::engine::network;
use crate::net;

/// Whether a URL is one cookies belong to.
fn cookie_url(url: &str) -> Option<String> {
    let parsed = Url::parse(url).ok()?;
    matches!(parsed.scheme(), "http" | "https").then(|| parsed.to_string())
}

/// Add the http natives to `native`.
pub(super) fn install<'js>(ctx: &Ctx<'js>, native: &Object<'js>) -> Result<()> {
    macro_rules! def {
        ($name:literal, $f:expr) => {
            native.set($name, Function::new(ctx.clone(), $f)?)?;
        };
    }
    // --- HTTP ---
    // One request through the host (synchronously: the prelude turns it into
    // a task). Throws a TypeError with the host's reason on network failure.
    // With `follow` false a redirect comes back as it is, for the prelude to
    // check and follow (`fetch`, XHR); by default the host follows it.
    def!("httpFetch", |ctx: Ctx<'js>,
                       method: String,
                       url: String,
                       headers: Vec<Vec<String>>,
                       body: Option<TypedArray<'js, u8>>,
                       credentials: bool,
                       follow: Opt<bool>|
     -> Result<Object<'js>> {
        let headers = headers
            .into_iter()
            .filter_map(|pair| {
                let mut pair = pair.into_iter();
                Some((pair.next()?, pair.next()?))
            })
            .collect();
        let body = body.as_ref().map(bytes);
        let hops = if follow.0.unwrap_or(true) {
            net::Hops::Host
        } else {
            net::Hops::Guest
        };
        let response = net::fetch_with(&method, &url, headers, body, credentials, hops)
            .map_err(|reason| Exception::throw_type(&ctx, &reason))?;
        let out = Object::new(ctx.clone())?;
        out.set("status", response.status)?;
        out.set("url", response.url)?;
        let headers: Vec<Vec<String>> = response
            .headers
            .into_iter()
            .map(|(k, v)| vec![k.to_ascii_lowercase(), v])
            .collect();
        out.set("headers", headers)?;
        out.set("body", ArrayBuffer::new(ctx.clone(), response.body)?)?;
        Ok(out)
    });

    // A file the page built (a `blob:` or `data:` link with `download`),
    // handed to the host to keep; the console says what became of it.
    def!("keepDownload", |name: String,
                          mime: String,
                          body: TypedArray<'js, u8>,
                          source: String|
     -> Result<()> {
        let saved = network::keep_download(&name, &mime, &bytes(&body), &source);
        crate::tab::report_download(&saved);
        Ok(())
    });

    // --- cookies ---
    def!("documentCookies", |ctx: Ctx<'js>| -> Result<String> {
        let url = doc_url(&ctx)?;
        Ok(cookie_url(&url)
            .map(|url| network::document_cookies(&url))
            .unwrap_or_default())
    });
    def!("setDocumentCookie", |ctx: Ctx<'js>,
                               cookie: String|
     -> Result<()> {
        let url = doc_url(&ctx)?;
        if let Some(url) = cookie_url(&url) {
            network::set_document_cookie(&url, &cookie);
        }
        Ok(())
    });
    Ok(())
}
