//! Live views (`servo_live_view`): signed links to a page on the gateway that
//! shows a session's frames as they change and, in control mode, lets a person
//! drive it. This file owns the links and the two routes — the page, and the
//! WebSocket it opens; what flows over the socket is [`socket`]'s.
//!
//! A link signs `live:{mode}:{session}` with the fleet's URL-signing key, so
//! any gateway opens a link another made. The link is the bearer: the page and
//! its socket need no API key, and act as the session's tenant.

mod socket;

use axum::Router;
use axum::extract::{Path, Query, State, WebSocketUpgrade};
use axum::response::{IntoResponse as _, Response};
use axum::routing::get;
use fleet_media::Signer;
use fleet_proto::live::{LINK_TTL_MS, MAX_MESSAGE_BYTES, MODES};
use fleet_proto::v1 as pb;
use fleet_store::{Tenant, now_millis};
use http::{HeaderValue, StatusCode, header};

use crate::Dispatcher;

/// The page: one file, no external resources (its CSP allows none).
const PAGE: &str = include_str!("live/page.html");

/// Makes and checks live-view links.
#[derive(Clone, Debug)]
pub struct LiveLinks {
    signer: Signer,
    public_url: String,
}

/// What a link's token signs: its mode and session, so a view link never
/// opens control and no other signed link opens a live view.
fn signed_id(session: &str, mode: &str) -> String {
    format!("live:{mode}:{session}")
}

/// What a DevTools endpoint's token signs.
fn cdp_signed_id(session: &str) -> String {
    format!("cdp:{session}")
}

impl LiveLinks {
    /// Links signed with `signer`, under the gateway's `public_url`.
    pub fn new(signer: Signer, public_url: &str) -> Self {
        Self {
            signer,
            public_url: public_url.trim_end_matches('/').to_owned(),
        }
    }

    /// A link to session `session`'s live page in `mode`.
    pub(crate) fn link(&self, session: &str, mode: &str) -> pb::LiveViewResult {
        let expires_at_ms = now_millis() + LINK_TTL_MS;
        let token = self.signer.token(&signed_id(session, mode), expires_at_ms);
        pb::LiveViewResult {
            url: format!(
                "{}/live/{session}?mode={mode}&token={token}",
                self.public_url
            ),
            mode: mode.to_owned(),
            expires_at_ms,
        }
    }

    /// A DevTools endpoint for session `session`: the same signature over
    /// `cdp:{session}`, under the gateway's address as a WebSocket URL.
    pub(crate) fn cdp(&self, session: &str) -> pb::CdpEndpointResult {
        let expires_at_ms = now_millis() + LINK_TTL_MS;
        let token = self.signer.token(&cdp_signed_id(session), expires_at_ms);
        let base = if let Some(rest) = self.public_url.strip_prefix("https://") {
            format!("wss://{rest}")
        } else if let Some(rest) = self.public_url.strip_prefix("http://") {
            format!("ws://{rest}")
        } else {
            self.public_url.clone()
        };
        pb::CdpEndpointResult {
            web_socket_debugger_url: format!("{base}/cdp/{session}?token={token}"),
            expires_at_ms,
        }
    }

    /// Whether `token` opens session `session`'s DevTools endpoint.
    pub(crate) fn admit_cdp(&self, session: &str, token: &str) -> bool {
        self.signer
            .check(&cdp_signed_id(session), token, now_millis())
    }

    /// The mode a request's link opens, if its token is good.
    fn admit(&self, session: &str, q: &LinkQuery) -> Option<Mode> {
        let mode = q.mode.as_deref().unwrap_or("view");
        let token = q.token.as_deref().unwrap_or_default();
        let good = MODES.contains(&mode)
            && self
                .signer
                .check(&signed_id(session, mode), token, now_millis());
        match (good, mode) {
            (false, _) => None,
            (true, "control") => Some(Mode::Control),
            (true, _) => Some(Mode::View),
        }
    }
}

/// The answer to a link that is forged, altered or expired.
fn refused() -> Response {
    plain(
        StatusCode::FORBIDDEN,
        "this live-view link is not valid or has expired: ask for a new one (servo_live_view)",
    )
}

/// What a live page may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Watch.
    View,
    /// Watch, and drive the session while holding control.
    Control,
}

/// A live link's query.
#[derive(Debug, serde::Deserialize)]
struct LinkQuery {
    mode: Option<String>,
    token: Option<String>,
}

#[derive(Clone)]
struct Live {
    dispatcher: Dispatcher,
    links: std::sync::Arc<LiveLinks>,
}

/// The live page and its socket, for `links`' live views.
pub fn router(dispatcher: Dispatcher, links: std::sync::Arc<LiveLinks>) -> Router {
    Router::new()
        .route("/live/{session}", get(page))
        .route("/live/{session}/socket", get(open_socket))
        .with_state(Live { dispatcher, links })
}

async fn page(
    State(live): State<Live>,
    Path(session): Path<String>,
    Query(q): Query<LinkQuery>,
) -> Response {
    if live.links.admit(&session, &q).is_none() {
        return refused();
    }
    let mut resp = PAGE.into_response();
    let headers = resp.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    // The page loads nothing from elsewhere; frames arrive as blobs over its
    // own socket.
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; img-src blob:; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        ),
    );
    // The link's token must not leak to anything the page links to.
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    resp
}

async fn open_socket(
    State(live): State<Live>,
    Path(session): Path<String>,
    Query(q): Query<LinkQuery>,
    upgrade: WebSocketUpgrade,
) -> Response {
    let Some(mode) = live.links.admit(&session, &q) else {
        return refused();
    };
    // A closed or expired session has no live view.
    let tenant = match session_tenant(&live.dispatcher, &session).await {
        Ok(tenant) => tenant,
        Err(refusal) => return refusal,
    };
    let dispatcher = live.dispatcher.clone();
    let sockets = dispatcher.sockets().clone();
    upgrade
        .max_message_size(MAX_MESSAGE_BYTES)
        .on_upgrade(move |ws| {
            sockets.track_future(socket::run(ws, dispatcher, tenant, session, mode))
        })
}

/// The tenant a socket on session `session` acts as: the session's own,
/// while it is open; the answer to give instead when it is not.
pub(crate) async fn session_tenant(
    dispatcher: &Dispatcher,
    session: &str,
) -> Result<Tenant, Response> {
    match dispatcher.store().session(session).await {
        Ok(Some(row)) if !row.expired(now_millis()) => Ok(Tenant {
            id: row.tenant_id,
            name: String::new(),
        }),
        Ok(_) => Err(plain(StatusCode::NOT_FOUND, "the session was not found")),
        Err(e) => {
            tracing::warn!(error = %e, session, "a socket could not read its session");
            Err(plain(
                StatusCode::SERVICE_UNAVAILABLE,
                "the session store is unavailable; try again shortly",
            ))
        }
    }
}

fn plain(status: StatusCode, text: &'static str) -> Response {
    (status, text).into_response()
}
