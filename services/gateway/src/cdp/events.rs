//! The session's events (the bus `Browser.Watch` reads) as CDP events: a
//! navigation this connection did not run brings a new document's events;
//! console messages are `Runtime.consoleAPICalled`; a dialog the session's
//! policy answered is opened and closed; a download begins and completes;
//! a closed session detaches and destroys the target.

use fleet_proto::v1::{self as pb, session_event};
use serde_json::json;

use super::conn::{Conn, new_id};

/// What an event means for the connection.
pub(super) enum Flow {
    Stay,
    /// The session was closed: the socket ends.
    Closed,
}

impl Conn {
    pub(super) async fn on_event(&mut self, event: pb::SessionEvent) -> Flow {
        let at = event.at_ms;
        match event.kind {
            Some(session_event::Kind::Navigated(nav)) => {
                if self.own_navigation.as_deref() == Some(nav.url.as_str()) {
                    self.own_navigation = None;
                    return Flow::Stay;
                }
                if self.announced.as_deref() == Some(nav.url.as_str()) {
                    self.announced = None;
                    return Flow::Stay;
                }
                self.doc.url = nav.url;
                self.doc.title = nav.title;
                if self.page_enabled {
                    self.event("Page.frameStartedLoading", json!({"frameId": self.id}));
                }
                self.new_document(new_id(), false).await;
            }
            Some(session_event::Kind::Console(entry)) if self.runtime_enabled => {
                let kind = match entry.level.as_str() {
                    "warn" => "warning",
                    "error" => "error",
                    "info" => "info",
                    "debug" => "debug",
                    _ => "log",
                };
                self.event(
                    "Runtime.consoleAPICalled",
                    json!({
                        "type": kind,
                        "args": [{"type": "string", "value": entry.text}],
                        "executionContextId": self.contexts.main,
                        "timestamp": at,
                        "stackTrace": {"callFrames": []},
                    }),
                );
            }
            Some(session_event::Kind::Dialog(d)) if self.page_enabled => {
                self.event(
                    "Page.javascriptDialogOpening",
                    json!({
                        "url": self.doc.url,
                        "frameId": self.id,
                        "message": d.message,
                        "type": d.kind,
                        "hasBrowserHandler": false,
                        "defaultPrompt": "",
                    }),
                );
                self.event(
                    "Page.javascriptDialogClosed",
                    json!({"frameId": self.id, "result": d.accepted, "userInput": d.answer.unwrap_or_default()}),
                );
            }
            Some(session_event::Kind::Download(d)) if self.page_enabled => {
                self.event(
                    "Page.downloadWillBegin",
                    json!({
                        "frameId": self.id,
                        "guid": d.download_id,
                        "url": d.source_url,
                        "suggestedFilename": d.filename,
                    }),
                );
                let state = if d.status == "complete" {
                    "completed"
                } else {
                    "canceled"
                };
                self.event(
                    "Page.downloadProgress",
                    json!({
                        "guid": d.download_id,
                        "totalBytes": d.size_bytes,
                        "receivedBytes": d.size_bytes,
                        "state": state,
                    }),
                );
            }
            Some(session_event::Kind::Closed(_)) => {
                if let Some(session) = self.session.clone() {
                    self.event("Inspector.detached", json!({"reason": "target_closed"}));
                    self.browser_event(
                        "Target.detachedFromTarget",
                        json!({"sessionId": session, "targetId": self.id}),
                    );
                }
                self.browser_event("Target.targetDestroyed", json!({"targetId": self.id}));
                return Flow::Closed;
            }
            _ => {}
        }
        Flow::Stay
    }
}
