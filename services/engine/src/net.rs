//! Network access: the host's `network.fetch` import, `data:` URLs, and the
//! Blitz [`NetProvider`] that loads subresources through them.
//!
//! The import is synchronous, so the provider completes every request inside
//! `NetProvider::fetch`: the response lands in the document's message channel
//! and is applied by the next `handle_messages`/`resolve`. That keeps the whole
//! guest single-threaded with no event loop.

use std::sync::atomic::{AtomicUsize, Ordering};

use base64::Engine as _;
use blitz_traits::net::{Body, Bytes, NetHandler, NetProvider, Request};
use url::Url;

use crate::bindings::fleet::engine::network;
use crate::charset;

/// Subresource requests one document may make (stylesheets, images, fonts,
/// iframes). Each one is a synchronous round trip through the host, so a page
/// with thousands of images would otherwise stall the tab for a long time.
const MAX_SUBRESOURCES: usize = 256;

/// A response: the final one after the host followed redirects, the
/// redirect itself when the guest follows them ([`Hops::Guest`]), or a
/// decoded `data:` URL.
pub(crate) struct Response {
    /// HTTP status of the final hop (200 for `data:` URLs).
    pub status: u16,
    /// URL of the final hop.
    pub url: String,
    /// Response headers of the final hop.
    pub headers: Vec<(String, String)>,
    /// The body, possibly cut by the host's size limit.
    pub body: Vec<u8>,
    /// Set when the host saved a navigation's response as a download.
    pub download: Option<network::SavedDownload>,
}

impl Response {
    /// The first header named `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The `Content-Type` header.
    pub fn content_type(&self) -> Option<&str> {
        self.header("content-type")
    }
}

/// Who follows redirects.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hops {
    /// The host, to the final response (documents, subresources).
    Host,
    /// The guest: a 3xx comes back as it is (`fetch` and XHR, which check
    /// every hop by the Fetch standard's rules).
    Guest,
}

/// Fetch `url` with `method` and the tab's cookies: `data:` URLs are decoded
/// here, http(s) goes to the host, anything else is refused (the guest has no
/// filesystem).
pub(crate) fn fetch(
    method: &str,
    url: &str,
    headers: Vec<(String, String)>,
    body: Option<Vec<u8>>,
) -> Result<Response, String> {
    fetch_with(method, url, headers, body, true, Hops::Host)
}

/// [`fetch`], saying whether the cookie jar takes part (`credentials`) and
/// who follows redirects.
pub(crate) fn fetch_with(
    method: &str,
    url: &str,
    headers: Vec<(String, String)>,
    body: Option<Vec<u8>>,
    credentials: bool,
    hops: Hops,
) -> Result<Response, String> {
    fetch_as(
        method,
        url,
        headers,
        body,
        (credentials, hops),
        network::Destination::Subresource,
    )
}

/// A navigation's fetch: the host may save the response as a download
/// (`destination` says whether it is a plain navigation or an
/// `<a download>` link) instead of handing it over.
pub(crate) fn navigation(
    method: &str,
    url: &str,
    headers: Vec<(String, String)>,
    body: Option<Vec<u8>>,
    destination: network::Destination,
) -> Result<Response, String> {
    fetch_as(method, url, headers, body, (true, Hops::Host), destination)
}

fn fetch_as(
    method: &str,
    url: &str,
    headers: Vec<(String, String)>,
    body: Option<Vec<u8>>,
    (credentials, hops): (bool, Hops),
    destination: network::Destination,
) -> Result<Response, String> {
    let parsed = Url::parse(url).map_err(|e| format!("invalid URL {url:?}: {e}"))?;
    match parsed.scheme() {
        "data" => decode_data_url(url),
        "http" | "https" => {
            let request = network::Request {
                method: method.to_owned(),
                url: parsed.to_string(),
                headers,
                body,
                credentials,
                follow_redirects: hops == Hops::Host,
                destination,
            };
            let response = network::fetch(&request)?;
            Ok(Response {
                status: response.status,
                url: response.url,
                headers: response.headers,
                body: response.body,
                download: response.download,
            })
        }
        other => Err(format!("unsupported URL scheme \"{other}\"")),
    }
}

/// A plain GET.
pub(crate) fn get(url: &str) -> Result<Response, String> {
    fetch("GET", url, Vec::new(), None)
}

/// Decode `data:[<mediatype>][;base64],<data>` (RFC 2397, as browsers read it).
fn decode_data_url(url: &str) -> Result<Response, String> {
    let rest = url.get(5..).unwrap_or_default();
    let (meta, data) = rest
        .split_once(',')
        .ok_or_else(|| "malformed data: URL (no comma)".to_owned())?;
    let (mime, is_base64) = match meta.trim_end().rsplit_once(';') {
        Some((mime, last)) if last.trim().eq_ignore_ascii_case("base64") => (mime, true),
        _ => (meta, false),
    };
    let decoded: Vec<u8> = percent_decode(data);
    let body = if is_base64 {
        let compact: Vec<u8> = decoded
            .into_iter()
            .filter(|b| !b.is_ascii_whitespace())
            .collect();
        base64::engine::general_purpose::STANDARD
            .decode(&compact)
            .or_else(|_| base64::engine::general_purpose::STANDARD_NO_PAD.decode(&compact))
            .map_err(|e| format!("malformed base64 in data: URL: {e}"))?
    } else {
        decoded
    };
    let mime = if mime.trim().is_empty() {
        "text/plain;charset=US-ASCII".to_owned()
    } else {
        mime.trim().to_owned()
    };
    Ok(Response {
        status: 200,
        url: url.to_owned(),
        headers: vec![("content-type".to_owned(), mime)],
        body,
        download: None,
    })
}

fn percent_decode(input: &str) -> Vec<u8> {
    let bytes = input.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let (Some(h), Some(l)) = (
                bytes.get(i + 1).and_then(|c| (*c as char).to_digit(16)),
                bytes.get(i + 2).and_then(|c| (*c as char).to_digit(16)),
            )
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}

/// Loads a document's subresources through [`fetch`], synchronously.
#[derive(Default)]
pub(crate) struct GuestNetProvider {
    /// Requests issued so far (bounded by [`MAX_SUBRESOURCES`]).
    issued: AtomicUsize,
}

impl GuestNetProvider {
    /// How many requests have completed; `resolve` compares it before and after
    /// a pass to learn whether new resources (e.g. background images) arrived.
    pub fn completed(&self) -> usize {
        self.issued.load(Ordering::Relaxed)
    }
}

impl NetProvider for GuestNetProvider {
    fn fetch(&self, _doc_id: usize, request: Request, handler: Box<dyn NetHandler>) {
        let issued = self.issued.fetch_add(1, Ordering::Relaxed);
        let url = request.url.to_string();
        // Blitz has no error callback: a handler that is never called leaves a
        // render-blocking stylesheet pending forever. Failures therefore deliver an
        // empty body, which every handler treats as "nothing usable" (an empty
        // stylesheet, an undecodable image, an unknown font format).
        let (final_url, body) = if issued >= MAX_SUBRESOURCES {
            (url, Vec::new())
        } else {
            let headers = request
                .headers
                .iter()
                .filter_map(|(name, value)| {
                    Some((name.as_str().to_owned(), value.to_str().ok()?.to_owned()))
                })
                .collect();
            let body = match request.body {
                Body::Bytes(bytes) => Some(bytes.to_vec()),
                Body::Form(_) | Body::Empty => None,
            };
            match fetch(request.method.as_str(), &url, headers, body) {
                Ok(response) if response.status < 400 => {
                    let final_url = response.url.clone();
                    (final_url, transcode_stylesheet(response))
                }
                Ok(response) => (response.url, Vec::new()),
                Err(_) => (url, Vec::new()),
            }
        };
        handler.bytes(final_url, Bytes::from(body));
    }
}

/// Blitz parses stylesheets only as UTF-8; a latin1 stylesheet (declared in its
/// `Content-Type`) is transcoded so it is not dropped whole.
fn transcode_stylesheet(response: Response) -> Vec<u8> {
    let is_css = response
        .content_type()
        .is_some_and(|ct| ct.trim_start().to_ascii_lowercase().starts_with("text/css"));
    if is_css && !charset::is_utf8(&response.body) {
        charset::decode_text(&response.body, response.content_type()).into_bytes()
    } else {
        response.body
    }
}
