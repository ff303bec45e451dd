//! A static file server for the real-world corpus: one page's web root (an
//! unpacked Debian tree, or the npm packages) served as it would be from its own
//! site, on a loopback port of its own. Paths are percent-decoded, a directory
//! answers with its `index.html`, and symbolic links are followed only while they
//! stay inside the corpus folder (Debian's documentation links its scripts to
//! other packages' files, which `scripts/realworld.sh` unpacks beside it).

use std::future::IntoFuture as _;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use anyhow::Context as _;
use axum::http::{StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// A running server; stopped when dropped.
#[derive(Debug)]
pub struct RootServer {
    /// `http://127.0.0.1:port`.
    pub origin: String,
    task: JoinHandle<()>,
}

impl Drop for RootServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// What a request may read: files under `root` that resolve inside `fence`.
struct Served {
    root: PathBuf,
    fence: PathBuf,
}

/// Serves `root` (a folder inside `fence`, the corpus folder) on a loopback port.
pub async fn serve(root: &Path, fence: &Path) -> anyhow::Result<RootServer> {
    let fence = fence
        .canonicalize()
        .with_context(|| format!("the corpus folder {} is missing", fence.display()))?;
    let root = root
        .canonicalize()
        .with_context(|| format!("the web root {} is missing", root.display()))?;
    anyhow::ensure!(
        root.starts_with(&fence),
        "{} is outside the corpus folder",
        root.display()
    );
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .context("binding the real-world corpus server")?;
    let origin = format!("http://{}", listener.local_addr()?);
    let served = Arc::new(Served { root, fence });
    let app = axum::Router::new().fallback(move |uri: Uri| {
        let served = served.clone();
        async move { file(&served, &uri).await }
    });
    let task = tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).into_future().await {
            tracing::error!(error = %e, "the real-world corpus server stopped");
        }
    });
    Ok(RootServer { origin, task })
}

async fn file(served: &Served, uri: &Uri) -> Response {
    let not_found = || (StatusCode::NOT_FOUND, "not found\n").into_response();
    let Some(relative) = relative_path(uri.path()) else {
        return not_found();
    };
    let mut path = served.root.join(relative);
    if path.is_dir() {
        path.push("index.html");
    }
    let Ok(real) = path.canonicalize() else {
        return not_found();
    };
    if !real.starts_with(&served.fence) {
        return not_found();
    }
    match tokio::fs::read(&real).await {
        Ok(bytes) => (
            [
                (header::CONTENT_TYPE, content_type(&path)),
                (header::CACHE_CONTROL, "no-store"),
            ],
            bytes,
        )
            .into_response(),
        Err(_) => not_found(),
    }
}

/// The percent-decoded `path` as a relative path with no `..`, or `None`.
fn relative_path(path: &str) -> Option<PathBuf> {
    let decoded = percent_decode(path)?;
    let relative = Path::new(decoded.trim_start_matches('/'));
    relative
        .components()
        .all(|c| matches!(c, Component::Normal(_)))
        .then(|| relative.to_path_buf())
}

/// `%XX` escapes decoded; `None` for a bad escape or bytes that are not UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The content type browsers expect for a file's extension.
fn content_type(path: &Path) -> &'static str {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase();
    match ext.as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "xhtml" => "application/xhtml+xml",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" | "map" | "geojson" | "topojson" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "ico" => "image/x-icon",
        "webp" => "image/webp",
        "bmp" => "image/bmp",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        "ttf" => "font/ttf",
        "otf" => "font/otf",
        "eot" => "application/vnd.ms-fontobject",
        "txt" | "md" => "text/plain; charset=utf-8",
        "xml" => "application/xml",
        "csv" => "text/csv; charset=utf-8",
        "tsv" => "text/tab-separated-values",
        "wasm" => "application/wasm",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_decoded_and_may_not_climb_out() {
        assert_eq!(
            relative_path("/usr/share/doc/a%20b/index.html"),
            Some(PathBuf::from("usr/share/doc/a b/index.html"))
        );
        assert_eq!(relative_path("/a/../../etc/passwd"), None);
        assert_eq!(relative_path("/%2e%2e/secret"), None);
        assert_eq!(
            relative_path("/c++/x.html"),
            Some(PathBuf::from("c++/x.html"))
        );
        assert_eq!(relative_path("/bad%zzescape"), None);
    }
}
