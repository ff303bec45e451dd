//! One live page's socket. The gateway sends the session's frames (PNG, as
//! binary messages) — one when the page connects, then one each time the
//! owning worker says an action may have changed the page (the session's
//! `changed` and `navigated` events), skipping a frame equal to the last —
//! and the page's state as JSON text: `{"type": "state", "control", "text"}`,
//! `{"type": "page", "url", "title"}`, `{"type": "error", "message"}`.
//!
//! A control-mode page takes control when it connects (unless another person
//! holds it) and renews its lease while open; it sends JSON input —
//! `click {x, y}` (viewport CSS pixels), `type {text}`, `key {key}`,
//! `scroll {dx, dy}`, `release`, `take` — each run on the session as one
//! action. Closing the page gives control back; a gateway that shuts down
//! closes the socket with 1012, and the page's reload reconnects.

use std::hash::{Hash as _, Hasher as _};
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use fleet_proto::live::{CONTROL_LEASE_MS, CONTROL_RENEW_MS};
use fleet_proto::v1::{self as pb, action::Kind, action_output, session_event};
use fleet_store::{EventStream, Tenant};
use futures::{FutureExt as _, StreamExt as _};
use prost::Message as _;
use serde_json::json;

use super::Mode;
use crate::Dispatcher;

/// How often a quiet socket is pinged.
const KEEPALIVE: Duration = Duration::from_secs(20);

/// The page went away (or the socket broke): nothing more can be sent.
struct Gone;

/// How the gateway ends a socket it closes itself.
struct End {
    code: u16,
    reason: &'static str,
}

/// A person's input, as the page sends it.
#[derive(Debug, serde::Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
enum Input {
    Click { x: f64, y: f64 },
    Type { text: String },
    Key { key: String },
    Scroll { dx: f64, dy: f64 },
    Release,
    Take,
}

/// What an event asks of the page.
enum Flow {
    Paint,
    Stay,
    Closed,
}

struct Socket {
    dispatcher: Dispatcher,
    tenant: Tenant,
    id: String,
    /// This page's name as a holder of control.
    holder: String,
    mode: Mode,
    /// Whether this page holds control now.
    control: bool,
    /// The last frame sent, hashed, so an unchanged page sends nothing.
    last_frame: Option<u64>,
}

/// Serves one live page until it closes, the session closes or the
/// session's events stop; control it holds is given back at the end.
pub(super) async fn run(
    mut ws: WebSocket,
    dispatcher: Dispatcher,
    tenant: Tenant,
    id: String,
    mode: Mode,
) {
    let mut events = match dispatcher.events().subscribe(&id).await {
        Ok(events) => events,
        Err(e) => {
            tracing::warn!(error = %e, session = %id, "a live view could not subscribe to its session's events");
            close(
                &mut ws,
                End {
                    code: 1011,
                    reason: "the session's events are unavailable; reload the page",
                },
            )
            .await;
            return;
        }
    };
    let mut socket = Socket {
        dispatcher,
        tenant,
        id,
        holder: uuid::Uuid::new_v4().to_string(),
        mode,
        control: false,
        last_frame: None,
    };
    let end = socket.serve(&mut ws, &mut events).await;
    if socket.control {
        socket.release().await;
    }
    if let Some(end) = end {
        close(&mut ws, end).await;
    }
}

async fn close(ws: &mut WebSocket, end: End) {
    let frame = CloseFrame {
        code: end.code,
        reason: end.reason.into(),
    };
    // The page may be gone already; there is no one left to tell.
    let _ = ws.send(Message::Close(Some(frame))).await;
}

async fn send_json(ws: &mut WebSocket, value: serde_json::Value) -> Result<(), Gone> {
    ws.send(Message::Text(value.to_string().into()))
        .await
        .map_err(|_| Gone)
}

impl Socket {
    /// The loop; `None` when the page went away by itself.
    async fn serve(&mut self, ws: &mut WebSocket, events: &mut EventStream) -> Option<End> {
        if self.mode == Mode::Control {
            self.take().await;
        }
        self.state(ws).await.ok()?;
        self.paint(ws).await.ok()?;
        let mut renew = tokio::time::interval(Duration::from_millis(CONTROL_RENEW_MS));
        renew.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        renew.tick().await;
        // A quiet page still sends something now and then, so proxies (an
        // ingress's read timeout) keep the socket open.
        let mut keepalive = tokio::time::interval(KEEPALIVE);
        keepalive.tick().await;
        let closing = self.dispatcher.sockets().closing().clone();
        loop {
            let paint = tokio::select! {
                msg = ws.recv() => match msg {
                    Some(Ok(Message::Text(text))) => {
                        self.input(ws, text.as_str()).await.ok()?;
                        false
                    }
                    Some(Ok(Message::Binary(_))) => {
                        self.error(ws, "send input as JSON text messages").await.ok()?;
                        false
                    }
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => false,
                    Some(Ok(Message::Close(_)) | Err(_)) | None => return None,
                },
                event = events.next() => match event {
                    None => {
                        return Some(End {
                            code: 1011,
                            reason: "the session's events stopped; reload the page",
                        });
                    }
                    Some(bytes) => match self.on_event(ws, &bytes).await.ok()? {
                        Flow::Paint => true,
                        Flow::Stay => false,
                        Flow::Closed => return Some(closed()),
                    },
                },
                _ = renew.tick(), if self.control => {
                    self.renew(ws).await.ok()?;
                    false
                }
                _ = keepalive.tick() => {
                    ws.send(Message::Ping(Default::default())).await.ok()?;
                    false
                }
                () = closing.cancelled() => {
                    return Some(End {
                        code: crate::sockets::CLOSE_RESTARTING,
                        reason: "the gateway is restarting; reload the page",
                    });
                }
            };
            if paint {
                // Events that arrived meanwhile are shown by this one frame.
                while let Some(Some(bytes)) = events.next().now_or_never() {
                    if let Flow::Closed = self.on_event(ws, &bytes).await.ok()? {
                        return Some(closed());
                    }
                }
                self.paint(ws).await.ok()?;
            }
        }
    }

    async fn on_event(&mut self, ws: &mut WebSocket, bytes: &[u8]) -> Result<Flow, Gone> {
        let Ok(event) = pb::SessionEvent::decode(bytes) else {
            return Ok(Flow::Stay);
        };
        Ok(match event.kind {
            Some(session_event::Kind::Changed(_) | session_event::Kind::Navigated(_)) => {
                Flow::Paint
            }
            Some(session_event::Kind::Closed(_)) => Flow::Closed,
            // Another page took or gave back control: say who holds it now.
            Some(session_event::Kind::Control(_)) => {
                self.state(ws).await?;
                Flow::Stay
            }
            _ => Flow::Stay,
        })
    }

    /// Sends the session's current frame, unless it is the last one sent.
    async fn paint(&mut self, ws: &mut WebSocket) -> Result<(), Gone> {
        let shot = pb::Action {
            kind: Some(Kind::Screenshot(pb::Screenshot { full_page: false })),
            max_duration_ms: 0,
        };
        let out = self
            .dispatcher
            .run_live(&self.tenant, &self.id, &self.holder, shot)
            .await;
        let shot = match out {
            Ok(pb::ActionOutput {
                kind: Some(action_output::Kind::Screenshot(shot)),
            }) => shot,
            Ok(_) => return Ok(()),
            Err(e) => return self.error(ws, &e.message).await,
        };
        let mut hasher = std::hash::DefaultHasher::new();
        shot.png.hash(&mut hasher);
        let hash = hasher.finish();
        if self.last_frame == Some(hash) {
            return Ok(());
        }
        self.last_frame = Some(hash);
        if let Some(page) = &shot.page {
            send_json(
                ws,
                json!({"type": "page", "url": page.url, "title": page.title}),
            )
            .await?;
        }
        ws.send(Message::Binary(shot.png.into()))
            .await
            .map_err(|_| Gone)
    }

    /// Runs one message of the page's input.
    async fn input(&mut self, ws: &mut WebSocket, text: &str) -> Result<(), Gone> {
        let input = match serde_json::from_str::<Input>(text) {
            Ok(input) => input,
            Err(e) => return self.error(ws, &format!("unreadable input: {e}")).await,
        };
        if self.mode == Mode::View {
            return self
                .error(ws, "this live view only watches: ask for a control link")
                .await;
        }
        let kind = match input {
            Input::Release => {
                if self.control {
                    self.release().await;
                }
                return self.state(ws).await;
            }
            Input::Take => {
                self.take().await;
                return self.state(ws).await;
            }
            _ if !self.control => {
                return self
                    .error(
                        ws,
                        "you do not hold control of this session: take control first",
                    )
                    .await;
            }
            Input::Click { x, y } => Kind::Click(pb::Click {
                target: Some(point(x, y)),
            }),
            Input::Type { text } => Kind::Type(pb::Type {
                target: None,
                text,
                clear: false,
            }),
            Input::Key { key } => Kind::PressKey(pb::PressKey { key }),
            Input::Scroll { dx, dy } => Kind::Scroll(pb::Scroll {
                target: None,
                dx,
                dy,
            }),
        };
        let action = pb::Action {
            kind: Some(kind),
            max_duration_ms: 0,
        };
        // The worker's `changed` event brings the frame that shows the result.
        match self
            .dispatcher
            .run_live(&self.tenant, &self.id, &self.holder, action)
            .await
        {
            Ok(_) => Ok(()),
            Err(e) => self.error(ws, &e.message).await,
        }
    }

    /// Takes control unless another person holds it.
    async fn take(&mut self) {
        let lease = Duration::from_millis(CONTROL_LEASE_MS);
        match self
            .dispatcher
            .routing()
            .take_control(&self.id, &self.holder, lease)
            .await
        {
            Ok(taken) => {
                if taken && !self.control {
                    self.dispatcher.publish_control(&self.id, "human").await;
                }
                self.control = taken;
            }
            Err(e) => {
                tracing::warn!(error = %e, session = %self.id, "control could not be taken");
            }
        }
    }

    /// Renews the lease; a lease lost meanwhile (it lapsed and another
    /// person took it) ends this page's control.
    async fn renew(&mut self, ws: &mut WebSocket) -> Result<(), Gone> {
        self.take().await;
        if self.control {
            return Ok(());
        }
        self.state(ws).await
    }

    /// Gives control back to agents.
    async fn release(&mut self) {
        self.control = false;
        if let Err(e) = self
            .dispatcher
            .routing()
            .release_control(&self.id, &self.holder)
            .await
        {
            // The lease lapses by itself.
            tracing::warn!(error = %e, session = %self.id, "control could not be released");
        }
        self.dispatcher.publish_control(&self.id, "agent").await;
    }

    /// Tells the page who holds control.
    async fn state(&mut self, ws: &mut WebSocket) -> Result<(), Gone> {
        let text = if self.control {
            "You are in control: agents wait until you release it."
        } else {
            let held = self.dispatcher.routing().controller(&self.id).await;
            match (held, self.mode) {
                (Ok(Some(_)), _) => "A person is in control; you are watching.",
                (_, Mode::Control) => "Agents are in control; you are watching.",
                (_, Mode::View) => "Watching.",
            }
        };
        send_json(
            ws,
            json!({"type": "state", "control": self.control, "mode": self.mode.name(), "text": text}),
        )
        .await
    }

    async fn error(&self, ws: &mut WebSocket, message: &str) -> Result<(), Gone> {
        send_json(ws, json!({"type": "error", "message": message})).await
    }
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::View => "view",
            Mode::Control => "control",
        }
    }
}

fn point(x: f64, y: f64) -> pb::Target {
    pb::Target {
        kind: Some(pb::target::Kind::Point(pb::Point { x, y })),
    }
}

fn closed() -> End {
    End {
        code: 1000,
        reason: "the session was closed",
    }
}
