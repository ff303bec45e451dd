//! Opening a session's tab on this worker: a new one with the viewport the
//! gateway sent, or a restored one from the session's newest checkpoint (the
//! store's, or this worker's unwritten one while the store is away or
//! behind). A checkpoint that cannot be applied fails the session, with the
//! reason, for the agent.

use std::time::Instant;

use fleet_proto::v1::{self as pb, ErrorCode};

use super::{HOUSEKEEPING, Sessions};
use crate::checkpoint::Checkpoint;
use crate::failure::{Failure, store_failure};
use crate::host::{Tab, Viewport};

impl Sessions {
    pub(super) async fn open_tab(&self, req: &pb::RunRequest) -> Result<Tab, Failure> {
        // A new session's row was written by the gateway a moment ago and the
        // request carries its viewport: reading the row back would only cost a
        // round trip on the way to the first page.
        let viewport = if req.create {
            req.viewport.map_or(
                Viewport {
                    width: 1280,
                    height: 720,
                },
                Viewport::from,
            )
        } else {
            let row = self
                .inner
                .store
                .session(&req.session_id)
                .await
                .map_err(store_failure)?
                .ok_or_else(|| Failure::new(ErrorCode::SessionNotFound, "session not found"))?;
            Viewport {
                width: row.width,
                height: row.height,
            }
        };
        let mut tab = self.inner.host.session_tab(viewport).await.map_err(|e| {
            tracing::error!(error = %e, "could not instantiate the engine");
            Failure::new(
                ErrorCode::EngineFailed,
                "could not start the session's engine",
            )
        })?;
        tab.set_tenant(&req.tenant_id);
        if req.create {
            // Nothing is stored for it yet: its first checkpoint can be one
            // statement instead of the general transaction.
            self.inner.store.created(&req.session_id);
            return Ok(tab);
        }
        let stored = self.newest_checkpoint(&req.session_id, req.epoch).await?;
        if let Some(parts) = stored {
            // Reloading the page is engine work: it takes a turn, which the
            // call's action then keeps.
            tab.hold_lane(self.inner.admission.enter(HOUSEKEEPING).await?);
            let started = Instant::now();
            let applied = match Checkpoint::from_parts(parts) {
                Ok(checkpoint) => checkpoint.apply(&mut tab, HOUSEKEEPING).await?,
                Err(reason) => Err(reason),
            };
            match applied {
                Ok(()) => {
                    fleet_telemetry::counter!("fleet_worker_restores_total").increment(1);
                    fleet_telemetry::histogram!("fleet_worker_restore_seconds")
                        .record(started.elapsed().as_secs_f64());
                    tracing::debug!(session = %req.session_id, "restored");
                }
                Err(reason) => {
                    // A checkpoint that cannot be applied will not apply next time
                    // either: the session is failed, with the reason, for the agent.
                    let reason = format!("the session could not be restored: {reason}");
                    if let Err(e) = self.inner.store.mark_failed(&req.session_id, &reason).await {
                        tracing::warn!(error = %e, "could not mark the session failed");
                    }
                    return Err(Failure::new(ErrorCode::EngineFailed, reason));
                }
            }
        }
        Ok(tab)
    }

    /// The session's newest checkpoint, taken over at `epoch` (so an older
    /// owner's call still running can no longer save): the store's, or this
    /// worker's unwritten one when the store is unreachable or behind it.
    async fn newest_checkpoint(
        &self,
        session_id: &str,
        epoch: u64,
    ) -> Result<Option<Vec<(String, Vec<u8>)>>, Failure> {
        let unwritten = self.inner.backlog.get(session_id);
        match self.inner.store.take_over(session_id, epoch).await {
            Ok(stored) => Ok(match (stored, unwritten) {
                (Some(s), Some(u)) if s.epoch > u.epoch => Some(s.parts),
                (_, Some(u)) => Some(u.stored_parts()),
                (stored, None) => stored.map(|s| s.parts),
            }),
            Err(e) if e.is_outage() && unwritten.is_some() => {
                Ok(unwritten.map(|u| u.stored_parts()))
            }
            Err(e) => Err(store_failure(e)),
        }
    }
}
