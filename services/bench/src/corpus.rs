//! The pages both browsers load, compiled into the binary and served from a
//! loopback HTTP server, so a run needs no network and no files beside the binary.

use std::net::SocketAddr;

use anyhow::Context as _;
use axum::response::Html;

/// Name and HTML of every corpus page.
pub const PAGES: &[(&str, &str)] = &[
    ("article.html", include_str!("../corpus/article.html")),
    ("news.html", include_str!("../corpus/news.html")),
    ("table.html", include_str!("../corpus/table.html")),
    ("form.html", include_str!("../corpus/form.html")),
    ("scripted.html", include_str!("../corpus/scripted.html")),
    ("landing.html", include_str!("../corpus/landing.html")),
];

/// The script every corpus page loads (`/site.js`).
pub const SITE_JS: &str = include_str!("../corpus/site.js");

/// The small inline page of the session-create row; its script writes the
/// heading, so a reader that ran no script reads different text.
pub const SMALL: &str = "<!doctype html><title>small</title><h1>Hello</h1><p>A small inline page with <a href='/x'>a link</a>.</p><script>document.querySelector('h1').textContent = 'Hello from a script'; document.title = 'small, scripted';</script>";

/// Serves the corpus on an ephemeral loopback port; returns its base URL. The
/// server lives as long as the runtime.
pub async fn serve() -> anyhow::Result<String> {
    let mut app = axum::Router::new();
    for (name, html) in PAGES {
        app = app.route(
            &format!("/{name}"),
            axum::routing::get(move || async move { Html(*html) }),
        );
    }
    app = app.route(
        "/site.js",
        axum::routing::get(|| async {
            (
                [(axum::http::header::CONTENT_TYPE, "text/javascript")],
                SITE_JS,
            )
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .context("binding the corpus server")?;
    let addr: SocketAddr = listener.local_addr()?;
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            tracing::error!(error = %e, "the corpus server stopped");
        }
    });
    Ok(format!("http://{addr}"))
}
