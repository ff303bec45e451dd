//! The DevTools connection: one websocket, a reader task that routes replies
//! to the call waiting on their id and events to their session's subscribers,
//! and the reading of what calls return.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;

use anyhow::{Context as _, Result, anyhow, bail};
use futures::stream::{SplitSink, SplitStream};
use futures::{SinkExt as _, StreamExt as _};
use serde_json::{Map, Value, json};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// A string field of a CDP result, or an error naming it.
pub(super) fn str_field(result: &Value, name: &str) -> Result<String> {
    result
        .get(name)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .with_context(|| format!("CDP result has no string `{name}`: {result}"))
}

/// The by-value result of `Runtime.evaluate`, or its exception as an error.
pub(super) fn remote_value(mut result: Value) -> Result<Value> {
    if let Some(details) = result.get("exceptionDetails") {
        bail!("{}", exception_text(details));
    }
    let remote = result
        .get_mut("result")
        .context("Runtime.evaluate returned no result")?;
    if let Some(value) = remote.get_mut("value") {
        return Ok(value.take());
    }
    if let Some(spelled) = remote.get("unserializableValue").and_then(Value::as_str) {
        return Ok(Value::String(spelled.to_owned()));
    }
    Ok(Value::Null)
}

/// The most useful text CDP gives for a thrown exception: an `Error`'s description
/// (message and stack), else the thrown primitive, else the bare `Uncaught`.
pub(super) fn exception_text(details: &Value) -> String {
    if let Some(description) = details
        .pointer("/exception/description")
        .and_then(Value::as_str)
    {
        return description.to_owned();
    }
    if let Some(value) = details.pointer("/exception/value") {
        let shown = value
            .as_str()
            .map_or_else(|| value.to_string(), str::to_owned);
        return format!("Uncaught {shown}");
    }
    details
        .get("text")
        .and_then(Value::as_str)
        .unwrap_or("JavaScript exception")
        .to_owned()
}

/// The first line of `text`, cut to 80 chars, for error contexts.
pub(super) fn abbreviate(text: &str) -> String {
    let line = text.lines().next().unwrap_or("");
    let mut short: String = line.chars().take(80).collect();
    if short.len() < text.len() {
        short.push('…');
    }
    short
}

pub(super) type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A CDP error reply.
#[derive(Debug)]
pub(super) struct CdpError {
    pub(super) code: i64,
    pub(super) message: String,
    pub(super) data: Option<String>,
}

impl CdpError {
    pub(super) fn from_json(error: &Value) -> Self {
        Self {
            code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
            message: error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("unknown error")
                .to_owned(),
            data: error.get("data").and_then(Value::as_str).map(str::to_owned),
        }
    }
}

impl fmt::Display for CdpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (code {})", self.message, self.code)?;
        if let Some(data) = &self.data {
            write!(f, ": {data}")?;
        }
        Ok(())
    }
}

/// A call's outcome: its result, or why it failed, ready to show.
pub(super) type Reply = std::result::Result<Value, String>;

/// One CDP event.
#[derive(Debug, Clone)]
pub(super) struct Event {
    pub(super) method: String,
    pub(super) params: Value,
    pub(super) session_id: Option<String>,
}

/// The websocket's two halves as the rest of the driver sees them: a queue of outgoing
/// messages and the tables the reader task routes incoming ones through.
pub(super) struct Connection {
    pub(super) next_id: AtomicU64,
    pub(super) outgoing: mpsc::UnboundedSender<String>,
    pub(super) shared: Mutex<Shared>,
    pub(super) call_timeout: Duration,
}

#[derive(Default)]
pub(super) struct Shared {
    /// Calls awaiting their reply, by id, with the session they were sent on.
    pub(super) pending: HashMap<u64, (Option<String>, oneshot::Sender<Reply>)>,
    /// The target each attached session talks to.
    pub(super) session_targets: HashMap<String, String>,
    /// Sessions whose target crashed or went away, with why: Chromium never answers
    /// their calls, so they fail at once instead of waiting out the timeout.
    pub(super) dead_sessions: HashMap<String, String>,
    /// Event subscribers, by subscription id, with the session they listen to.
    pub(super) subscribers: HashMap<u64, (Option<String>, mpsc::UnboundedSender<Event>)>,
    pub(super) next_subscriber: u64,
    /// Why the connection is gone, once it is.
    pub(super) closed: Option<String>,
}

impl Connection {
    pub(super) fn lock(&self) -> MutexGuard<'_, Shared> {
        // Nothing panics while holding the lock, and the tables stay consistent if
        // something did, so a poisoned lock is still usable.
        self.shared.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Sends `method` on `session` (the browser target when `None`) and waits for the
    /// reply, up to the call timeout.
    pub(super) async fn call(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<Value> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        {
            let mut shared = self.lock();
            if let Some(reason) = &shared.closed {
                bail!("CDP {method}: {reason}");
            }
            if let Some(reason) = session.and_then(|s| shared.dead_sessions.get(s)) {
                bail!("CDP {method}: {reason}");
            }
            shared.pending.insert(id, (session.map(str::to_owned), tx));
        }
        // Removes the pending entry however this call ends, including by being dropped.
        let _pending = PendingGuard { conn: self, id };
        self.outgoing
            .send(request(id, session, method, params))
            .map_err(|_| anyhow!("CDP {method}: the DevTools connection is closed"))?;
        match tokio::time::timeout(self.call_timeout, rx).await {
            Err(_) => bail!("CDP {method} timed out after {:?}", self.call_timeout),
            Ok(Err(_)) => {
                let reason = self.lock().closed.clone();
                bail!(
                    "CDP {method}: {}",
                    reason
                        .as_deref()
                        .unwrap_or("the DevTools connection is closed")
                )
            }
            Ok(Ok(Err(error))) => bail!("CDP {method} failed: {error}"),
            Ok(Ok(Ok(result))) => Ok(result),
        }
    }

    /// Sends `method` without waiting for (or routing) its reply: for `Drop`, which
    /// cannot await.
    pub(super) fn send_detached(&self, session: Option<&str>, method: &str, params: Value) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let _ = self.outgoing.send(request(id, session, method, params));
    }

    /// Starts buffering the events of `session` (browser-level events when `None`).
    pub(super) fn subscribe(self: &Arc<Self>, session: Option<&str>) -> Subscription {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut shared = self.lock();
        let id = shared.next_subscriber;
        shared.next_subscriber += 1;
        // A subscriber added after the connection closed is never fed, so dropping its
        // sender here makes its first `recv` report the closure instead of hanging.
        if shared.closed.is_none() {
            shared
                .subscribers
                .insert(id, (session.map(str::to_owned), tx));
        }
        Subscription {
            conn: Arc::clone(self),
            id,
            events: rx,
        }
    }

    /// Routes one incoming message.
    pub(super) fn dispatch(&self, text: &str) {
        let mut message: Map<String, Value> = match serde_json::from_str(text) {
            Ok(message) => message,
            Err(err) => {
                tracing::warn!(%err, "ignoring a CDP message that is not a JSON object");
                return;
            }
        };
        if let Some(id) = message.get("id").and_then(Value::as_u64) {
            let reply = match message.get("error") {
                Some(error) => Err(CdpError::from_json(error).to_string()),
                None => Ok(message.remove("result").unwrap_or(Value::Null)),
            };
            // No entry means the caller gave up (timeout, drop) or never waited.
            if let Some((_, tx)) = self.lock().pending.remove(&id) {
                let _ = tx.send(reply);
            }
            return;
        }
        let Some(Value::String(method)) = message.remove("method") else {
            return;
        };
        let event = Event {
            method,
            params: message.remove("params").unwrap_or(Value::Null),
            session_id: match message.remove("sessionId") {
                Some(Value::String(session)) => Some(session),
                _ => None,
            },
        };
        if event.session_id.is_none() {
            self.track_target_loss(&event);
        }
        self.lock().subscribers.retain(|_, (session, tx)| {
            *session != event.session_id || tx.send(event.clone()).is_ok()
        });
    }

    /// Remembers which target a page session talks to, so that its loss can be told.
    pub(super) fn register_session(&self, session: &str, target: &str) {
        self.lock()
            .session_targets
            .insert(session.to_owned(), target.to_owned());
    }

    /// Fails the sessions of a crashed or vanished target: their pending calls, their
    /// event waiters, and every later call on them.
    pub(super) fn track_target_loss(&self, event: &Event) {
        let params = &event.params;
        let mut shared = self.lock();
        let (sessions, reason): (Vec<String>, String) = match event.method.as_str() {
            "Target.targetCrashed" => {
                let target = params["targetId"].as_str().unwrap_or_default();
                let sessions = shared
                    .session_targets
                    .iter()
                    .filter(|(_, t)| *t == target)
                    .map(|(s, _)| s.clone())
                    .collect();
                let status = params["status"].as_str().unwrap_or("unknown status");
                let code = &params["errorCode"];
                (
                    sessions,
                    format!("the page crashed ({status}, code {code})"),
                )
            }
            "Target.detachedFromTarget" => match params["sessionId"].as_str() {
                Some(session) => (
                    vec![session.to_owned()],
                    "the page was closed or detached".to_owned(),
                ),
                None => return,
            },
            _ => return,
        };
        let Shared {
            pending,
            subscribers,
            session_targets,
            dead_sessions,
            ..
        } = &mut *shared;
        for session in sessions {
            let calls: Vec<u64> = pending
                .iter()
                .filter(|(_, (on, _))| on.as_deref() == Some(session.as_str()))
                .map(|(&id, _)| id)
                .collect();
            for id in calls {
                if let Some((_, tx)) = pending.remove(&id) {
                    let _ = tx.send(Err(reason.clone()));
                }
            }
            // Waiters see the loss as the crash event they already stop on.
            let crashed = Event {
                method: "Inspector.targetCrashed".to_owned(),
                params: json!({ "reason": reason }),
                session_id: Some(session.clone()),
            };
            for (on, tx) in subscribers.values() {
                if on.as_deref() == Some(session.as_str()) {
                    let _ = tx.send(crashed.clone());
                }
            }
            session_targets.remove(&session);
            dead_sessions.insert(session, reason.clone());
        }
    }

    /// Marks the connection gone and wakes every waiter with that news.
    pub(super) fn shut(&self, reason: String) {
        let mut shared = self.lock();
        if shared.closed.is_none() {
            tracing::debug!(%reason, "CDP connection closed");
            shared.closed = Some(reason);
        }
        // Dropping the senders makes every waiting call and subscriber return at once.
        shared.pending.clear();
        shared.subscribers.clear();
    }
}

/// Removes a call's pending entry when the call ends.
pub(super) struct PendingGuard<'a> {
    pub(super) conn: &'a Connection,
    pub(super) id: u64,
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        self.conn.lock().pending.remove(&self.id);
    }
}

/// Buffered events of one session, unsubscribed on drop.
pub(super) struct Subscription {
    pub(super) conn: Arc<Connection>,
    pub(super) id: u64,
    pub(super) events: mpsc::UnboundedReceiver<Event>,
}

impl Subscription {
    /// Waits up to `limit` for the first event matching `matches`, discarding others.
    pub(super) async fn wait_for(
        &mut self,
        limit: Duration,
        mut matches: impl FnMut(&Event) -> bool,
    ) -> Result<Event> {
        let wait = async {
            while let Some(event) = self.events.recv().await {
                if event.method == "Inspector.targetCrashed" {
                    let reason = event.params["reason"]
                        .as_str()
                        .unwrap_or("the page crashed");
                    bail!("{reason}");
                }
                if matches(&event) {
                    return Ok(event);
                }
            }
            let reason = self.conn.lock().closed.clone();
            bail!(
                "{}",
                reason
                    .as_deref()
                    .unwrap_or("the DevTools connection is closed")
            )
        };
        tokio::time::timeout(limit, wait)
            .await
            .with_context(|| format!("no matching event within {limit:?}"))?
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.conn.lock().subscribers.remove(&self.id);
    }
}

/// A CDP request as sent on the wire.
pub(super) fn request(id: u64, session: Option<&str>, method: &str, params: Value) -> String {
    let mut message = json!({ "id": id, "method": method, "params": params });
    if let (Some(session), Some(object)) = (session, message.as_object_mut()) {
        object.insert("sessionId".to_owned(), Value::String(session.to_owned()));
    }
    message.to_string()
}

/// Routes incoming messages until the websocket ends, then fails everything waiting.
///
/// Holds the connection weakly so that dropping the last handle ends the driver.
pub(super) async fn read_loop(conn: Weak<Connection>, mut stream: SplitStream<Socket>) {
    let reason = loop {
        let message = stream.next().await;
        let Some(strong) = conn.upgrade() else { return };
        match message {
            Some(Ok(Message::Text(text))) => strong.dispatch(text.as_str()),
            Some(Ok(Message::Binary(bytes))) => match std::str::from_utf8(&bytes) {
                Ok(text) => strong.dispatch(text),
                Err(_) => tracing::warn!("ignoring a binary CDP message that is not UTF-8"),
            },
            Some(Ok(Message::Close(_))) | None => {
                break "Chromium closed the DevTools connection".to_owned();
            }
            Some(Ok(_)) => {}
            Some(Err(err)) => break format!("the DevTools connection failed: {err}"),
        }
    };
    if let Some(conn) = conn.upgrade() {
        conn.shut(reason);
    }
}

/// Writes queued requests to the websocket in order until the queue or socket closes.
pub(super) async fn write_loop(
    conn: Weak<Connection>,
    mut sink: SplitSink<Socket, Message>,
    mut outgoing: mpsc::UnboundedReceiver<String>,
) {
    while let Some(text) = outgoing.recv().await {
        if let Err(err) = sink.send(Message::text(text)).await {
            if let Some(conn) = conn.upgrade() {
                conn.shut(format!("writing to the DevTools connection failed: {err}"));
            }
            return;
        }
    }
    let _ = sink.close().await;
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn a_thrown_error_reports_its_description() {
        let result = json!({
            "result": { "type": "object", "subtype": "error" },
            "exceptionDetails": {
                "text": "Uncaught",
                "exception": { "description": "Error: boom\n    at <anonymous>:1:7" }
            }
        });
        let err = remote_value(result).unwrap_err().to_string();
        assert!(err.starts_with("Error: boom"), "{err}");
    }

    #[test]
    fn a_thrown_primitive_reports_its_value() {
        let result = json!({
            "result": {},
            "exceptionDetails": { "text": "Uncaught", "exception": { "type": "string", "value": "nope" } }
        });
        assert_eq!(
            remote_value(result).unwrap_err().to_string(),
            "Uncaught nope"
        );
    }

    #[test]
    fn by_value_results_unwrap_and_undefined_is_null() {
        let value = remote_value(json!({ "result": { "type": "string", "value": "t" } }));
        assert_eq!(value.unwrap(), json!("t"));
        let undefined = remote_value(json!({ "result": { "type": "undefined" } }));
        assert_eq!(undefined.unwrap(), Value::Null);
        let nan =
            remote_value(json!({ "result": { "type": "number", "unserializableValue": "NaN" } }));
        assert_eq!(nan.unwrap(), json!("NaN"));
    }

    #[test]
    fn session_requests_carry_their_session_id() {
        let text = request(7, Some("S1"), "Page.enable", json!({}));
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["id"], 7);
        assert_eq!(value["sessionId"], "S1");
        let browser: Value =
            serde_json::from_str(&request(8, None, "Browser.close", json!({}))).unwrap();
        assert!(browser.get("sessionId").is_none());
    }
}
