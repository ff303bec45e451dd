//! Screen recordings of this worker's sessions. While a session's recording
//! runs, a frame is captured after each action that can change the page (the
//! page only changes inside calls: timers run within actions too), and kept
//! only when it differs from the last one; its bytes go to object storage off
//! the call's path, with the capture time in the key. The recording's row in
//! SQL says which recording runs, so a session restored on another worker
//! picks it up there as a new segment. Encoding, expiry and the per-session
//! caps are the sweeper's ([`sweeper`]).

pub mod sweeper;

use std::time::Duration;

pub use fleet_media::Media;
use fleet_media::blobs::frame_key;
use fleet_media::result;
use fleet_proto::recording::{
    DEFAULT_DURATION_SECONDS, DEFAULT_FPS, MAX_DURATION_SECONDS, MAX_FPS, MAX_FRAME_BYTES,
    MAX_FRAME_STORAGE_BYTES, MIN_DURATION_SECONDS, MIN_FPS, RETENTION_MS,
};
use fleet_proto::v1::{self as pb, ErrorCode, action::Kind};
use fleet_store::{NewRecording, RecordingRow, StoreError, now_millis};
use sha2::{Digest as _, Sha256};
use tokio::task::JoinHandle;

use crate::events::Publisher;
use crate::failure::{Failure, store_failure};
use crate::host::Tab;

/// A recording this worker captures for one of its sessions.
pub(crate) struct Capture {
    id: String,
    session_id: String,
    started_at: i64,
    stop_at: i64,
    last_hash: Option<[u8; 32]>,
    frame_bytes: u64,
    /// Frame writes still running.
    pending: Vec<JoinHandle<()>>,
}

impl Capture {
    fn from_row(row: &RecordingRow) -> Self {
        Self {
            id: row.id.clone(),
            session_id: row.session_id.clone(),
            started_at: row.started_at,
            stop_at: row.stop_at,
            last_hash: None,
            frame_bytes: row.frame_bytes,
            pending: Vec::new(),
        }
    }

    /// Waits for the frame writes in flight, so an encode that starts next
    /// finds every frame.
    pub(crate) async fn settle(&mut self) {
        for handle in self.pending.drain(..) {
            let _ = handle.await;
        }
    }
}

/// Whether an action can change what the page shows (so a frame is worth
/// capturing after it).
pub(crate) fn may_change_page(kind: &Kind) -> bool {
    !matches!(
        kind,
        Kind::Inspect(_)
            | Kind::Screenshot(_)
            | Kind::Accessibility(_)
            | Kind::Capabilities(_)
            | Kind::Cookies(_)
            | Kind::ConsoleMessages(_)
            | Kind::NetworkLog(_)
            | Kind::Find(_)
            | Kind::Recording(_)
            | Kind::Downloads(_)
            | Kind::LiveView(_)
            | Kind::CdpEndpoint(_)
            | Kind::Status(_)
            | Kind::Close(_)
            | Kind::Http(_)
            | Kind::WebSearch(_)
    )
}

/// The capability report's entry for recordings: they are the worker's, not
/// the engine's, so the worker adds it to what the engine reports.
pub(crate) fn capability(media: Option<&Media>) -> pb::Capability {
    match media {
        Some(_) => pb::Capability {
            name: "recording".into(),
            support: "supported".into(),
            reason: "servo_recording_start/stop/status/download: H.264 MP4 up to 960×540 at 1–3 fps, frames captured after each action that changes the page (not on a timer), encoded off the call path, continued across workers; tests/e2e/recordings.rs decodes it with ffmpeg and compares a frame with a screenshot".into(),
        },
        None => pb::Capability {
            name: "recording".into(),
            support: "unsupported".into(),
            reason: "this fleet has no object store (--object-store), so recordings cannot be kept".into(),
        },
    }
}

fn unavailable() -> Failure {
    Failure::new(
        ErrorCode::InvalidArgument,
        "recordings are not available: this fleet has no object store (--object-store)",
    )
}

/// The session's recording in progress, picked up after a restore (the
/// session moved here): this worker captures a new segment of it. A store
/// failure is logged and the call goes on: a recording missing a stretch is
/// better than a session that cannot be used.
pub(crate) async fn resume(
    media: Option<&Media>,
    worker_id: &str,
    session_id: &str,
) -> Option<Capture> {
    let media = media?;
    let resumed = async {
        let Some(row) = media.recordings.active_recording(session_id).await? else {
            return Ok(None);
        };
        if row.stop_at <= now_millis() {
            return Ok(None);
        }
        let segment = media
            .recordings
            .add_segment(&row.id, worker_id, now_millis())
            .await?;
        tracing::debug!(recording = %row.id, segment, "continuing a recording");
        Ok::<_, StoreError>(Some(Capture::from_row(&row)))
    };
    match resumed.await {
        Ok(capture) => capture,
        Err(e) => {
            tracing::warn!(session = %session_id, error = %e, "could not continue the session's recording");
            None
        }
    }
}

/// Captures the frame after an action, if the session records; a recording
/// whose capture ended is let go (a sweeper encodes it).
pub(crate) async fn capture_after(
    media: &Media,
    tab: Option<&mut Tab>,
    capture: &mut Option<Capture>,
) {
    let started = std::time::Instant::now();
    if let (Some(tab), Some(c)) = (tab, capture.as_mut())
        && !tab.poisoned()
        && let Captured::Ended = frame(media, tab, c).await
    {
        *capture = None;
    }
    fleet_telemetry::histogram!("fleet_recording_capture_seconds")
        .record(started.elapsed().as_secs_f64());
}

/// Runs a recording action of a session on this worker. `capture` is the
/// session's recording in progress here, if any.
pub(crate) async fn run(
    media: Option<&Media>,
    (worker_id, events): (&str, &Publisher),
    req: &pb::RunRequest,
    action: pb::Recording,
    tab: &mut Tab,
    capture: &mut Option<Capture>,
) -> Result<pb::ActionOutput, Failure> {
    let op = action.op.ok_or_else(|| {
        Failure::new(
            ErrorCode::InvalidArgument,
            "the recording action names no operation",
        )
    })?;
    let media = media.ok_or_else(unavailable)?;
    let result = run_op(media, (worker_id, events), req, op, tab, capture).await?;
    Ok(pb::ActionOutput {
        kind: Some(pb::action_output::Kind::Recording(result)),
    })
}

async fn run_op(
    media: &Media,
    (worker_id, events): (&str, &Publisher),
    req: &pb::RunRequest,
    op: pb::recording::Op,
    tab: &mut Tab,
    capture: &mut Option<Capture>,
) -> Result<pb::RecordingResult, Failure> {
    match op {
        pb::recording::Op::Start(start) => {
            let fps = match start.fps {
                0 => DEFAULT_FPS,
                n if (MIN_FPS..=MAX_FPS).contains(&n) => n,
                n => {
                    return Err(Failure::new(
                        ErrorCode::InvalidArgument,
                        format!("fps must be {MIN_FPS} to {MAX_FPS}; got {n}"),
                    ));
                }
            };
            let seconds = match start.max_duration_seconds {
                0 => DEFAULT_DURATION_SECONDS,
                n if (MIN_DURATION_SECONDS..=MAX_DURATION_SECONDS).contains(&n) => n,
                n => {
                    return Err(Failure::new(
                        ErrorCode::InvalidArgument,
                        format!(
                            "maxDurationSeconds must be {MIN_DURATION_SECONDS} to {MAX_DURATION_SECONDS}; got {n}"
                        ),
                    ));
                }
            };
            let new = NewRecording {
                id: uuid::Uuid::new_v4().to_string(),
                tenant_id: req.tenant_id.clone(),
                session_id: req.session_id.clone(),
                fps,
                max_duration_ms: i64::from(seconds) * 1000,
                started_at: now_millis(),
                retention_ms: RETENTION_MS,
                worker_id: worker_id.to_owned(),
            };
            let row = media
                .recordings
                .start_recording(&new)
                .await
                .map_err(|e| match e {
                    StoreError::Conflict(why) => Failure::new(ErrorCode::InvalidArgument, why),
                    e => store_failure(e),
                })?;
            let mut started = Capture::from_row(&row);
            // The first frame: what the page shows as the recording starts.
            frame(media, tab, &mut started).await;
            *capture = Some(started);
            Ok(result(&row))
        }
        pb::recording::Op::Stop(stop) => {
            if let Some(c) = capture.as_mut().filter(|c| c.id == stop.recording_id) {
                c.settle().await;
                *capture = None;
            }
            let now = now_millis();
            let stopped = media
                .recordings
                .stop_recording(&stop.recording_id, &req.session_id, worker_id, now)
                .await
                .map_err(store_failure)?;
            match stopped {
                Some(row) => {
                    let (m, w, r) = (media.clone(), worker_id.to_owned(), row.clone());
                    let e = events.clone();
                    tokio::spawn(async move { sweeper::encode(&m, &w, &e, r).await });
                    Ok(result(&row))
                }
                // Not recording: stopped already (the answer is its state
                // now), or no recording of this session.
                None => match media
                    .recordings
                    .recording(&stop.recording_id)
                    .await
                    .map_err(store_failure)?
                {
                    Some(row)
                        if row.session_id == req.session_id && row.tenant_id == req.tenant_id =>
                    {
                        Ok(result(&row))
                    }
                    _ => Err(Failure::new(
                        ErrorCode::RecordingNotFound,
                        format!("this session has no recording {:?}", stop.recording_id),
                    )),
                },
            }
        }
        pb::recording::Op::Status(_) | pb::recording::Op::Download(_) => Err(Failure::new(
            ErrorCode::InvalidArgument,
            "recording status and download are answered by the gateway, not a worker",
        )),
    }
}

/// What a capture found.
pub(crate) enum Captured {
    /// Keep capturing.
    Running,
    /// The recording's time is up, or its frame storage is full: this worker
    /// stops capturing and a sweeper encodes it.
    Ended,
}

/// Captures a frame of `tab` for `capture`, unless it shows what the last
/// one did.
pub(crate) async fn frame(media: &Media, tab: &mut Tab, capture: &mut Capture) -> Captured {
    let now = now_millis();
    if now >= capture.stop_at {
        return Captured::Ended;
    }
    capture.pending.retain(|h| !h.is_finished());
    let png = match tab.screenshot(false, Duration::from_secs(5)).await {
        Ok(Ok(png)) => png,
        Ok(Err(reason)) => {
            tracing::warn!(recording = %capture.id, reason, "a recording frame could not be painted");
            return Captured::Running;
        }
        Err(e) => {
            tracing::warn!(recording = %capture.id, error = %e, "a recording frame could not be painted");
            return Captured::Running;
        }
    };
    let hash: [u8; 32] = Sha256::digest(&png).into();
    if capture.last_hash == Some(hash) {
        return Captured::Running;
    }
    if png.len() > MAX_FRAME_BYTES {
        tracing::warn!(recording = %capture.id, bytes = png.len(), "a frame over the size cap was skipped");
        return Captured::Running;
    }
    let bytes = png.len() as u64;
    if capture.frame_bytes + bytes > MAX_FRAME_STORAGE_BYTES {
        tracing::info!(recording = %capture.id, "the recording's frame storage is full; it stops here");
        capture.settle().await;
        // Its deadline moves to now; a sweeper claims it for encoding.
        if let Err(e) = media
            .recordings
            .stop_session_recordings(&capture.session_id, now)
            .await
        {
            tracing::warn!(recording = %capture.id, error = %e, "could not stop a full recording");
        }
        return Captured::Ended;
    }
    capture.last_hash = Some(hash);
    capture.frame_bytes += bytes;
    let at_ms = u64::try_from(now - capture.started_at).unwrap_or(0);
    let key = frame_key(&capture.id, at_ms, &hex::encode(&hash[..4]));
    let (blobs, recordings, id) = (
        media.blobs.clone(),
        media.recordings.clone(),
        capture.id.clone(),
    );
    fleet_telemetry::counter!("fleet_recording_frames_total").increment(1);
    capture.pending.push(tokio::spawn(async move {
        match blobs.put(&key, png).await {
            Ok(()) => {
                if let Err(e) = recordings.add_frame(&id, bytes).await {
                    tracing::warn!(recording = %id, error = %e, "a frame was stored but not counted");
                }
            }
            Err(e) => tracing::warn!(recording = %id, error = %e, "a frame could not be stored"),
        }
    }));
    Captured::Running
}
