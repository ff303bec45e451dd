//! The recordings' contract: one row per screen recording (its state, counts,
//! times and the worker encoding it) and one per segment a worker captured.
//! The bytes themselves are in object storage (`fleet-media`), never here.
//! SQL behind it is in `recording_sql.rs`; [`GuardedRecordings`] puts it
//! behind the same outage breaker as the sessions.

use std::sync::Arc;

use async_trait::async_trait;

use crate::{Breaker, StoreError};

/// A recording's state, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordingRow {
    /// A UUID.
    pub id: String,
    /// The tenant whose session it records.
    pub tenant_id: String,
    /// The session recorded.
    pub session_id: String,
    /// `recording`, `encoding`, `ready`, `failed` or `expired`.
    pub status: String,
    /// Frames per second in the file.
    pub fps: u32,
    /// How long it may run, ms.
    pub max_duration_ms: i64,
    /// Unix ms.
    pub started_at: i64,
    /// When capture ends (its deadline, or when it was stopped), Unix ms.
    pub stop_at: i64,
    /// When capture ended, Unix ms; `None` while recording.
    pub stopped_at: Option<i64>,
    /// When the file and the row go, Unix ms.
    pub expires_at: i64,
    /// Distinct frames captured.
    pub captured_frames: u32,
    /// Bytes of captured frames stored.
    pub frame_bytes: u64,
    /// Frames in the encoded file.
    pub target_frames: u32,
    /// The video's size, pixels (0 before it is encoded).
    pub width: u32,
    /// See `width`.
    pub height: u32,
    /// The file's size in bytes (0 before it is encoded).
    pub size_bytes: u64,
    /// Why encoding failed.
    pub error: Option<String>,
    /// Stretches captured by one worker each.
    pub segments: u32,
}

/// A recording to start.
#[derive(Debug, Clone)]
pub struct NewRecording {
    /// A UUID the caller chose.
    pub id: String,
    /// The session's tenant.
    pub tenant_id: String,
    /// The session.
    pub session_id: String,
    /// Frames per second.
    pub fps: u32,
    /// How long it may run, ms.
    pub max_duration_ms: i64,
    /// Now, Unix ms.
    pub started_at: i64,
    /// How long the row lives if nothing else sets its expiry, ms.
    pub retention_ms: i64,
    /// The worker capturing its first segment.
    pub worker_id: String,
}

/// What encoding produced.
#[derive(Debug, Clone, Copy)]
pub struct Encoded {
    /// Pixels.
    pub width: u32,
    /// Pixels.
    pub height: u32,
    /// Frames in the file.
    pub target_frames: u32,
    /// The file's size.
    pub size_bytes: u64,
    /// When the file and row go, Unix ms.
    pub expires_at: i64,
}

/// Recordings in SQL.
#[async_trait]
pub trait RecordingStore: Send + Sync {
    /// Starts a recording with its first segment. [`StoreError::Conflict`]
    /// when the session already has one recording or encoding.
    async fn start_recording(&self, new: &NewRecording) -> Result<RecordingRow, StoreError>;
    /// A recording by ID, whatever its tenant (callers check the tenant).
    async fn recording(&self, id: &str) -> Result<Option<RecordingRow>, StoreError>;
    /// The session's recording in progress, if any.
    async fn active_recording(&self, session_id: &str) -> Result<Option<RecordingRow>, StoreError>;
    /// Notes that `worker` captures the recording from `now` on (the session
    /// moved there); returns the segment's number.
    async fn add_segment(&self, id: &str, worker: &str, now: i64) -> Result<u32, StoreError>;
    /// Counts a stored frame of `bytes` bytes.
    async fn add_frame(&self, id: &str, bytes: u64) -> Result<(), StoreError>;
    /// Stops the session's recording `id` now and claims it for encoding by
    /// `worker`; `None` when it is not recording (already stopped, or not
    /// this session's).
    async fn stop_recording(
        &self,
        id: &str,
        session_id: &str,
        worker: &str,
        now: i64,
    ) -> Result<Option<RecordingRow>, StoreError>;
    /// Ends capture of every recording of the session (it was closed); a
    /// sweeper encodes them.
    async fn stop_session_recordings(&self, session_id: &str, now: i64) -> Result<u64, StoreError>;
    /// Claims for `worker` the recordings whose capture has ended and that
    /// nobody is encoding (or whose encoder's claim is older than `lease_ms`).
    async fn claim_due(
        &self,
        worker: &str,
        now: i64,
        lease_ms: i64,
    ) -> Result<Vec<RecordingRow>, StoreError>;
    /// Marks a recording `worker` encoded ready; false when the claim was lost.
    async fn finish_recording(
        &self,
        id: &str,
        worker: &str,
        encoded: Encoded,
    ) -> Result<bool, StoreError>;
    /// Marks a recording failed with a reason shown to agents.
    async fn fail_recording(
        &self,
        id: &str,
        worker: &str,
        error: &str,
        expires_at: i64,
    ) -> Result<bool, StoreError>;
    /// The session's ready recordings, newest first.
    async fn ready_recordings(&self, session_id: &str) -> Result<Vec<RecordingRow>, StoreError>;
    /// Marks a recording expired (its bytes are gone) and moves its expiry to
    /// `forget_at`, when the row itself goes.
    async fn expire_recording(&self, id: &str, forget_at: i64) -> Result<(), StoreError>;
    /// Ready or failed recordings past their expiry.
    async fn expiring_recordings(&self, now: i64) -> Result<Vec<RecordingRow>, StoreError>;
    /// Deletes the rows of expired recordings past `now`; returns how many.
    async fn forget_expired_recordings(&self, now: i64) -> Result<u64, StoreError>;
}

/// A [`RecordingStore`] behind the SQL store's breaker, so a database outage
/// answers fast here too.
pub struct GuardedRecordings {
    inner: Arc<dyn RecordingStore>,
    breaker: Arc<Breaker>,
}

impl GuardedRecordings {
    /// Guards `inner` with `breaker` (the sessions' breaker: one database).
    pub fn new(inner: Arc<dyn RecordingStore>, breaker: Arc<Breaker>) -> Self {
        Self { inner, breaker }
    }
}

#[async_trait]
impl RecordingStore for GuardedRecordings {
    async fn start_recording(&self, new: &NewRecording) -> Result<RecordingRow, StoreError> {
        self.breaker.call(self.inner.start_recording(new)).await
    }
    async fn recording(&self, id: &str) -> Result<Option<RecordingRow>, StoreError> {
        self.breaker.call(self.inner.recording(id)).await
    }
    async fn active_recording(&self, session_id: &str) -> Result<Option<RecordingRow>, StoreError> {
        self.breaker
            .call(self.inner.active_recording(session_id))
            .await
    }
    async fn add_segment(&self, id: &str, worker: &str, now: i64) -> Result<u32, StoreError> {
        self.breaker
            .call(self.inner.add_segment(id, worker, now))
            .await
    }
    async fn add_frame(&self, id: &str, bytes: u64) -> Result<(), StoreError> {
        self.breaker.call(self.inner.add_frame(id, bytes)).await
    }
    async fn stop_recording(
        &self,
        id: &str,
        session_id: &str,
        worker: &str,
        now: i64,
    ) -> Result<Option<RecordingRow>, StoreError> {
        self.breaker
            .call(self.inner.stop_recording(id, session_id, worker, now))
            .await
    }
    async fn stop_session_recordings(&self, session_id: &str, now: i64) -> Result<u64, StoreError> {
        self.breaker
            .call(self.inner.stop_session_recordings(session_id, now))
            .await
    }
    async fn claim_due(
        &self,
        worker: &str,
        now: i64,
        lease_ms: i64,
    ) -> Result<Vec<RecordingRow>, StoreError> {
        self.breaker
            .call(self.inner.claim_due(worker, now, lease_ms))
            .await
    }
    async fn finish_recording(
        &self,
        id: &str,
        worker: &str,
        encoded: Encoded,
    ) -> Result<bool, StoreError> {
        self.breaker
            .call(self.inner.finish_recording(id, worker, encoded))
            .await
    }
    async fn fail_recording(
        &self,
        id: &str,
        worker: &str,
        error: &str,
        expires_at: i64,
    ) -> Result<bool, StoreError> {
        self.breaker
            .call(self.inner.fail_recording(id, worker, error, expires_at))
            .await
    }
    async fn ready_recordings(&self, session_id: &str) -> Result<Vec<RecordingRow>, StoreError> {
        self.breaker
            .call(self.inner.ready_recordings(session_id))
            .await
    }
    async fn expire_recording(&self, id: &str, forget_at: i64) -> Result<(), StoreError> {
        self.breaker
            .call(self.inner.expire_recording(id, forget_at))
            .await
    }
    async fn expiring_recordings(&self, now: i64) -> Result<Vec<RecordingRow>, StoreError> {
        self.breaker.call(self.inner.expiring_recordings(now)).await
    }
    async fn forget_expired_recordings(&self, now: i64) -> Result<u64, StoreError> {
        self.breaker
            .call(self.inner.forget_expired_recordings(now))
            .await
    }
}
