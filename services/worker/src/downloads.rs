//! The files this worker's sessions' pages download. The fetcher decides
//! which navigations are downloads and keeps their bytes on the tab
//! ([`crate::net::download`]); after each action the worker stores them
//! here, before the answer leaves, so the agent's next call lists them: the
//! bytes go to object storage, the row to SQL, both tenant-scoped. The
//! per-session caps are checked here; a download past the byte cap is
//! listed as failed with the reason, one past the file cap is not listed
//! and the tab's console says why. Listing and reading are the gateway's;
//! expiry is the sweeper's.

use fleet_media::blobs::{download_key, download_prefix};
use fleet_proto::download::{MAX_SESSION_BYTES, MAX_SESSION_FILES, RETENTION_MS};
use fleet_proto::v1 as pb;
use fleet_store::{DownloadRow, now_millis};

use crate::host::{PendingDownload, Tab};
use crate::recording::Media;

/// The capability report's entry for downloads: they are the worker's, not
/// the engine's, so the worker adds it to what the engine reports.
pub(crate) fn capability(media: Option<&Media>) -> pb::Capability {
    match media {
        Some(_) => pb::Capability {
            name: "downloads".into(),
            support: "supported".into(),
            reason: "a navigation or link click whose response is an attachment or a type the engine does not render (PDF, archives, images, CSV), or an <a download> link to the page's origin, is saved for the session (50 MiB a file, 100 MiB and 100 files a session, kept 24 h) while the page stays; servo_downloads lists them, servo_download_read reads up to 256 KiB a call, and each has a download link; tests/e2e/downloads.rs".into(),
        },
        None => pb::Capability {
            name: "downloads".into(),
            support: "unsupported".into(),
            reason: "this fleet has no object store (--object-store), so downloaded files cannot be kept".into(),
        },
    }
}

/// Stores the downloads the action's pages made; returns the rows kept. A
/// store failure is logged and told to the tab's console: the action itself
/// went through.
pub(crate) async fn store_pending(
    media: Option<&Media>,
    req: &pb::RunRequest,
    tab: &mut Tab,
) -> Vec<DownloadRow> {
    let pending = tab.take_downloads();
    let mut kept = Vec::new();
    let Some(media) = media.filter(|_| !pending.is_empty()) else {
        return kept;
    };
    let existing = match media.downloads.session_downloads(&req.session_id).await {
        Ok(rows) => rows,
        Err(e) => {
            tracing::warn!(session = %req.session_id, error = %e, "could not read the session's downloads");
            warn(tab, "downloads were not kept: storage is unavailable");
            return kept;
        }
    };
    let mut files = existing.len() as u64;
    let mut bytes: u64 = existing.iter().map(|r| r.size_bytes).sum();
    for download in pending {
        if files >= MAX_SESSION_FILES {
            warn(
                tab,
                &format!(
                    "download of {} not kept: the session already keeps {MAX_SESSION_FILES} downloads, the most it may",
                    download.file.filename
                ),
            );
            continue;
        }
        let row = store_one(media, req, download, bytes).await;
        if let Some(error) = &row.error {
            warn(
                tab,
                &format!("download of {} failed: {error}", row.filename),
            );
        }
        match media.downloads.insert_download(&row).await {
            Ok(()) => {
                files += 1;
                bytes += row.size_bytes;
                fleet_telemetry::counter!("fleet_downloads_total", "status" => row.status.clone())
                    .increment(1);
                kept.push(row);
            }
            Err(e) => {
                tracing::warn!(download = %row.id, error = %e, "could not record a download");
                warn(
                    tab,
                    &format!(
                        "download of {} not kept: storage is unavailable",
                        row.filename
                    ),
                );
                if row.status == "complete"
                    && let Err(e) = media.blobs.delete_prefix(&download_prefix(&row.id)).await
                {
                    tracing::warn!(download = %row.id, error = %e, "could not delete an unrecorded download's bytes");
                }
            }
        }
    }
    kept
}

/// Writes one download's bytes (unless it failed or would pass the
/// session's byte cap, `used` bytes being kept already) and gives its row.
async fn store_one(
    media: &Media,
    req: &pb::RunRequest,
    download: PendingDownload,
    used: u64,
) -> DownloadRow {
    let now = now_millis();
    let mut row = DownloadRow {
        id: uuid::Uuid::new_v4().to_string(),
        tenant_id: req.tenant_id.clone(),
        session_id: req.session_id.clone(),
        filename: download.file.filename,
        // An unlabelled file is served as bytes, never sniffed.
        mime_type: match download.file.mime_type {
            m if m.is_empty() => "application/octet-stream".to_owned(),
            m => m,
        },
        source_url: download.source_url,
        size_bytes: 0,
        status: "failed".into(),
        error: None,
        created_at: now,
        expires_at: now + RETENTION_MS,
    };
    let body = match download.file.bytes {
        Ok(body) => body,
        Err(e) => {
            row.error = Some(e);
            return row;
        }
    };
    let size = body.len() as u64;
    if used + size > MAX_SESSION_BYTES {
        row.error = Some(format!(
            "the session's downloads would pass {} MiB ({used} bytes kept, this file {size})",
            MAX_SESSION_BYTES >> 20
        ));
        return row;
    }
    match media.blobs.put(&download_key(&row.id), body).await {
        Ok(()) => {
            row.status = "complete".into();
            row.size_bytes = size;
        }
        Err(e) => {
            tracing::warn!(download = %row.id, error = %e, "could not store a download");
            row.error = Some("storage failed while saving the file".into());
        }
    }
    row
}

fn warn(tab: &mut Tab, text: &str) {
    tab.console_log().extend(&[pb::ConsoleEntry {
        level: "warn".into(),
        text: text.to_owned(),
    }]);
}

/// Deletes downloads past their expiry: the bytes, then the row (a row
/// whose bytes could not be deleted stays, and the next sweep tries again).
pub(crate) async fn expire(media: &Media) -> Result<(), fleet_store::StoreError> {
    for row in media.downloads.expired_downloads(now_millis()).await? {
        if let Err(e) = media.blobs.delete_prefix(&download_prefix(&row.id)).await {
            tracing::warn!(download = %row.id, error = %e, "could not delete an expired download");
            continue;
        }
        media.downloads.delete_download(&row.id).await?;
    }
    Ok(())
}
