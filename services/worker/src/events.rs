//! The events a session's actions cause, published for `Browser.Watch`:
//! after each action the worker compares what it saw with what it knew and
//! publishes, in this order, a navigation (the tab shows another document),
//! the dialogs and console messages the action's page produced, the files
//! it downloaded, a recording's new state, and — after an action that can
//! change what the page shows — a page change (live views paint on it). One task per process
//! publishes them in the order they were made, what queued up together in
//! one round trip; a full queue or an
//! unreachable bus drops events (watching is best effort), never slows an
//! action.

use std::sync::Arc;

use fleet_proto::v1::{self as pb, ActionOutput, action_output, session_event::Kind};
use fleet_store::{DownloadRow, Events, now_millis};
use prost::Message as _;
use tokio::sync::mpsc;

use crate::failure::Failure;

/// Events waiting to be published before new ones are dropped.
const QUEUE: usize = 4096;
/// Most events published in one round trip.
const BATCH: usize = 256;

/// This process's publisher.
#[derive(Clone)]
pub struct Publisher {
    tx: mpsc::Sender<(String, Vec<u8>)>,
}

impl Publisher {
    /// Publishes to `events` from a task of its own.
    pub fn new(events: Arc<dyn Events>) -> Self {
        let (tx, mut rx) = mpsc::channel::<(String, Vec<u8>)>(QUEUE);
        tokio::spawn(async move {
            // What queued up meanwhile goes in one round trip: an action
            // usually makes several events at once.
            let mut batch = Vec::new();
            while rx.recv_many(&mut batch, BATCH).await > 0 {
                if let Err(e) = events.publish_all(std::mem::take(&mut batch)).await {
                    tracing::debug!(error = %e, "session events were not published");
                }
            }
        });
        Self { tx }
    }

    fn send(&self, session_id: &str, kind: Kind) {
        let event = pb::SessionEvent {
            session_id: session_id.to_owned(),
            at_ms: now_millis(),
            kind: Some(kind),
        };
        if self
            .tx
            .try_send((session_id.to_owned(), event.encode_to_vec()))
            .is_err()
        {
            fleet_telemetry::counter!("fleet_worker_events_dropped_total").increment(1);
        }
    }

    /// Publishes a recording's new state outside an action (the sweeper's
    /// encode made it `ready` or `failed`).
    pub(crate) fn recording(&self, session_id: &str, recording_id: &str, status: &str) {
        self.send(
            session_id,
            Kind::Recording(pb::RecordingEvent {
                recording_id: recording_id.to_owned(),
                status: status.to_owned(),
            }),
        );
    }

    /// Publishes what one action of `session_id` caused; `last_url` is the
    /// document the session showed before it, and becomes the one after.
    pub(crate) fn after_action(
        &self,
        session_id: &str,
        last_url: &mut String,
        result: &Result<ActionOutput, Failure>,
        downloads: &[DownloadRow],
        may_change_page: bool,
    ) {
        let Ok(out) = result else {
            // A failed action may still have changed the page (a script that
            // threw halfway, a wait that timed out).
            if may_change_page {
                self.send(session_id, Kind::Changed(pb::PageChangedEvent {}));
            }
            return;
        };
        if let Some(page) = crate::actions::page_ref(out) {
            if page.url != *last_url {
                last_url.clone_from(&page.url);
                self.send(
                    session_id,
                    Kind::Navigated(pb::NavigatedEvent {
                        url: page.url.clone(),
                        title: page.title.clone(),
                    }),
                );
            }
            for dialog in &page.dialogs {
                self.send(session_id, Kind::Dialog(dialog.clone()));
            }
            for entry in &page.console {
                self.send(session_id, Kind::Console(entry.clone()));
            }
        }
        for row in downloads {
            self.send(session_id, Kind::Download(fleet_media::download_info(row)));
        }
        if let Some(action_output::Kind::Recording(r)) = &out.kind {
            self.send(
                session_id,
                Kind::Recording(pb::RecordingEvent {
                    recording_id: r.recording_id.clone(),
                    status: r.status.clone(),
                }),
            );
        }
        if may_change_page {
            self.send(session_id, Kind::Changed(pb::PageChangedEvent {}));
        }
    }
}
