//! A loopback page server that counts every request by name and answers
//! `/hold/<name>` only when the test releases that name. A held request tells a
//! test that a call is in flight on a worker (and keeps it there); the counts
//! prove how many times a call's side effect ran.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Path, State};
use axum::response::Html;
use axum::routing::get;

use crate::harness::wait_for;

#[derive(Default)]
struct Shared {
    hits: Mutex<HashMap<String, u32>>,
    released: tokio::sync::watch::Sender<BTreeSet<String>>,
}

/// The running server; stops with the test's runtime.
pub struct Held {
    /// `http://127.0.0.1:<port>`.
    pub base: String,
    shared: Arc<Shared>,
}

impl Held {
    pub async fn start() -> Held {
        let shared = Arc::new(Shared::default());
        let app = axum::Router::new()
            .route("/page/{name}", get(page))
            .route("/hold/{name}", get(hold))
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Held { base, shared }
    }

    /// A page that answers at once (and is counted).
    pub fn page(&self, name: &str) -> String {
        format!("{}/page/{name}", self.base)
    }

    /// A page that answers once [`Held::release`] is called for `name`.
    pub fn hold(&self, name: &str) -> String {
        format!("{}/hold/{name}", self.base)
    }

    /// How many requests arrived for `name` (held or not).
    pub fn hits(&self, name: &str) -> u32 {
        self.shared
            .hits
            .lock()
            .unwrap()
            .get(name)
            .copied()
            .unwrap_or(0)
    }

    /// Waits until a request for `name` has arrived.
    pub async fn arrived(&self, name: &str) {
        wait_for(
            &format!("a request for {name} to arrive"),
            Duration::from_secs(60),
            || async { (self.hits(name) > 0).then_some(()) },
        )
        .await;
    }

    /// Lets every request for `name` answer, now and later.
    pub fn release(&self, name: &str) {
        self.shared.released.send_modify(|set| {
            set.insert(name.to_owned());
        });
    }
}

fn count(shared: &Shared, name: &str) {
    *shared
        .hits
        .lock()
        .unwrap()
        .entry(name.to_owned())
        .or_default() += 1;
}

async fn page(State(shared): State<Arc<Shared>>, Path(name): Path<String>) -> Html<String> {
    count(&shared, &name);
    Html(format!("<title>{name}</title><p>page {name}</p>"))
}

async fn hold(State(shared): State<Arc<Shared>>, Path(name): Path<String>) -> Html<String> {
    let mut released = shared.released.subscribe();
    count(&shared, &name);
    // Ends with the test if never released: the sender lives in `shared`.
    let _ = released.wait_for(|set| set.contains(&name)).await;
    Html(format!("<title>{name}</title><p>released {name}</p>"))
}
