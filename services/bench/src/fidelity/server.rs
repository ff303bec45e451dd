//! The corpus server: `tests/corpus/pages` served as static files on two loopback
//! origins (the second one is cross-origin to the first: same host, another
//! port), plus the dynamic routes under `/api/` the pages use. The goldens'
//! generator and the e2e test both run this same code.
//!
//! Static files are read at request time, so an edited page is served as it is
//! now. In `.html` and `.js` files `{{origin2}}` is replaced by the second origin,
//! which is how a page learns where its cross-origin partner is.
//!
//! Dynamic routes:
//! - `GET /api/cookie`: sets `fetched=1` and the HttpOnly `fetched_secret=1`.
//! - `GET /api/cookies`: the sorted names of the cookies the request carried.
//! - `GET|POST /api/echo`: the request's method, query, content type,
//!   `x-station` header and body, as JSON.
//! - `GET|POST /api/redirect?to=URL[&status=N][&allow=1]`: a redirect (302,
//!   or `status` of 301/303/307/308) to a same-origin path or to a URL on
//!   either corpus origin; `allow=1` lets the requesting origin read it (a
//!   CORS hop that passes).
//! - `GET|OPTIONS /api/cors[?allow=1]`: JSON that another origin may read only
//!   with `allow=1` (which also answers the preflight); it says which `Origin`
//!   the request came from.
//!
//! And `network.html` is served with two `Set-Cookie` headers, one HttpOnly
//! (`PAGE_COOKIES`); files under `shared/` carry
//! `Access-Control-Allow-Origin: *`, so other origins may load them in CORS
//! mode (module scripts). `/vendor/<package>/<file>` serves the published
//! libraries of `tests/corpus/vendor` (`npm ci` installs them beside the
//! pages), which `frameworks.html` loads.

use std::future::IntoFuture as _;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use anyhow::Context as _;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::json;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use super::Origins;

/// This file: what the pages that use the dynamic routes are served by is
/// part of their goldens' hash (`Corpus::source_hash`), so a changed route
/// makes their goldens stale.
pub const SOURCE: &str = include_str!("server.rs");

/// Whether the server sets cookies on `page` itself.
pub fn sets_cookies_on(page: &str) -> bool {
    PAGE_COOKIES.iter().any(|(p, _)| *p == page)
}

/// Cookies some pages are served with: (page, `Set-Cookie` value).
const PAGE_COOKIES: &[(&str, &str)] = &[
    ("network.html", "page_visible=1; Path=/"),
    ("network.html", "page_secret=1; Path=/; HttpOnly"),
];

/// What every request handler shares.
struct ServerState {
    pages: PathBuf,
    origin2: String,
}

/// A corpus server running in the background on two loopback ports; stopped
/// when dropped.
#[derive(Debug)]
pub struct CorpusServer {
    /// Its two origins.
    pub origins: Origins,
    task: JoinHandle<()>,
}

impl CorpusServer {
    /// The URL of a page (or any path under `pages/`) on the first origin.
    pub fn url(&self, page: &str) -> String {
        format!("{}/{}", self.origins.origin, page.trim_start_matches('/'))
    }
}

impl Drop for CorpusServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Starts the corpus server for `pages` on two ephemeral loopback ports.
pub async fn serve(pages: impl Into<PathBuf>) -> anyhow::Result<CorpusServer> {
    let pages = pages.into();
    let bind = || TcpListener::bind("127.0.0.1:0");
    let primary = bind().await.context("binding the corpus server")?;
    let secondary = bind().await.context("binding the corpus server")?;
    let origins = Origins {
        origin: format!("http://{}", primary.local_addr()?),
        origin2: format!("http://{}", secondary.local_addr()?),
    };
    let task = tokio::spawn(async move {
        if let Err(e) = run(primary, secondary, pages).await {
            tracing::error!(error = %e, "the corpus server stopped");
        }
    });
    Ok(CorpusServer { origins, task })
}

/// Serves `pages` and the dynamic routes on both listeners until an error.
pub async fn run(
    primary: TcpListener,
    secondary: TcpListener,
    pages: PathBuf,
) -> anyhow::Result<()> {
    let origin2 = format!("http://{}", secondary.local_addr()?);
    let app = router(pages, origin2);
    tokio::try_join!(
        axum::serve(primary, app.clone()).into_future(),
        axum::serve(secondary, app).into_future(),
    )
    .context("serving the corpus")?;
    Ok(())
}

/// The routes: `/api/…` and every file under `pages`.
fn router(pages: PathBuf, origin2: String) -> axum::Router {
    axum::Router::new()
        .route("/api/cookie", get(set_cookies))
        .route("/api/cookies", get(list_cookies))
        .route("/api/echo", get(echo).post(echo))
        .route("/api/redirect", get(redirect).post(redirect))
        .route("/api/cors", get(cors).options(cors_preflight))
        .fallback(static_file)
        .with_state(Arc::new(ServerState { pages, origin2 }))
}

fn json_response(status: StatusCode, mut headers: HeaderMap, body: serde_json::Value) -> Response {
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    (status, headers, body.to_string()).into_response()
}

fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        "not found\n",
    )
        .into_response()
}

/// The first value of `name` in a query string.
fn query_param(query: Option<&str>, name: &str) -> Option<String> {
    url::form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

async fn set_cookies() -> Response {
    let mut headers = HeaderMap::new();
    for cookie in ["fetched=1; Path=/", "fetched_secret=1; Path=/; HttpOnly"] {
        headers.append(header::SET_COOKIE, HeaderValue::from_static(cookie));
    }
    json_response(
        StatusCode::OK,
        headers,
        json!({ "set": ["fetched", "fetched_secret"] }),
    )
}

async fn list_cookies(headers: HeaderMap) -> Response {
    let mut names: Vec<String> = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.split('=').next())
        .map(|name| name.trim().to_owned())
        .filter(|name| !name.is_empty())
        .collect();
    names.sort();
    json_response(StatusCode::OK, HeaderMap::new(), json!({ "names": names }))
}

async fn echo(
    method: Method,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: String,
) -> Response {
    let read = |name: HeaderName| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    json_response(
        StatusCode::OK,
        HeaderMap::new(),
        json!({
            "method": method.as_str(),
            "query": query,
            "contentType": read(header::CONTENT_TYPE),
            "station": read(HeaderName::from_static("x-station")),
            "body": body,
        }),
    )
}

async fn redirect(RawQuery(query): RawQuery, request: HeaderMap) -> Response {
    let query = query.as_deref();
    let status = match query_param(query, "status").as_deref() {
        None => StatusCode::FOUND,
        Some(code) => match code
            .parse::<u16>()
            .ok()
            .and_then(|c| StatusCode::from_u16(c).ok())
        {
            Some(code) if code.is_redirection() && code != StatusCode::NOT_MODIFIED => code,
            _ => return StatusCode::BAD_REQUEST.into_response(),
        },
    };
    // A path on this origin, or a URL on a loopback corpus origin: the
    // server redirects nowhere else.
    let allowed = |to: &str| {
        (to.starts_with('/') && !to.starts_with("//")) || to.starts_with("http://127.0.0.1:")
    };
    match query_param(query, "to") {
        Some(to) if allowed(&to) => match HeaderValue::from_str(&to) {
            Ok(location) => {
                let mut headers = cors_headers(query, &request);
                headers.insert(header::LOCATION, location);
                (status, headers).into_response()
            }
            Err(_) => StatusCode::BAD_REQUEST.into_response(),
        },
        _ => StatusCode::BAD_REQUEST.into_response(),
    }
}

/// The CORS headers `/api/cors?allow=1` answers with: the caller's origin.
fn cors_headers(query: Option<&str>, request: &HeaderMap) -> HeaderMap {
    let mut headers = HeaderMap::new();
    if query_param(query, "allow").as_deref() == Some("1") {
        let origin = request
            .get(header::ORIGIN)
            .cloned()
            .unwrap_or_else(|| HeaderValue::from_static("*"));
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        headers.insert(header::VARY, HeaderValue::from_static("Origin"));
    }
    headers
}

async fn cors(RawQuery(query): RawQuery, request: HeaderMap) -> Response {
    let mut headers = cors_headers(query.as_deref(), &request);
    // Not listed in Access-Control-Expose-Headers: another origin must not see it.
    headers.insert(
        HeaderName::from_static("x-internal"),
        HeaderValue::from_static("not exposed"),
    );
    let origin = request.get(header::ORIGIN).and_then(|v| v.to_str().ok());
    json_response(
        StatusCode::OK,
        headers,
        json!({ "network": "partner network", "requestOrigin": origin }),
    )
}

async fn cors_preflight(RawQuery(query): RawQuery, request: HeaderMap) -> Response {
    let mut headers = cors_headers(query.as_deref(), &request);
    if headers.contains_key(header::ACCESS_CONTROL_ALLOW_ORIGIN) {
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_HEADERS,
            HeaderValue::from_static("x-station"),
        );
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static("GET"),
        );
    }
    (StatusCode::NO_CONTENT, headers).into_response()
}

/// `path` as a relative path inside the pages directory, or `None` if it
/// could leave it.
fn relative_path(path: &str) -> Option<PathBuf> {
    let relative = Path::new(path.trim_start_matches('/'));
    let plain = relative
        .components()
        .all(|c| matches!(c, Component::Normal(_)));
    (plain && !path.contains('\\') && !relative.as_os_str().is_empty())
        .then(|| relative.to_path_buf())
}

fn content_type(path: &Path) -> &'static str {
    match path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
    {
        "html" => "text/html; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "txt" => "text/plain; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        _ => "application/octet-stream",
    }
}

/// A list of the pages, for a person browsing the server.
async fn index(pages: &Path) -> Response {
    let mut names = Vec::new();
    if let Ok(mut dir) = tokio::fs::read_dir(pages).await {
        while let Ok(Some(entry)) = dir.next_entry().await {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.ends_with(".html") {
                names.push(name);
            }
        }
    }
    names.sort();
    let items: String = names
        .iter()
        .map(|n| format!("<li><a href=\"/{n}\">{n}</a></li>"))
        .collect();
    let html = format!(
        "<!doctype html><title>Fidelity corpus</title><h1>Fidelity corpus</h1><ul>{items}</ul>"
    );
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response()
}

async fn static_file(State(state): State<Arc<ServerState>>, method: Method, uri: Uri) -> Response {
    if method != Method::GET && method != Method::HEAD {
        return StatusCode::METHOD_NOT_ALLOWED.into_response();
    }
    if uri.path() == "/" {
        return index(&state.pages).await;
    }
    let Some(relative) = relative_path(uri.path()) else {
        return not_found();
    };
    let path = match relative.strip_prefix("vendor") {
        Ok(library) => state.pages.join("../vendor/node_modules").join(library),
        Err(_) => state.pages.join(&relative),
    };
    let Ok(mut bytes) = tokio::fs::read(&path).await else {
        return not_found();
    };
    let kind = content_type(&path);
    if kind.starts_with("text/html") || kind.starts_with("text/javascript") {
        bytes = String::from_utf8_lossy(&bytes)
            .replace("{{origin2}}", &state.origin2)
            .into_bytes();
    }
    let mut headers = HeaderMap::new();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    let name = relative.to_string_lossy();
    if relative.starts_with("shared") {
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_ORIGIN,
            HeaderValue::from_static("*"),
        );
    }
    for &(page, cookie) in PAGE_COOKIES {
        if page == name {
            headers.append(header::SET_COOKIE, HeaderValue::from_static(cookie));
        }
    }
    (StatusCode::OK, headers, bytes).into_response()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn paths_that_could_leave_the_pages_directory_are_refused() {
        assert_eq!(relative_path("/dom.html"), Some(PathBuf::from("dom.html")));
        assert_eq!(
            relative_path("/scripts/a.js"),
            Some(PathBuf::from("scripts/a.js"))
        );
        assert_eq!(relative_path("/../secret"), None);
        assert_eq!(relative_path("/a/../../b"), None);
        assert_eq!(relative_path("/"), None);
        assert_eq!(relative_path("/a\\..\\b"), None);
    }

    #[tokio::test]
    async fn pages_are_served_with_the_second_origin_and_cookies() {
        let dir = std::env::temp_dir().join(format!("fidelity-server-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("network.html"), "<p>{{origin2}}</p>").unwrap();
        let server = serve(&dir).await.unwrap();
        let client = reqwest::Client::new();
        let res = client.get(server.url("network.html")).send().await.unwrap();
        assert_eq!(res.status(), 200);
        let cookies: Vec<_> = res.headers().get_all("set-cookie").iter().collect();
        assert_eq!(cookies.len(), 2);
        assert_eq!(
            res.text().await.unwrap(),
            format!("<p>{}</p>", server.origins.origin2)
        );
        let missing = client.get(server.url("nope.html")).send().await.unwrap();
        assert_eq!(missing.status(), 404);
        let cors = client
            .get(format!("{}/api/cors?allow=1", server.origins.origin2))
            .header("origin", &server.origins.origin)
            .send()
            .await
            .unwrap();
        assert_eq!(
            cors.headers()["access-control-allow-origin"],
            server.origins.origin.as_str()
        );
        let closed = client
            .get(format!("{}/api/cors", server.origins.origin2))
            .send()
            .await
            .unwrap();
        assert!(
            closed
                .headers()
                .get("access-control-allow-origin")
                .is_none()
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
