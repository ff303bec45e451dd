//! The fetcher under the policy: refusals and their reasons, body caps,
//! redirects hop by hop, cookies at every hop, forbidden methods.

use super::*;

#[tokio::test]
async fn a_hostname_that_resolves_to_loopback_is_refused_with_the_reason() {
    let f = Fetcher::new(NetPolicy::default(), 1024).unwrap();
    let req = FetchRequest {
        method: "GET".into(),
        url: "http://localhost:9/".into(),
        headers: vec![],
        body: None,
        follow_redirects: true,
        destination: Destination::Subresource,
    };
    let err = f
        .fetch(req, &mut CookieStore::default(), Duration::from_secs(5))
        .await
        .unwrap_err();
    assert!(err.0.contains("refused by the network policy"), "{err}");
}

async fn serve(app: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}")
}

fn get(url: String) -> FetchRequest {
    FetchRequest {
        method: "GET".into(),
        url,
        headers: vec![],
        body: None,
        follow_redirects: true,
        destination: Destination::Subresource,
    }
}

/// One fetch with an empty cookie jar and a generous timeout.
async fn fetch_fresh(f: &Fetcher, req: FetchRequest) -> Result<FetchResponse, Refused> {
    f.fetch(req, &mut CookieStore::default(), Duration::from_secs(5))
        .await
}

fn loopback_fetcher(max_body: usize) -> Fetcher {
    Fetcher::new(
        NetPolicy {
            allow_private: vec!["127.0.0.0/8".parse().unwrap()],
        },
        max_body,
    )
    .unwrap()
}

#[tokio::test]
async fn a_body_at_the_limit_is_read_and_one_byte_more_is_refused() {
    use axum::routing::get as route;
    let app = axum::Router::new()
        .route("/at", route(|| async { vec![b'a'; 1000] }))
        .route("/over", route(|| async { vec![b'a'; 1001] }));
    let base = serve(app).await;
    let f = loopback_fetcher(1000);
    let ok = fetch_fresh(&f, get(format!("{base}/at"))).await.unwrap();
    assert_eq!(ok.body.len(), 1000);
    let err = fetch_fresh(&f, get(format!("{base}/over")))
        .await
        .unwrap_err();
    assert!(err.0.contains("exceeds the limit of 1000 bytes"), "{err}");
}

#[tokio::test]
async fn a_navigation_to_an_attachment_is_saved_past_the_page_body_cap_and_a_script_reads_it() {
    use axum::routing::get as route;
    let app = axum::Router::new().route(
        "/export",
        route(|| async {
            (
                [
                    ("content-type", "text/csv"),
                    ("content-disposition", "attachment; filename=\"rates.csv\""),
                ],
                vec![b'1'; 5000],
            )
        }),
    );
    let base = serve(app).await;
    // The page body cap is 1000 bytes; a download has its own, larger one.
    let f = loopback_fetcher(1000);
    let mut nav = get(format!("{base}/export"));
    nav.destination = Destination::Document;
    let saved = fetch_fresh(&f, nav).await.unwrap();
    assert!(saved.body.is_empty());
    let d = saved.download.expect("saved as a download");
    assert_eq!(
        (d.filename.as_str(), d.mime_type.as_str()),
        ("rates.csv", "text/csv")
    );
    assert_eq!(d.bytes.map(|b| b.len()), Ok(5000));
    // A script's fetch of the same URL gets the body (and its cap).
    let err = fetch_fresh(&f, get(format!("{base}/export")))
        .await
        .unwrap_err();
    assert!(err.0.contains("exceeds the limit of 1000 bytes"), "{err}");
}

#[tokio::test]
async fn every_redirect_hop_is_checked_against_the_policy() {
    use axum::response::Redirect;
    use axum::routing::get as route;
    let app = axum::Router::new()
        .route(
            "/to-private",
            route(|| async { Redirect::temporary("http://10.0.0.1/admin") }),
        )
        .route(
            "/to-file",
            route(|| async { Redirect::temporary("file:///etc/passwd") }),
        )
        .route("/hop", route(|| async { Redirect::to("/end") }))
        .route("/end", route(|| async { "landed" }));
    let base = serve(app).await;
    let f = loopback_fetcher(1 << 20);
    let err = fetch_fresh(&f, get(format!("{base}/to-private")))
        .await
        .unwrap_err();
    assert!(err.0.contains("10.0.0.1"), "{err}");
    let err = fetch_fresh(&f, get(format!("{base}/to-file")))
        .await
        .unwrap_err();
    assert!(err.0.contains("only http and https"), "{err}");
    let ok = fetch_fresh(&f, get(format!("{base}/hop"))).await.unwrap();
    assert_eq!(
        (ok.url, ok.body),
        (format!("{base}/end"), b"landed".to_vec())
    );
}

#[tokio::test]
async fn a_redirect_not_followed_is_answered_as_it_is_with_its_cookies_kept() {
    use axum::response::{AppendHeaders, Redirect};
    use axum::routing::get as route;
    let app = axum::Router::new()
        .route(
            "/hop",
            route(|| async {
                (
                    AppendHeaders([("set-cookie", "seen=1; Path=/")]),
                    Redirect::to("http://10.0.0.1/next"),
                )
            }),
        )
        .route("/end", route(|| async { "landed" }));
    let base = serve(app).await;
    let f = loopback_fetcher(1 << 20);
    let mut jar = CookieStore::default();
    let req = FetchRequest {
        follow_redirects: false,
        destination: Destination::Subresource,
        ..get(format!("{base}/hop"))
    };
    let hop = f
        .fetch(req, &mut jar, Duration::from_secs(5))
        .await
        .unwrap();
    assert_eq!(hop.status, 303);
    assert_eq!(hop.url, format!("{base}/hop"));
    let location = hop.headers.iter().find(|(k, _)| k == "location");
    assert_eq!(
        location.map(|(_, v)| v.as_str()),
        Some("http://10.0.0.1/next")
    );
    assert_eq!(script_cookies(&jar, &format!("{base}/")), "seen=1");
    // The hop it names is then a request of its own, checked as any.
    let err = fetch_fresh(&f, get("http://10.0.0.1/next".into()))
        .await
        .unwrap_err();
    assert!(err.0.contains("10.0.0.1"), "{err}");
}

#[tokio::test]
async fn connect_and_trace_are_refused() {
    let f = loopback_fetcher(1024);
    for m in ["CONNECT", "TRACE", "TRACK"] {
        let req = FetchRequest {
            method: m.into(),
            url: "http://127.0.0.1:9/".into(),
            headers: vec![],
            body: None,
            follow_redirects: true,
            destination: Destination::Subresource,
        };
        let err = f
            .fetch(req, &mut CookieStore::default(), Duration::from_secs(5))
            .await
            .unwrap_err();
        assert!(err.0.contains("not allowed"), "{m}: {err}");
    }
}

/// The pairs of a `Cookie` header, in a stable order.
fn cookie_names(body: Vec<u8>) -> Vec<String> {
    let mut v: Vec<String> = String::from_utf8(body)
        .unwrap()
        .split("; ")
        .map(str::to_owned)
        .collect();
    v.sort();
    v
}

#[tokio::test]
async fn cookies_follow_redirect_hops_to_their_own_host_only() {
    use axum::http::HeaderMap;
    use axum::response::{AppendHeaders, Redirect};
    use axum::routing::get as route;
    let echo = || {
        route(|h: HeaderMap| async move {
            h.get("cookie")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("none")
                .to_owned()
        })
    };
    let other = {
        let listener = tokio::net::TcpListener::bind("127.0.0.2:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            axum::serve(listener, axum::Router::new().route("/echo", echo()))
                .await
                .unwrap()
        });
        format!("http://{addr}")
    };
    let to_other = format!("{other}/echo");
    let app = axum::Router::new()
        .route(
            "/login",
            route(|| async {
                (
                    AppendHeaders([
                        ("set-cookie", "sid=s3cret; HttpOnly; Path=/"),
                        ("set-cookie", "theme=dark; Path=/"),
                    ]),
                    Redirect::to("/echo"),
                )
            }),
        )
        .route("/echo", echo())
        .route(
            "/away",
            route(move || {
                let to = to_other.clone();
                async move { Redirect::to(&to) }
            }),
        );
    let base = serve(app).await;
    let f = loopback_fetcher(1 << 20);
    let mut jar = CookieStore::default();
    let mut forged = get(format!("{base}/login"));
    forged.headers.push(("Cookie".into(), "forged=1".into()));
    let landed = f
        .fetch(forged, &mut jar, Duration::from_secs(5))
        .await
        .unwrap();
    assert_eq!(cookie_names(landed.body), ["sid=s3cret", "theme=dark"]);
    let again = f
        .fetch(
            get(format!("{base}/echo")),
            &mut jar,
            Duration::from_secs(5),
        )
        .await
        .unwrap();
    assert_eq!(cookie_names(again.body), ["sid=s3cret", "theme=dark"]);
    let away = f
        .fetch(
            get(format!("{base}/away")),
            &mut jar,
            Duration::from_secs(5),
        )
        .await
        .unwrap();
    assert_eq!(
        String::from_utf8(away.body).unwrap(),
        "none",
        "cookies leaked to another host"
    );
}
