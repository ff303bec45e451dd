//! One DevTools socket: reads commands (`{id, method, params, sessionId}`),
//! runs them one at a time in the order they came — as Chrome does for one
//! target — and writes each reply with the events it caused around it,
//! every message to the page carrying the page's `sessionId`. Between
//! commands it forwards the session's events. It ends when the client
//! goes, the session closes (1000), or the gateway shuts down (1012: a
//! client may reconnect to another replica with the same link while it
//! lasts).

use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use fleet_proto::v1 as pb;
use fleet_store::Tenant;
use futures::StreamExt as _;
use prost::Message as _;
use serde_json::{Value, json};

use super::conn::{CdpError, Conn};
use super::events::Flow;
use crate::Dispatcher;
use crate::sockets::CLOSE_RESTARTING;

/// How often a quiet socket is pinged, so proxies keep it open.
const KEEPALIVE: Duration = Duration::from_secs(20);

/// The client went away: nothing more can be sent.
struct Gone;

/// A command, as clients send it.
#[derive(Debug, serde::Deserialize)]
struct Command {
    id: i64,
    method: String,
    #[serde(default)]
    params: Value,
    #[serde(rename = "sessionId")]
    session_id: Option<String>,
}

pub(super) async fn run(mut ws: WebSocket, dispatcher: Dispatcher, tenant: Tenant, id: String) {
    let closing = dispatcher.sockets().closing().clone();
    let mut events = match dispatcher.events().subscribe(&id).await {
        Ok(events) => events,
        Err(e) => {
            tracing::warn!(error = %e, session = %id, "a DevTools socket could not subscribe to its session's events");
            close(
                &mut ws,
                1011,
                "the session's events are unavailable; reconnect",
            )
            .await;
            return;
        }
    };
    let mut conn = Conn::new(dispatcher, tenant, id);
    let mut keepalive = tokio::time::interval(KEEPALIVE);
    keepalive.tick().await;
    let end = loop {
        tokio::select! {
            msg = ws.recv() => match msg {
                Some(Ok(Message::Text(text))) => {
                    if command(&mut ws, &mut conn, text.as_str()).await.is_err() {
                        break None;
                    }
                    if conn.closing {
                        break Some((1000, "the client closed the browser"));
                    }
                }
                Some(Ok(Message::Binary(_))) => {
                    let e = CdpError::invalid("send commands as JSON text messages");
                    if send(&mut ws, &error_reply(None, None, &e)).await.is_err() {
                        break None;
                    }
                }
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                Some(Ok(Message::Close(_)) | Err(_)) | None => break None,
            },
            event = events.next() => match event {
                None => break Some((1011, "the session's events stopped; reconnect")),
                Some(bytes) => {
                    let Ok(event) = pb::SessionEvent::decode(bytes.as_ref()) else { continue };
                    let flow = conn.on_event(event).await;
                    if flush(&mut ws, &mut conn, None).await.is_err() {
                        break None;
                    }
                    if let Flow::Closed = flow {
                        break Some((1000, "the session was closed"));
                    }
                }
            },
            () = closing.cancelled() => {
                break Some((CLOSE_RESTARTING, "the gateway is restarting; reconnect"));
            }
            _ = keepalive.tick() => {
                if ws.send(Message::Ping(Default::default())).await.is_err() {
                    break None;
                }
            }
        }
    };
    if let Some((code, reason)) = end {
        close(&mut ws, code, reason).await;
    }
}

/// Runs one command and sends its reply, with its events around it.
async fn command(ws: &mut WebSocket, conn: &mut Conn, text: &str) -> Result<(), Gone> {
    let cmd = match serde_json::from_str::<Command>(text) {
        Ok(cmd) => cmd,
        Err(e) => {
            let id = serde_json::from_str::<Value>(text)
                .ok()
                .and_then(|v| v.get("id").and_then(Value::as_i64));
            let e = CdpError::invalid(format!("the message is not a command: {e}"));
            return send(ws, &error_reply(id, None, &e)).await;
        }
    };
    let session = cmd.session_id.as_deref();
    let reply = match (session, conn.session.as_deref()) {
        (Some(s), attached) if Some(s) != attached => Err(CdpError {
            code: -32001,
            message: "Session with given id not found.".into(),
        }),
        _ => conn.handle(&cmd.method, cmd.params).await,
    };
    let reply = match reply {
        Ok(result) => {
            let mut r = json!({"id": cmd.id, "result": result});
            if let Some(s) = session {
                r["sessionId"] = json!(s);
            }
            r
        }
        Err(e) => error_reply(Some(cmd.id), session, &e),
    };
    flush(ws, conn, Some(reply)).await
}

/// Sends the queued events, then `reply`, then the events that follow it.
async fn flush(ws: &mut WebSocket, conn: &mut Conn, reply: Option<Value>) -> Result<(), Gone> {
    for e in std::mem::take(&mut conn.before) {
        send(ws, &e).await?;
    }
    if let Some(r) = reply {
        send(ws, &r).await?;
    }
    for e in std::mem::take(&mut conn.after) {
        send(ws, &e).await?;
    }
    Ok(())
}

fn error_reply(id: Option<i64>, session: Option<&str>, e: &CdpError) -> Value {
    let mut r = json!({"error": {"code": e.code, "message": e.message}});
    if let Some(id) = id {
        r["id"] = json!(id);
    }
    if let Some(s) = session {
        r["sessionId"] = json!(s);
    }
    r
}

async fn send(ws: &mut WebSocket, v: &Value) -> Result<(), Gone> {
    ws.send(Message::Text(v.to_string().into()))
        .await
        .map_err(|_| Gone)
}

async fn close(ws: &mut WebSocket, code: u16, reason: &'static str) {
    let frame = CloseFrame {
        code,
        reason: reason.into(),
    };
    // The client may be gone already; there is no one left to tell.
    let _ = ws.send(Message::Close(Some(frame))).await;
}
