//! `Browser.Watch`: a session's events from the bus, for its own tenant only.
//! The gateway publishes the events it causes itself here: the close (the
//! gateway answers closes; a watcher's stream ends after it) and a live
//! view's taking and giving back control. A watch may also wait on a
//! condition ([`super::long_wait`]).

use std::pin::Pin;

use fleet_proto::v1::{self as pb, session_event::Kind};
use fleet_store::{Tenant, now_millis};
use futures::{Stream, StreamExt as _};
use prost::Message as _;

use super::Dispatcher;
use crate::error::GatewayError;

/// A watcher's stream of events.
pub type EventStream = Pin<Box<dyn Stream<Item = pb::SessionEvent> + Send>>;

impl Dispatcher {
    /// The events of the tenant's session named by `request` from now on,
    /// waiting on its condition too when it names one
    /// ([`super::long_wait`]).
    pub async fn watch(
        &self,
        tenant: &Tenant,
        request: &pb::WatchRequest,
    ) -> Result<EventStream, GatewayError> {
        let id = request.session_id.as_str();
        if id.is_empty() {
            return Err(GatewayError::Invalid(
                "session_id is required: it names the session to watch".into(),
            ));
        }
        if let Some(until) = &request.until {
            super::long_wait::validate(until)?;
        }
        // Subscribed before the check, so nothing between the two is missed.
        let events = self.events.subscribe(id).await?;
        let row = self.store.session(id).await?;
        // Another tenant's session looks like a missing one.
        if !row.is_some_and(|r| r.tenant_id == tenant.id && !r.expired(now_millis())) {
            return Err(GatewayError::NotFound(format!(
                "session {id} was not found"
            )));
        }
        let downloads = self.downloads.clone();
        let events = events.filter_map(move |bytes| {
            let downloads = downloads.clone();
            async move {
                let mut event = pb::SessionEvent::decode(bytes.as_slice()).ok()?;
                if let (Some(Kind::Download(info)), Some(d)) = (&mut event.kind, &downloads) {
                    d.sign(info);
                }
                Some(event)
            }
        });
        if let Some(until) = request.until.clone() {
            return Ok(self.long_wait(tenant, id, until, Box::pin(events)));
        }
        // The close is the last event: the stream ends right after it.
        let stream = futures::stream::unfold(Some(Box::pin(events)), |state| async move {
            let mut events = state?;
            let event = events.next().await?;
            let closed = matches!(event.kind, Some(Kind::Closed(_)));
            Some((event, (!closed).then_some(events)))
        });
        Ok(Box::pin(stream))
    }

    /// Tells the session's watchers it was closed.
    pub(super) async fn publish_closed(&self, id: &str) {
        self.publish(id, Kind::Closed(pb::ClosedEvent {})).await;
    }

    /// Tells the session's watchers who holds control now: `human` (a
    /// person's live view) or `agent`.
    pub(crate) async fn publish_control(&self, id: &str, holder: &str) {
        let control = pb::ControlEvent {
            holder: holder.to_owned(),
        };
        self.publish(id, Kind::Control(control)).await;
    }

    /// Publishes an event the gateway itself causes; watching is best
    /// effort, so a bus that is away loses it.
    async fn publish(&self, id: &str, kind: Kind) {
        let event = pb::SessionEvent {
            session_id: id.to_owned(),
            at_ms: now_millis(),
            kind: Some(kind),
        };
        if let Err(e) = self.events.publish(id, event.encode_to_vec()).await {
            tracing::debug!(session = %id, error = %e, "an event was not published");
        }
    }
}
