//! The network policy and the fetcher behind the engine's `network.fetch` import.
//!
//! Every request a page makes passes here: http(s) only, no credentials in URLs,
//! every hostname resolved by us and refused if any address is not public (unless an
//! operator listed its range), the connection pinned to the addresses we checked,
//! and every redirect hop checked again. Bodies are capped while streaming.

pub mod download;
mod http_tool;
mod resolve;

use std::sync::Arc;
use std::time::Duration;

use url::Url;

pub use cookie_store::CookieStore;
use cookie_store::RawCookie;
pub use download::Destination;
pub use fleet_policy::{NetPolicy, Refused};
pub use http_tool::{ToolRequest, ToolResponse};
pub use resolve::{Lookup, SystemLookup};

/// How many redirects one fetch follows.
const MAX_REDIRECTS: usize = 10;

/// The largest download kept, as a body cap.
const MAX_FILE_BYTES: usize = {
    // 50 MiB fits any target's usize.
    fleet_proto::download::MAX_FILE_BYTES as usize
};

/// What differs between following a page's request and an HTTP tool's.
#[derive(Debug, Clone, Copy)]
struct Hops {
    /// Most redirects followed.
    max_redirects: usize,
    /// A page's request: the jar alone decides its cookies.
    page: bool,
}

/// The last response of an exchange, its body unread.
struct Last {
    response: reqwest::Response,
    /// Whether a redirect led to it.
    redirected: bool,
}

/// A response's headers as name/value text, one pair per value; values that
/// are not text are left out.
fn header_pairs(resp: &reqwest::Response) -> Vec<(String, String)> {
    resp.headers()
        .iter()
        .filter_map(|(k, v)| Some((k.as_str().to_owned(), v.to_str().ok()?.to_owned())))
        .collect()
}

/// A request from the engine.
#[derive(Debug, Clone)]
pub struct FetchRequest {
    /// Method, upper case.
    pub method: String,
    /// Absolute URL.
    pub url: String,
    /// Headers.
    pub headers: Vec<(String, String)>,
    /// Body.
    pub body: Option<Vec<u8>>,
    /// Whether redirects are followed here; when false a 3xx is the
    /// response (the engine follows it itself, checking CORS at each hop).
    pub follow_redirects: bool,
    /// What the page will do with the response: a navigation may become a
    /// download instead ([`download`]).
    pub destination: Destination,
}

/// A response saved as a download instead of being handed to the page.
#[derive(Debug, Clone)]
pub struct Downloaded {
    /// Safe to show.
    pub filename: String,
    /// Without parameters.
    pub mime_type: String,
    /// The whole body, or why it was not kept (too large, broken off).
    pub bytes: Result<Vec<u8>, String>,
}

/// The final response after redirects (or the redirect, when not followed).
#[derive(Debug, Clone)]
pub struct FetchResponse {
    /// Status of the final hop.
    pub status: u16,
    /// URL of the final hop.
    pub url: String,
    /// Headers of the final hop.
    pub headers: Vec<(String, String)>,
    /// Body (empty when the response was saved as a download).
    pub body: Vec<u8>,
    /// Set when the response was saved as a download.
    pub download: Option<Downloaded>,
}

/// The engine's HTTP client.
#[derive(Clone)]
pub struct Fetcher {
    client: reqwest::Client,
    policy: Arc<NetPolicy>,
    max_body: usize,
}

impl Fetcher {
    /// Builds the client. Redirects are followed here, hop by hop, not by reqwest.
    pub fn new(policy: NetPolicy, max_body: usize) -> anyhow::Result<Self> {
        Self::with_lookup(policy, max_body, Arc::new(SystemLookup))
    }

    /// Builds the client over `lookup` instead of the system resolver (tests
    /// script one to answer differently each time).
    pub fn with_lookup(
        policy: NetPolicy,
        max_body: usize,
        lookup: Arc<dyn Lookup>,
    ) -> anyhow::Result<Self> {
        let policy = Arc::new(policy);
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .dns_resolver(Arc::new(resolve::PolicyResolver::new(
                policy.clone(),
                lookup,
            )))
            .no_proxy()
            .user_agent(concat!("servo-fleet/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(Duration::from_secs(10))
            .build()?;
        Ok(Self {
            client,
            policy,
            max_body,
        })
    }

    /// The policy this fetcher applies.
    pub fn policy(&self) -> &NetPolicy {
        &self.policy
    }

    /// Fetches with the policy applied to every hop, within `timeout` overall.
    /// Cookies come from and go to `jar` at every hop, HttpOnly ones included:
    /// the jar lives in the host, so the page never sees what it must not.
    pub async fn fetch(
        &self,
        req: FetchRequest,
        jar: &mut CookieStore,
        timeout: Duration,
    ) -> Result<FetchResponse, Refused> {
        match tokio::time::timeout(timeout, self.fetch_inner(req, jar)).await {
            Ok(r) => r,
            Err(_) => Err(Refused(format!(
                "the request timed out after {} ms",
                timeout.as_millis()
            ))),
        }
    }

    async fn fetch_inner(
        &self,
        req: FetchRequest,
        jar: &mut CookieStore,
    ) -> Result<FetchResponse, Refused> {
        let destination = req.destination.clone();
        let last = self
            .exchange(
                req,
                jar,
                Hops {
                    max_redirects: MAX_REDIRECTS,
                    page: true,
                },
            )
            .await?;
        let resp = last.response;
        let headers = header_pairs(&resp);
        let status = resp.status().as_u16();
        let url = resp.url().to_string();
        if let Some(filename) = download::saved_name(&destination, status, &url, &headers) {
            let bytes = read_capped(resp, MAX_FILE_BYTES).await.map_err(|e| e.0);
            return Ok(FetchResponse {
                status,
                download: Some(Downloaded {
                    filename,
                    mime_type: download::mime_of(&headers),
                    bytes,
                }),
                url,
                headers,
                body: Vec::new(),
            });
        }
        let body = read_capped(resp, self.max_body).await?;
        Ok(FetchResponse {
            status,
            url,
            headers,
            body,
            download: None,
        })
    }

    /// Sends `req`, following redirects as `hops` says with the policy
    /// checked at every hop, and returns the last response unread.
    async fn exchange(
        &self,
        req: FetchRequest,
        jar: &mut CookieStore,
        hops: Hops,
    ) -> Result<Last, Refused> {
        let mut url =
            Url::parse(&req.url).map_err(|e| Refused(format!("invalid URL {:?}: {e}", req.url)))?;
        let mut method = reqwest::Method::from_bytes(req.method.as_bytes())
            .map_err(|_| Refused(format!("invalid HTTP method {:?}", req.method)))?;
        if fleet_proto::http::FORBIDDEN_METHODS.contains(&method.as_str()) {
            return Err(Refused(format!("the HTTP method {method} is not allowed")));
        }
        // A page may not set Cookie itself (a forbidden header); the jar does.
        // An HTTP tool's caller may: it has no jar.
        let mut headers: Vec<(String, String)> = req
            .headers
            .into_iter()
            .filter(|(k, _)| !(hops.page && k.eq_ignore_ascii_case("cookie")))
            .collect();
        let mut body = req.body;
        let follow = req.follow_redirects;
        let mut redirected = false;
        for _ in 0..=hops.max_redirects {
            self.policy.check_url(&url)?;
            let mut builder = self.client.request(method.clone(), url.clone());
            for (k, v) in &headers {
                builder = builder.header(k, v);
            }
            let cookie = jar
                .get_request_values(&url)
                .map(|(n, v)| format!("{n}={v}"))
                .collect::<Vec<_>>()
                .join("; ");
            if !cookie.is_empty() {
                builder = builder.header(reqwest::header::COOKIE, cookie);
            }
            if let Some(b) = &body {
                builder = builder.body(b.clone());
            }
            let resp = builder.send().await.map_err(describe)?;
            let set_cookies = resp
                .headers()
                .get_all(reqwest::header::SET_COOKIE)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .filter_map(|v| RawCookie::parse(v.to_owned()).ok());
            jar.store_response_cookies(set_cookies, &url);
            let status = resp.status();
            let Some(loc) = resp
                .headers()
                .get(reqwest::header::LOCATION)
                .filter(|_| follow && status.is_redirection())
            else {
                return Ok(Last {
                    response: resp,
                    redirected,
                });
            };
            let loc = loc
                .to_str()
                .map_err(|_| Refused("a redirect had an unreadable Location".into()))?;
            let next = url
                .join(loc)
                .map_err(|e| Refused(format!("a redirect to {loc:?} is not a URL: {e}")))?;
            if next.origin() != url.origin() {
                // Credentials meant for one origin never follow a redirect to another.
                headers.retain(|(k, _)| {
                    !matches!(
                        k.to_ascii_lowercase().as_str(),
                        "authorization" | "cookie" | "proxy-authorization"
                    )
                });
            }
            // The Fetch standard: 303 turns anything but HEAD into a GET,
            // 301 and 302 turn a POST into one; the body goes with it.
            if (status == reqwest::StatusCode::SEE_OTHER && method != reqwest::Method::HEAD)
                || ((status == reqwest::StatusCode::MOVED_PERMANENTLY
                    || status == reqwest::StatusCode::FOUND)
                    && method == reqwest::Method::POST)
            {
                method = reqwest::Method::GET;
                body = None;
                headers.retain(|(k, _)| {
                    !matches!(
                        k.to_ascii_lowercase().as_str(),
                        "content-type" | "content-length" | "content-encoding" | "content-language"
                    )
                });
            }
            url = next;
            redirected = true;
        }
        Err(Refused(format!(
            "more than {} redirects",
            hops.max_redirects
        )))
    }
}

/// The body of `resp`, refused once it passes `max` bytes.
async fn read_capped(mut resp: reqwest::Response, max: usize) -> Result<Vec<u8>, Refused> {
    let mut body = Vec::new();
    while let Some(chunk) = resp.chunk().await.map_err(describe)? {
        if body.len() + chunk.len() > max {
            return Err(Refused(format!(
                "the response body exceeds the limit of {max} bytes"
            )));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// What `document.cookie` reads at `url`: the jar's cookies for it, HttpOnly
/// ones left out, as `name=value` pairs joined by `; `.
pub fn script_cookies(jar: &CookieStore, url: &str) -> String {
    let Ok(url) = Url::parse(url) else {
        return String::new();
    };
    let mut cookies: Vec<_> = jar
        .matches(&url)
        .into_iter()
        .filter(|c| !c.http_only().unwrap_or(false))
        .collect();
    // Longer paths first, as browsers list them; the jar keeps no creation
    // order, so names order the rest.
    cookies.sort_by(|a, b| {
        let path = |c: &&cookie_store::Cookie<'_>| c.path().map_or(0, str::len);
        path(b).cmp(&path(a)).then_with(|| a.name().cmp(b.name()))
    });
    cookies
        .iter()
        .map(|c| format!("{}={}", c.name(), c.value()))
        .collect::<Vec<_>>()
        .join("; ")
}

/// A write to `document.cookie` at `url`. Ignored, as browsers do, when it
/// does not parse, carries HttpOnly, would replace an HttpOnly cookie, or
/// names a domain the URL does not belong to.
pub fn store_script_cookie(jar: &mut CookieStore, url: &str, cookie: &str) {
    let Ok(url) = Url::parse(url) else {
        return;
    };
    let Ok(raw) = RawCookie::parse(cookie.to_owned()) else {
        return;
    };
    if raw.http_only().unwrap_or(false) {
        return;
    }
    let shadows_http_only = jar
        .matches(&url)
        .into_iter()
        .any(|c| c.name() == raw.name() && c.http_only().unwrap_or(false));
    if shadows_http_only {
        return;
    }
    // A domain mismatch or a public-suffix domain is refused by the jar.
    let _ = jar.insert_raw(&raw, &url);
}

/// Turns a reqwest error into text for the agent, surfacing our policy refusal
/// from inside the resolver instead of reqwest's generic "error sending request".
fn describe(e: reqwest::Error) -> Refused {
    let mut source: Option<&dyn std::error::Error> = Some(&e);
    while let Some(s) = source {
        if let Some(r) = s.downcast_ref::<Refused>() {
            return r.clone();
        }
        source = s.source();
    }
    if e.is_timeout() {
        Refused("the request timed out".into())
    } else if e.is_connect() {
        Refused("could not connect to the server".into())
    } else {
        Refused("the request failed".into())
    }
}

#[cfg(test)]
mod tests;
