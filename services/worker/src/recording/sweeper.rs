//! Every worker's recordings sweeper: it claims recordings whose capture has
//! ended (stopped, out of time, or their session closed) and encodes them,
//! takes over an encode whose worker died (its claim outlived the lease),
//! keeps each session within its ready recordings' caps, and deletes expired
//! files and rows (downloads' too). Claims are conditional updates, so sweepers on many
//! workers never encode one recording twice.

use std::time::Duration;

use fleet_media::blobs::{frame_time, frames_prefix, recording_prefix, video_key};
use fleet_media::encode::{Frame, encode as encode_frames};
use fleet_proto::recording::{MAX_BYTES_PER_SESSION, MAX_READY_PER_SESSION, RETENTION_MS};
use fleet_store::{Encoded, RecordingRow, now_millis};
use tokio_util::sync::CancellationToken;

use super::Media;
use crate::events::Publisher;

/// How often the sweeper looks.
pub const EVERY: Duration = Duration::from_secs(1);
/// An encode claimed longer ago than this is taken over by another worker
/// (its worker died or drained mid-encode). The longest recording, 60 s at
/// 3 fps, encodes in seconds, so a live encoder never loses its claim.
const ENCODE_LEASE_MS: i64 = 2 * 60 * 1000;

/// How many passes go between two expiry sweeps: expiry is a matter of
/// hours, so once a minute is soon enough and spares the database two
/// queries a second per worker.
const EXPIRE_EVERY_PASSES: u32 = 60;

/// Sweeps until `stop`, telling `events` when a recording is ready or failed.
pub async fn run(media: Media, worker_id: String, events: Publisher, stop: CancellationToken) {
    let mut pass = 0u32;
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(EVERY) => {}
        }
        sweep(&media, &worker_id, &events, pass == 0).await;
        pass = (pass + 1) % EXPIRE_EVERY_PASSES;
    }
}

/// One pass: claim and encode, then (when `expiring`) expire.
pub async fn sweep(media: &Media, worker_id: &str, events: &Publisher, expiring: bool) {
    match media
        .recordings
        .claim_due(worker_id, now_millis(), ENCODE_LEASE_MS)
        .await
    {
        Ok(claimed) => {
            for row in claimed {
                encode(media, worker_id, events, row).await;
            }
        }
        Err(e) if e.is_outage() => return,
        Err(e) => tracing::warn!(error = %e, "could not claim recordings to encode"),
    }
    if expiring && let Err(e) = expire(media).await {
        tracing::warn!(error = %e, "could not expire recordings");
    }
    if expiring && let Err(e) = crate::downloads::expire(media).await {
        tracing::warn!(error = %e, "could not expire downloads");
    }
}

/// Encodes a recording this worker claimed, stores the file and marks it
/// ready (or failed, with the reason), then applies its session's caps.
pub async fn encode(media: &Media, worker_id: &str, events: &Publisher, row: RecordingRow) {
    let Ok(_one_at_a_time) = media.encode_permit().await else {
        return;
    };
    let started = std::time::Instant::now();
    let outcome = encode_row(media, &row).await;
    let now = now_millis();
    let status = if outcome.is_ok() { "ready" } else { "failed" };
    let marked = match outcome {
        Ok((video, size)) => {
            fleet_telemetry::histogram!("fleet_recording_encode_seconds")
                .record(video.took.as_secs_f64());
            tracing::info!(
                recording = %row.id,
                frames = video.frames,
                bytes = size,
                encode_ms = video.took.as_millis(),
                "recording ready"
            );
            media
                .recordings
                .finish_recording(
                    &row.id,
                    worker_id,
                    Encoded {
                        width: video.width,
                        height: video.height,
                        target_frames: video.frames,
                        size_bytes: size,
                        expires_at: now + RETENTION_MS,
                    },
                )
                .await
        }
        Err(reason) => {
            tracing::warn!(recording = %row.id, reason, "a recording could not be encoded");
            media
                .recordings
                .fail_recording(&row.id, worker_id, &reason, now + RETENTION_MS)
                .await
        }
    };
    match marked {
        Ok(true) => {
            events.recording(&row.session_id, &row.id, status);
            if let Err(e) = media.blobs.delete_prefix(&frames_prefix(&row.id)).await {
                tracing::warn!(recording = %row.id, error = %e, "could not delete a recording's frames");
            }
            if let Err(e) = keep_caps(media, &row.session_id).await {
                tracing::warn!(session = %row.session_id, error = %e, "could not apply the recordings' caps");
            }
        }
        Ok(false) => {
            tracing::warn!(recording = %row.id, "another worker took the recording over while it was encoded here")
        }
        Err(e) => {
            tracing::warn!(recording = %row.id, error = %e, "could not record the encode's outcome; a sweeper retries after the lease")
        }
    }
    fleet_telemetry::histogram!("fleet_recording_finish_seconds")
        .record(started.elapsed().as_secs_f64());
}

/// Reads the frames, encodes them off the async threads, stores the file.
async fn encode_row(
    media: &Media,
    row: &RecordingRow,
) -> Result<(fleet_media::encode::Video, u64), String> {
    let listed = media
        .blobs
        .list(&frames_prefix(&row.id))
        .await
        .map_err(|e| {
            tracing::warn!(recording = %row.id, error = %e, "listing frames");
            "the captured frames could not be read".to_owned()
        })?;
    let mut frames = Vec::with_capacity(listed.len());
    for o in listed {
        let Some(at_ms) = frame_time(&o.key) else {
            continue;
        };
        let png = media.blobs.get(&o.key).await.map_err(|e| {
            tracing::warn!(recording = %row.id, error = %e, "reading a frame");
            "the captured frames could not be read".to_owned()
        })?;
        frames.push(Frame {
            at_ms,
            png: png.to_vec(),
        });
    }
    frames.sort_by_key(|f| f.at_ms);
    let end = row.stopped_at.unwrap_or(row.stop_at);
    let duration_ms = u64::try_from(end - row.started_at).unwrap_or(0);
    let fps = row.fps;
    let video = tokio::task::spawn_blocking(move || encode_frames(&frames, fps, duration_ms))
        .await
        .map_err(|_| "the encoder stopped unexpectedly".to_owned())?
        .map_err(|e| e.to_string())?;
    let mut video = video;
    let mp4 = std::mem::take(&mut video.mp4);
    let size = mp4.len() as u64;
    media
        .blobs
        .put(&video_key(&row.id), mp4)
        .await
        .map_err(|e| {
            tracing::warn!(recording = %row.id, error = %e, "storing the file");
            "the encoded file could not be stored".to_owned()
        })?;
    Ok((video, size))
}

/// Keeps the session's newest ready recordings within the count and bytes
/// caps; older ones expire now.
async fn keep_caps(media: &Media, session_id: &str) -> Result<(), fleet_store::StoreError> {
    let ready = media.recordings.ready_recordings(session_id).await?;
    let mut kept = 0usize;
    let mut bytes = 0u64;
    for row in ready {
        if kept < MAX_READY_PER_SESSION && bytes + row.size_bytes <= MAX_BYTES_PER_SESSION {
            kept += 1;
            bytes += row.size_bytes;
            continue;
        }
        tracing::info!(recording = %row.id, "evicted: the session keeps its newest recordings only");
        forget_bytes(media, &row.id).await;
        media
            .recordings
            .expire_recording(&row.id, now_millis() + RETENTION_MS)
            .await?;
    }
    Ok(())
}

async fn forget_bytes(media: &Media, id: &str) {
    if let Err(e) = media.blobs.delete_prefix(&recording_prefix(id)).await {
        tracing::warn!(recording = %id, error = %e, "could not delete a recording's objects");
    }
}

/// Deletes the files of recordings past their expiry (their rows say
/// `expired` for one more retention period, then go).
async fn expire(media: &Media) -> Result<(), fleet_store::StoreError> {
    let now = now_millis();
    for row in media.recordings.expiring_recordings(now).await? {
        forget_bytes(media, &row.id).await;
        media
            .recordings
            .expire_recording(&row.id, now + RETENTION_MS)
            .await?;
    }
    media.recordings.forget_expired_recordings(now).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use fleet_media::{Blobs, MediaConfig};
    use fleet_store::{NewRecording, RecordingStore as _, SessionStore as _, SqlStore};

    use super::*;

    const MIB: u64 = 1024 * 1024;

    /// Media over a fresh SQLite file and folder.
    async fn media() -> (Media, Arc<SqlStore>, String) {
        let dir = std::env::temp_dir().join(format!("fleet-sweeper-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let sql = Arc::new(
            SqlStore::connect(&format!("sqlite://{}", dir.join("t.db").display()))
                .await
                .unwrap(),
        );
        sql.migrate().await.unwrap();
        let tenant = sql.ensure_tenant("a").await.unwrap().id;
        let blobs = Blobs::open(
            &MediaConfig::default(),
            &format!("file://{}", dir.join("objects").display()),
        )
        .unwrap();
        (Media::new(sql.clone(), sql.clone(), blobs), sql, tenant)
    }

    /// A ready recording of session `s1` started at `at` with a file of `size`.
    async fn ready(media: &Media, sql: &SqlStore, tenant: &str, id: &str, at: i64, size: u64) {
        sql.start_recording(&NewRecording {
            id: id.into(),
            tenant_id: tenant.into(),
            session_id: "s1".into(),
            fps: 2,
            max_duration_ms: 1_000,
            started_at: at,
            retention_ms: RETENTION_MS,
            worker_id: "w".into(),
        })
        .await
        .unwrap();
        sql.stop_recording(id, "s1", "w", at + 1).await.unwrap();
        let encoded = Encoded {
            width: 2,
            height: 2,
            target_frames: 1,
            size_bytes: size,
            expires_at: now_millis() + RETENTION_MS,
        };
        assert!(sql.finish_recording(id, "w", encoded).await.unwrap());
        media.blobs.put(&video_key(id), vec![0; 4]).await.unwrap();
    }

    async fn status(sql: &SqlStore, id: &str) -> String {
        sql.recording(id).await.unwrap().unwrap().status
    }

    #[tokio::test]
    async fn a_session_keeps_three_ready_recordings_and_64_mib_the_oldest_go_first() {
        let (media, sql, tenant) = media().await;
        // Exactly 64 MiB in two files: both stay.
        ready(&media, &sql, &tenant, "a", 1, 32 * MIB).await;
        ready(&media, &sql, &tenant, "b", 2, 32 * MIB).await;
        keep_caps(&media, "s1").await.unwrap();
        assert_eq!(
            (status(&sql, "a").await, status(&sql, "b").await),
            ("ready".into(), "ready".into())
        );
        // One byte more: the oldest goes, with its file.
        ready(&media, &sql, &tenant, "c", 3, 1).await;
        keep_caps(&media, "s1").await.unwrap();
        assert_eq!(status(&sql, "a").await, "expired");
        assert!(
            media
                .blobs
                .list(&recording_prefix("a"))
                .await
                .unwrap()
                .is_empty()
        );
        assert_eq!(status(&sql, "b").await, "ready");
        // Small files: three stay, a fourth evicts the oldest of them.
        ready(&media, &sql, &tenant, "d", 4, 1).await;
        keep_caps(&media, "s1").await.unwrap();
        assert_eq!(status(&sql, "b").await, "ready");
        ready(&media, &sql, &tenant, "e", 5, 1).await;
        keep_caps(&media, "s1").await.unwrap();
        assert_eq!(status(&sql, "b").await, "expired");
        for id in ["c", "d", "e"] {
            assert_eq!(status(&sql, id).await, "ready", "{id}");
        }
    }

    #[tokio::test]
    async fn a_sweep_deletes_downloads_at_their_expiry_with_their_bytes_and_keeps_the_rest() {
        use fleet_media::blobs::download_key;
        use fleet_store::{DownloadRow, DownloadStore as _};
        let (media, sql, tenant) = media().await;
        let now = now_millis();
        for (id, expires_at) in [("gone", now - 1), ("kept", now + 60_000)] {
            sql.insert_download(&DownloadRow {
                id: id.into(),
                tenant_id: tenant.clone(),
                session_id: "s1".into(),
                filename: format!("{id}.bin"),
                mime_type: "application/octet-stream".into(),
                source_url: "http://example.test/f".into(),
                size_bytes: 4,
                status: "complete".into(),
                error: None,
                created_at: expires_at - RETENTION_MS,
                expires_at,
            })
            .await
            .unwrap();
            media
                .blobs
                .put(&download_key(id), vec![1; 4])
                .await
                .unwrap();
        }
        let events = Publisher::new(Arc::new(fleet_store::MemoryEvents::default()));
        sweep(&media, "w", &events, true).await;
        assert!(sql.download("gone").await.unwrap().is_none());
        assert!(media.blobs.get(&download_key("gone")).await.is_err());
        assert!(sql.download("kept").await.unwrap().is_some());
        assert_eq!(
            media.blobs.get(&download_key("kept")).await.unwrap().len(),
            4
        );
    }
}
