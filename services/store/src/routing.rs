//! The routing contract: which worker serves a session, under which epoch, and which
//! workers are alive. Everything here can be rebuilt (heartbeats, lazy restore), so a
//! backend may lose it without losing a session.

use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::StoreError;

/// A worker as it announces itself in heartbeats.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkerInfo {
    /// Stable worker ID.
    pub id: String,
    /// gRPC address the gateway dials (`http://host:port`).
    pub address: String,
    /// How many live sessions it accepts.
    pub capacity: u32,
    /// How many it holds now.
    pub live_sessions: u32,
}

/// Who owns a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// The owning worker's ID; empty when released.
    pub worker: String,
    /// The ownership epoch; every claim increments it.
    pub epoch: u64,
}

/// The session → worker map and the worker registry.
#[async_trait]
pub trait Routing: Send + Sync {
    /// Announces a live worker for `ttl`.
    async fn heartbeat(&self, info: &WorkerInfo, ttl: Duration) -> Result<(), StoreError>;
    /// Removes a worker from the registry at once.
    async fn deregister(&self, worker_id: &str) -> Result<(), StoreError>;
    /// Workers whose heartbeat has not expired.
    async fn workers(&self) -> Result<Vec<WorkerInfo>, StoreError>;
    /// The current route of a session, if any.
    async fn route(&self, session_id: &str) -> Result<Option<Route>, StoreError>;
    /// Makes `worker` the owner under a new epoch, greater than both the current
    /// one and `floor` (the epoch the SQL store last saw), atomically.
    async fn claim(&self, session_id: &str, worker: &str, floor: u64) -> Result<Route, StoreError>;
    /// Releases the route if `worker` still owns it at `epoch`; keeps the epoch so
    /// the next claim is still greater. Returns whether it released.
    async fn release(&self, session_id: &str, worker: &str, epoch: u64)
    -> Result<bool, StoreError>;
    /// Removes a session's route entirely (the session was closed or expired).
    async fn forget(&self, session_id: &str) -> Result<(), StoreError>;
    /// Checks the backend answers.
    async fn ping(&self) -> Result<(), StoreError>;
    /// Counts a session that no worker had room for as pending demand until
    /// `hold` has passed; noting the same session again restarts its hold. Every
    /// gateway notes into the same set, so any one reports the fleet's demand.
    async fn note_pending(&self, session_id: &str, hold: Duration) -> Result<(), StoreError>;
    /// Sessions noted pending whose hold has not passed.
    async fn pending(&self) -> Result<u32, StoreError>;
    /// Gives control of a session to `holder` (a person's live view) for
    /// `lease`, or renews the lease it holds. Returns false, changing nothing,
    /// while another holder's lease runs.
    async fn take_control(
        &self,
        session_id: &str,
        holder: &str,
        lease: Duration,
    ) -> Result<bool, StoreError>;
    /// Ends `holder`'s control of a session; another holder's stays.
    async fn release_control(&self, session_id: &str, holder: &str) -> Result<(), StoreError>;
    /// Who holds control of a session now, if anyone.
    async fn controller(&self, session_id: &str) -> Result<Option<String>, StoreError>;
    /// A session's route and who holds control of it, read together: a call
    /// on a session needs both, and a backend across the network answers
    /// them in one round trip.
    async fn route_and_controller(
        &self,
        session_id: &str,
    ) -> Result<(Option<Route>, Option<String>), StoreError> {
        Ok((
            self.route(session_id).await?,
            self.controller(session_id).await?,
        ))
    }
    /// Whether the last call found the backend unreachable (a guarded routing
    /// knows; a bare one never says so).
    fn degraded(&self) -> bool {
        false
    }
}
