//! An HTTP tool's request (`servo_http_*`): sent from the worker outside any
//! page, under the same policy and pinned resolution as a page's requests,
//! with the caller's own headers (Cookie and Authorization included, dropped
//! when a redirect leaves the origin), at most five redirects, and a body cut
//! at the caller's limit rather than refused.

use std::time::Duration;

use fleet_proto::http::MAX_REDIRECTS;

use super::{CookieStore, FetchRequest, Fetcher, Hops, Refused, describe, header_pairs};

/// What the caller asks for.
#[derive(Debug, Clone)]
pub struct ToolRequest {
    /// Method, upper case.
    pub method: String,
    /// Absolute URL.
    pub url: String,
    /// Request headers.
    pub headers: Vec<(String, String)>,
    /// Request body.
    pub body: Option<Vec<u8>>,
    /// Follow redirects (else a 3xx is the answer).
    pub follow_redirects: bool,
    /// Most body bytes kept.
    pub max_response_bytes: usize,
}

/// The last response.
#[derive(Debug, Clone)]
pub struct ToolResponse {
    /// Status code.
    pub status: u16,
    /// The status's standard reason phrase.
    pub status_text: String,
    /// URL of the last response.
    pub url: String,
    /// Whether a redirect led there.
    pub redirected: bool,
    /// Headers, one pair per value.
    pub headers: Vec<(String, String)>,
    /// Body, at most `max_response_bytes`.
    pub body: Vec<u8>,
    /// Whether the body was longer and cut.
    pub truncated: bool,
}

impl Fetcher {
    /// Sends an HTTP tool's request; the whole exchange, body included,
    /// ends within `timeout`.
    pub async fn tool_request(
        &self,
        req: ToolRequest,
        timeout: Duration,
    ) -> Result<ToolResponse, Refused> {
        match tokio::time::timeout(timeout, self.tool_request_inner(req)).await {
            Ok(r) => r,
            Err(_) => Err(Refused(format!(
                "the request timed out after {} ms",
                timeout.as_millis()
            ))),
        }
    }

    async fn tool_request_inner(&self, req: ToolRequest) -> Result<ToolResponse, Refused> {
        let head = req.method == "HEAD";
        let limit = if head { 0 } else { req.max_response_bytes };
        // No jar: the tool is no page and keeps nothing between calls, but
        // cookies a redirect sets reach the next hop of the same site, as in
        // a browser.
        let mut jar = CookieStore::default();
        let last = self
            .exchange(
                FetchRequest {
                    method: req.method,
                    url: req.url,
                    headers: req.headers,
                    body: req.body,
                    follow_redirects: req.follow_redirects,
                    destination: super::Destination::Subresource,
                },
                &mut jar,
                Hops {
                    max_redirects: MAX_REDIRECTS,
                    page: false,
                },
            )
            .await?;
        let mut resp = last.response;
        let status = resp.status();
        let headers = header_pairs(&resp);
        let url = resp.url().to_string();
        let mut body = Vec::new();
        let mut truncated = false;
        while let Some(chunk) = resp.chunk().await.map_err(describe)? {
            let room = limit - body.len();
            if chunk.len() > room {
                body.extend_from_slice(&chunk[..room]);
                truncated = true;
                break;
            }
            body.extend_from_slice(&chunk);
        }
        Ok(ToolResponse {
            status: status.as_u16(),
            status_text: status.canonical_reason().unwrap_or_default().to_owned(),
            url,
            redirected: last.redirected,
            headers,
            body,
            truncated,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::future::Future;
    use std::net::IpAddr;
    use std::pin::Pin;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use axum::routing::get;

    use super::*;
    use crate::net::{Lookup, NetPolicy};

    /// Answers each lookup with the next address of a script (the last one
    /// from then on), counting the lookups.
    struct Scripted {
        answers: Vec<IpAddr>,
        calls: AtomicUsize,
    }

    impl Lookup for Scripted {
        fn lookup(
            &self,
            _host: &str,
        ) -> Pin<Box<dyn Future<Output = std::io::Result<Vec<IpAddr>>> + Send>> {
            let n = self.calls.fetch_add(1, Ordering::SeqCst);
            let ip = self.answers[n.min(self.answers.len() - 1)];
            Box::pin(async move { Ok(vec![ip]) })
        }
    }

    /// A server on `ip:port` that says `who` and counts its requests; it
    /// closes every connection, so each request connects (and resolves) anew.
    async fn serve_on(ip: &str, port: u16, who: &'static str) -> (u16, Arc<AtomicUsize>) {
        let hits = Arc::new(AtomicUsize::new(0));
        let h = hits.clone();
        let app = axum::Router::new().route(
            "/",
            get(move || {
                h.fetch_add(1, Ordering::SeqCst);
                async move { ([("connection", "close")], who) }
            }),
        );
        let listener = tokio::net::TcpListener::bind((ip, port)).await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        (port, hits)
    }

    fn get_tool(url: String) -> ToolRequest {
        ToolRequest {
            method: "GET".into(),
            url,
            headers: vec![],
            body: None,
            follow_redirects: true,
            max_response_bytes: 1 << 20,
        }
    }

    #[tokio::test]
    async fn a_name_that_rebinds_to_a_private_address_never_reaches_it() {
        // 127.0.0.1 stands for the public address the check allows, 127.0.0.2
        // for the private one it refuses; both serve the same port.
        let (port, public_hits) = serve_on("127.0.0.1", 0, "public").await;
        let (_, private_hits) = serve_on("127.0.0.2", port, "private").await;
        let lookup = Arc::new(Scripted {
            answers: vec!["127.0.0.1".parse().unwrap(), "127.0.0.2".parse().unwrap()],
            calls: AtomicUsize::new(0),
        });
        let f = Fetcher::with_lookup(
            NetPolicy {
                allow_private: vec!["127.0.0.1/32".parse().unwrap()],
            },
            1 << 20,
            lookup.clone(),
        )
        .unwrap();
        let url = format!("http://rebind.example:{port}/");

        // The first answer is checked and is the one connected to: one lookup,
        // no second one between the check and the connection.
        let r = f
            .tool_request(get_tool(url.clone()), Duration::from_secs(5))
            .await
            .unwrap();
        assert_eq!(r.body, b"public");
        assert_eq!(lookup.calls.load(Ordering::SeqCst), 1);

        // The name now answers private: refused, and the private server
        // never sees a request.
        let e = f
            .tool_request(get_tool(url), Duration::from_secs(5))
            .await
            .unwrap_err();
        assert!(e.0.contains("127.0.0.2"), "{e}");
        assert!(e.0.contains("network policy"), "{e}");
        assert_eq!(private_hits.load(Ordering::SeqCst), 0);
        assert_eq!(public_hits.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn a_long_body_is_cut_at_the_limit_and_marked() {
        let app = axum::Router::new().route("/", get(|| async { vec![b'x'; 5000] }));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        let f = Fetcher::new(
            NetPolicy {
                allow_private: vec!["127.0.0.0/8".parse().unwrap()],
            },
            1 << 20,
        )
        .unwrap();
        for (limit, kept, cut) in [(4999, 4999, true), (5000, 5000, false), (1, 1, true)] {
            let r = f
                .tool_request(
                    ToolRequest {
                        max_response_bytes: limit,
                        ..get_tool(format!("http://{addr}/"))
                    },
                    Duration::from_secs(5),
                )
                .await
                .unwrap();
            assert_eq!((r.body.len(), r.truncated), (kept, cut), "limit {limit}");
        }
    }
}
