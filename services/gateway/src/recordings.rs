//! Recordings at the gateway: their status and download links, answered from
//! the store (no worker, no session: a recording outlives its session), and
//! the download route `GET /recordings/{id}`, which takes the tenant's key or
//! a signed, expiring token in the URL and serves byte ranges so players can
//! seek. Capture and encoding are the workers'.

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse as _, Response};
use axum::routing::get;
use fleet_media::blobs::video_key;
use fleet_media::{BlobError, Media, Signer};
use fleet_proto::v1::{self as pb, ActionError, ErrorCode};
use fleet_store::{RecordingRow, Tenant, now_millis};
use http::{HeaderMap, HeaderValue, StatusCode, header};

use crate::auth::Auth;

/// Recordings' rows, bytes and links, as a gateway serves them.
#[derive(Clone)]
pub struct Recordings {
    media: Media,
    signer: Signer,
    /// The base of download links, no trailing slash.
    public_url: String,
}

fn not_found(id: &str) -> ActionError {
    ActionError {
        message: format!("no recording {id:?} was found for this tenant"),
        code: ErrorCode::RecordingNotFound as i32,
    }
}

impl Recordings {
    /// Serves `media`, signing links with `signer` under `public_url`.
    pub fn new(media: Media, signer: Signer, public_url: &str) -> Self {
        Self {
            media,
            signer,
            public_url: public_url.trim_end_matches('/').to_owned(),
        }
    }

    /// The tenant's recording `id` (an expired one too, for a day after its
    /// file went); another tenant's is not found, as an unknown one is.
    async fn row(&self, tenant: &Tenant, id: &str) -> Result<RecordingRow, ActionError> {
        match self.media.recordings.recording(id).await {
            Ok(Some(row)) if row.tenant_id == tenant.id => Ok(row),
            Ok(_) => Err(not_found(id)),
            Err(e) => Err(crate::dispatch::store_fail(e)),
        }
    }

    /// A status or download action.
    pub(crate) async fn answer(
        &self,
        tenant: &Tenant,
        op: pb::recording::Op,
    ) -> Result<pb::RecordingResult, ActionError> {
        match op {
            pb::recording::Op::Status(s) => Ok(fleet_media::result(
                &self.row(tenant, &s.recording_id).await?,
            )),
            pb::recording::Op::Download(d) => {
                let row = self.row(tenant, &d.recording_id).await?;
                let mut result = fleet_media::result(&row);
                if row.status == "ready" {
                    let token = self.signer.token(&row.id, row.expires_at);
                    result.download_url = Some(format!(
                        "{}/recordings/{}?token={token}",
                        self.public_url, row.id
                    ));
                }
                Ok(result)
            }
            pb::recording::Op::Start(_) | pb::recording::Op::Stop(_) => Err(ActionError {
                message: "recording start and stop run on the session's worker".into(),
                code: ErrorCode::Internal as i32,
            }),
        }
    }

    /// Ends capture of a closed session's recordings; a worker's sweeper
    /// encodes them, and they stay downloadable until they expire.
    pub(crate) async fn session_closed(&self, session_id: &str) {
        if let Err(e) = self
            .media
            .recordings
            .stop_session_recordings(session_id, now_millis())
            .await
        {
            tracing::warn!(session = %session_id, error = %e, "could not stop a closed session's recordings");
        }
    }

    /// `GET /recordings/{id}`: outside the auth layer, because a signed link
    /// carries no key; the handler checks the key or the token itself.
    pub fn router(self, auth: Auth) -> Router {
        Router::new()
            .route("/recordings/{id}", get(download))
            .with_state((Arc::new(self), auth))
    }
}

/// `?token=` of a signed link.
#[derive(serde::Deserialize)]
struct LinkQuery {
    token: Option<String>,
}

fn plain(status: StatusCode, message: &str) -> Response {
    let body = serde_json::json!({"error": message}).to_string();
    let mut r = (status, body).into_response();
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

/// A `Range: bytes=…` header's one range over `size` bytes: `Ok(None)` for
/// the whole file, `Err` when it cannot be satisfied.
fn byte_range(headers: &HeaderMap, size: u64) -> Result<Option<(u64, u64)>, ()> {
    let Some(v) = headers.get(header::RANGE) else {
        return Ok(None);
    };
    let spec = v.to_str().map_err(|_| ())?.trim();
    let spec = spec.strip_prefix("bytes=").ok_or(())?;
    // One range only; a multipart answer is not worth it for video players.
    if spec.contains(',') {
        return Err(());
    }
    let (start, end) = spec.split_once('-').ok_or(())?;
    let (start, end) = match (start.trim(), end.trim()) {
        ("", "") => return Err(()),
        ("", suffix) => {
            let n: u64 = suffix.parse().map_err(|_| ())?;
            if n == 0 {
                return Err(());
            }
            (size.saturating_sub(n), size.saturating_sub(1))
        }
        (s, "") => (s.parse().map_err(|_| ())?, size.saturating_sub(1)),
        (s, e) => {
            let (s, e): (u64, u64) = (s.parse().map_err(|_| ())?, e.parse().map_err(|_| ())?);
            (s, e.min(size.saturating_sub(1)))
        }
    };
    if size == 0 || start >= size || end < start {
        return Err(());
    }
    Ok(Some((start, end)))
}

async fn download(
    State((recordings, auth)): State<(Arc<Recordings>, Auth)>,
    Path(id): Path<String>,
    Query(query): Query<LinkQuery>,
    headers: HeaderMap,
) -> Response {
    let row = match recordings.media.recordings.recording(&id).await {
        Ok(row) => row,
        Err(e) => return crate::GatewayError::Store(e).to_http(false),
    };
    let allowed = match (&query.token, &row) {
        (Some(token), _) => recordings.signer.check(&id, token, now_millis()),
        (None, Some(row)) => match crate::auth::tenant_of(&auth, &headers, false).await {
            Ok(tenant) => tenant.id == row.tenant_id,
            Err(refused) => return refused,
        },
        (None, None) => false,
    };
    // An unknown ID, another tenant's and a bad link look the same.
    let Some(row) = row.filter(|r| allowed && r.status == "ready") else {
        return plain(
            StatusCode::NOT_FOUND,
            "no such recording, or it is not ready, or the link is not valid",
        );
    };
    let key = video_key(&row.id);
    // The row says how big the file is (it was written from the same bytes),
    // so a download costs one read of the store, not a HEAD first.
    let size = row.size_bytes;
    let range = match byte_range(&headers, size) {
        Ok(r) => r,
        Err(()) => {
            let mut r = plain(
                StatusCode::RANGE_NOT_SATISFIABLE,
                "the range cannot be satisfied",
            );
            if let Ok(v) = HeaderValue::from_str(&format!("bytes */{size}")) {
                r.headers_mut().insert(header::CONTENT_RANGE, v);
            }
            return r;
        }
    };
    let (status, start, end) = match range {
        Some((s, e)) => (StatusCode::PARTIAL_CONTENT, s, e),
        None => (StatusCode::OK, 0, size.saturating_sub(1)),
    };
    let bytes = if size == 0 {
        bytes::Bytes::new()
    } else {
        match recordings.media.blobs.get_range(&key, start..end + 1).await {
            Ok(b) => b,
            Err(BlobError::NotFound(_)) => {
                return plain(StatusCode::GONE, "the recording's file is gone");
            }
            Err(e) => {
                tracing::error!(recording = %row.id, error = %e, "reading a recording");
                return plain(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "storage is unavailable; try again shortly",
                );
            }
        }
    };
    let mut r = (status, Body::from(bytes)).into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("video/mp4"));
    h.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if let Ok(v) = HeaderValue::from_str(&format!(
        "attachment; filename=\"{}\"",
        fleet_proto::recording::filename(&row.id)
    )) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    if status == StatusCode::PARTIAL_CONTENT
        && let Ok(v) = HeaderValue::from_str(&format!("bytes {start}-{end}/{size}"))
    {
        h.insert(header::CONTENT_RANGE, v);
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(v: &str, size: u64) -> Result<Option<(u64, u64)>, ()> {
        let mut h = HeaderMap::new();
        h.insert(header::RANGE, HeaderValue::from_str(v).expect("header"));
        byte_range(&h, size)
    }

    #[test]
    fn byte_ranges_are_read_as_players_send_them() {
        assert_eq!(byte_range(&HeaderMap::new(), 10), Ok(None));
        assert_eq!(range("bytes=0-", 10), Ok(Some((0, 9))));
        assert_eq!(range("bytes=2-5", 10), Ok(Some((2, 5))));
        assert_eq!(range("bytes=8-100", 10), Ok(Some((8, 9))));
        assert_eq!(range("bytes=-3", 10), Ok(Some((7, 9))));
        assert_eq!(range("bytes=10-", 10), Err(()));
        assert_eq!(range("bytes=5-2", 10), Err(()));
        assert_eq!(range("bytes=0-1,4-5", 10), Err(()));
        assert_eq!(range("items=0-1", 10), Err(()));
    }
}
