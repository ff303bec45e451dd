//! Recordings at the gateway: their status and download links, answered from
//! the store (no worker, no session: a recording outlives its session), and
//! the download route `GET /recordings/{id}`, which takes the tenant's key or
//! a signed, expiring token in the URL and serves byte ranges so players can
//! seek. Capture and encoding are the workers'.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::response::Response;
use axum::routing::get;
use fleet_media::blobs::video_key;
use fleet_media::{Media, Signer};
use fleet_proto::v1::{self as pb, ActionError, ErrorCode};
use fleet_store::{RecordingRow, Tenant, now_millis};
use http::HeaderMap;

use crate::auth::Auth;
use crate::served_file::{self, Asker, LinkQuery, ServedFile};

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

    /// The downloads' face of the same store, signer and links.
    pub fn downloads(&self) -> crate::downloads::Downloads {
        crate::downloads::Downloads::new(self.media.clone(), self.signer.clone(), &self.public_url)
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

async fn download(
    State((recordings, auth)): State<(Arc<Recordings>, Auth)>,
    Path(id): Path<String>,
    Query(query): Query<LinkQuery>,
    headers: HeaderMap,
) -> Response {
    let asker = Asker {
        auth: &auth,
        headers: &headers,
        query: &query,
    };
    let row = match served_file::admit(
        &asker,
        recordings.media.recordings.recording(&id).await,
        (&recordings.signer, &id),
        |r| r.tenant_id.as_str(),
        |r| r.status == "ready",
        "no such recording, or it is not ready, or the link is not valid",
    )
    .await
    {
        Ok(row) => row,
        Err(refused) => return refused,
    };
    served_file::serve(
        &recordings.media.blobs,
        &headers,
        &ServedFile {
            key: video_key(&row.id),
            size: row.size_bytes,
            content_type: "video/mp4",
            filename: &fleet_proto::recording::filename(&row.id),
        },
    )
    .await
}
