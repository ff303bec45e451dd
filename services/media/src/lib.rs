//! fleet-media owns what recordings and downloaded files are made of outside
//! SQL: the object store their bytes go to ([`blobs`]), the encoder that
//! turns captured frames into H.264 ([`encode`]), the MP4 file around it
//! ([`mp4`]) and the signed links a download uses ([`signing`]). Their rows
//! are in `fleet-store`; capture, saving downloads and the sweeper are the
//! worker's; the download routes are the gateway's.

pub mod blobs;
pub mod config;
pub mod encode;
pub mod mp4;
pub mod signing;

pub use blobs::{BlobError, Blobs};
pub use config::MediaConfig;
pub use signing::Signer;

use std::sync::Arc;

use fleet_proto::v1 as pb;
use fleet_store::{DownloadRow, DownloadStore, RecordingRow, RecordingStore, SqlStores};

/// What recordings and downloads need on a worker or a gateway: their rows
/// and their bytes' store, and one encode at a time per process (it is
/// CPU-bound; calls come first).
#[derive(Clone)]
pub struct Media {
    /// Recordings' rows.
    pub recordings: Arc<dyn RecordingStore>,
    /// Downloaded files' rows.
    pub downloads: Arc<dyn DownloadStore>,
    /// Frames and files.
    pub blobs: Blobs,
    encoding: Arc<tokio::sync::Semaphore>,
}

impl Media {
    /// Rows kept in `recordings` and `downloads`, bytes in `blobs`.
    pub fn new(
        recordings: Arc<dyn RecordingStore>,
        downloads: Arc<dyn DownloadStore>,
        blobs: Blobs,
    ) -> Self {
        Self {
            recordings,
            downloads,
            blobs,
            encoding: Arc::new(tokio::sync::Semaphore::new(1)),
        }
    }

    /// The media `config` names (its --object-store, else `default_store`,
    /// e.g. a folder in `serve`'s data directory); `None` when neither names
    /// one: recordings and downloads are then refused with a clear error.
    pub fn from_config(
        config: &MediaConfig,
        sql: &SqlStores,
        default_store: Option<String>,
    ) -> Result<Option<Self>, BlobError> {
        let Some(url) = config.object_store.clone().or(default_store) else {
            return Ok(None);
        };
        let blobs = Blobs::open(config, &url)?;
        tracing::info!(store = %blobs.name(), "recordings and downloads go to this object store");
        Ok(Some(Self::new(
            sql.recordings.clone(),
            sql.downloads.clone(),
            blobs,
        )))
    }

    /// Waits for this process's turn to encode.
    pub async fn encode_permit(
        &self,
    ) -> Result<tokio::sync::SemaphorePermit<'_>, tokio::sync::AcquireError> {
        self.encoding.acquire().await
    }
}

fn rfc3339(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// A recording's row as agents see it (no download link: the gateway adds
/// one when asked).
pub fn result(row: &RecordingRow) -> pb::RecordingResult {
    pb::RecordingResult {
        recording_id: row.id.clone(),
        status: row.status.clone(),
        fps: row.fps,
        max_duration_seconds: u32::try_from(row.max_duration_ms / 1000).unwrap_or(0),
        captured_frames: row.captured_frames,
        target_frames: row.target_frames,
        width: row.width,
        height: row.height,
        size_bytes: row.size_bytes,
        started_at: rfc3339(row.started_at),
        stopped_at: row.stopped_at.map(rfc3339),
        expires_at: rfc3339(row.expires_at),
        error: row.error.clone(),
        download_url: None,
        filename: fleet_proto::recording::filename(&row.id),
        mime_type: "video/mp4".into(),
        session_id: row.session_id.clone(),
        segments: row.segments,
    }
}

/// A download's row as agents see it (no link: the gateway adds one).
pub fn download_info(row: &DownloadRow) -> pb::DownloadInfo {
    pb::DownloadInfo {
        download_id: row.id.clone(),
        session_id: row.session_id.clone(),
        filename: row.filename.clone(),
        mime_type: row.mime_type.clone(),
        size_bytes: row.size_bytes,
        source_url: row.source_url.clone(),
        status: row.status.clone(),
        error: row.error.clone(),
        created_at: rfc3339(row.created_at),
        expires_at: rfc3339(row.expires_at),
        download_url: None,
    }
}
