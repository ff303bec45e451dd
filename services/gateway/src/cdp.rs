//! The DevTools endpoint (`servo_cdp_endpoint`): a WebSocket per session on
//! the gateway that speaks the subset of the Chrome DevTools Protocol that
//! Puppeteer's `connect()` and Playwright's `connectOverCDP` need — attach,
//! navigate, evaluate, query the DOM, click, type, screenshot — and sends the
//! session's events as CDP events. This file owns the link and the route;
//! [`socket`] the connection, [`conn`] its state and how commands become
//! fleet actions, and one file per protocol domain the methods.
//!
//! The socket ends at the gateway: each command runs as one action through
//! [`Dispatcher::execute`], the path an agent's call takes (validation,
//! read-only mode, the network policy, control by a person), so a session
//! that moved to another worker is followed as any call would follow it.
//! The session is the browser's one page; its target, frame and the IDs of
//! the browser context are its session ID.

mod conn;
mod dom;
mod events;
mod input;
mod page;
mod runtime;
mod socket;
mod target;

use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, Query, State, WebSocketUpgrade};
use axum::response::{IntoResponse as _, Response};
use axum::routing::get;
use http::StatusCode;

use crate::Dispatcher;
use crate::live::LiveLinks;

/// Largest message a client may send: a script or a function, at most the
/// DevTools script limit, with room for the JSON escapes around it.
const MAX_MESSAGE_BYTES: usize = 2 * crate::validate::MAX_DEVTOOLS_SCRIPT_BYTES;

#[derive(Clone)]
struct Cdp {
    dispatcher: Dispatcher,
    links: Arc<LiveLinks>,
}

/// An endpoint link's query.
#[derive(Debug, serde::Deserialize)]
struct LinkQuery {
    token: Option<String>,
}

/// The DevTools sockets of `links`' endpoints.
pub fn router(dispatcher: Dispatcher, links: Arc<LiveLinks>) -> Router {
    Router::new()
        .route("/cdp/{session}", get(open_socket))
        .with_state(Cdp { dispatcher, links })
}

async fn open_socket(
    State(cdp): State<Cdp>,
    Path(session): Path<String>,
    Query(q): Query<LinkQuery>,
    upgrade: WebSocketUpgrade,
) -> Response {
    if !cdp
        .links
        .admit_cdp(&session, q.token.as_deref().unwrap_or_default())
    {
        return (
            StatusCode::FORBIDDEN,
            "this DevTools link is not valid or has expired: ask for a new one (servo_cdp_endpoint)",
        )
            .into_response();
    }
    // The session's tenant is who the socket acts as.
    let tenant = match crate::live::session_tenant(&cdp.dispatcher, &session).await {
        Ok(tenant) => tenant,
        Err(refusal) => return refusal,
    };
    let dispatcher = cdp.dispatcher.clone();
    let sockets = dispatcher.sockets().clone();
    upgrade
        .max_message_size(MAX_MESSAGE_BYTES)
        .on_upgrade(move |ws| sockets.track_future(socket::run(ws, dispatcher, tenant, session)))
}
