//! Downloads at the gateway: a session's list of downloaded files and reads
//! of their bytes, answered from the store (no worker, no session: a file
//! outlives its session's close until it expires), and the route
//! `GET /downloads/{id}`, which takes the tenant's key or a signed, expiring
//! token in the URL. Saving downloads is the workers'.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, Query, State};
use axum::response::Response;
use axum::routing::get;
use base64::Engine as _;
use fleet_media::blobs::download_key;
use fleet_media::{BlobError, Media, Signer, download_info};
use fleet_proto::download::MAX_READ_BYTES;
use fleet_proto::v1::{self as pb, ActionError, ErrorCode};
use fleet_store::{DownloadRow, Tenant};
use http::HeaderMap;

use crate::auth::Auth;
use crate::served_file::{self, Asker, LinkQuery, ServedFile};

/// Downloads' rows, bytes and links, as a gateway serves them.
#[derive(Clone)]
pub struct Downloads {
    media: Media,
    signer: Signer,
    /// The base of download links, no trailing slash.
    public_url: String,
}

/// What a download's link signs: distinct from a recording's, so one kind of
/// token never opens the other.
fn signed_id(id: &str) -> String {
    format!("download:{id}")
}

fn not_found(id: &str) -> ActionError {
    ActionError {
        message: format!("no download {id:?} was found for this tenant"),
        code: ErrorCode::DownloadNotFound as i32,
    }
}

fn invalid(message: String) -> ActionError {
    ActionError {
        message,
        code: ErrorCode::InvalidArgument as i32,
    }
}

impl Downloads {
    /// Serves `media`, signing links with `signer` under `public_url`.
    pub fn new(media: Media, signer: Signer, public_url: &str) -> Self {
        Self {
            media,
            signer,
            public_url: public_url.trim_end_matches('/').to_owned(),
        }
    }

    fn info(&self, row: &DownloadRow) -> pb::DownloadInfo {
        let mut info = download_info(row);
        if row.status == "complete" {
            info.download_url = Some(self.link(&row.id, row.expires_at));
        }
        info
    }

    /// The signed link to download `id` until `expires_at` (Unix ms).
    fn link(&self, id: &str, expires_at: i64) -> String {
        let token = self.signer.token(&signed_id(id), expires_at);
        format!("{}/downloads/{id}?token={token}", self.public_url)
    }

    /// Adds the signed link to a download a worker announced (a watcher
    /// gets it as `servo_downloads` would give it).
    pub(crate) fn sign(&self, info: &mut pb::DownloadInfo) {
        let expires =
            chrono::DateTime::parse_from_rfc3339(&info.expires_at).map(|t| t.timestamp_millis());
        if let (true, Ok(expires)) = (info.status == "complete", expires) {
            info.download_url = Some(self.link(&info.download_id, expires));
        }
    }

    /// A list or read action; `session_id` is the action's session, used
    /// when the list names none.
    pub(crate) async fn answer(
        &self,
        tenant: &Tenant,
        session_id: &str,
        op: pb::downloads::Op,
    ) -> Result<pb::DownloadsResult, ActionError> {
        match op {
            pb::downloads::Op::List(list) => {
                let session = if list.session_id.is_empty() {
                    session_id
                } else {
                    &list.session_id
                };
                let rows = self
                    .media
                    .downloads
                    .session_downloads(session)
                    .await
                    .map_err(crate::dispatch::store_fail)?;
                Ok(pb::DownloadsResult {
                    downloads: rows
                        .iter()
                        .filter(|r| r.tenant_id == tenant.id)
                        .map(|r| self.info(r))
                        .collect(),
                    chunk: None,
                })
            }
            pb::downloads::Op::Read(read) => {
                let row = match self.media.downloads.download(&read.download_id).await {
                    Ok(Some(row)) if row.tenant_id == tenant.id => row,
                    Ok(_) => return Err(not_found(&read.download_id)),
                    Err(e) => return Err(crate::dispatch::store_fail(e)),
                };
                if row.status != "complete" {
                    return Err(invalid(format!(
                        "download {:?} failed and has no bytes: {}",
                        row.id,
                        row.error.as_deref().unwrap_or("unknown reason")
                    )));
                }
                let length = match read.length {
                    0 => MAX_READ_BYTES,
                    n => n.min(MAX_READ_BYTES),
                };
                if read.offset > row.size_bytes {
                    return Err(invalid(format!(
                        "offset {} is past the end of the file ({} bytes)",
                        read.offset, row.size_bytes
                    )));
                }
                let end = (read.offset + u64::from(length)).min(row.size_bytes);
                let bytes = if end == read.offset {
                    bytes::Bytes::new()
                } else {
                    match self
                        .media
                        .blobs
                        .get_range(&download_key(&row.id), read.offset..end)
                        .await
                    {
                        Ok(b) => b,
                        Err(BlobError::NotFound(_)) => {
                            return Err(not_found(&read.download_id));
                        }
                        Err(e) => {
                            tracing::error!(download = %row.id, error = %e, "reading a download");
                            return Err(ActionError {
                                message: "storage is unavailable; try again shortly".into(),
                                code: ErrorCode::Unavailable as i32,
                            });
                        }
                    }
                };
                let chunk = chunk(&row, read.offset, &bytes, &read.encoding).map_err(invalid)?;
                Ok(pb::DownloadsResult {
                    downloads: vec![self.info(&row)],
                    chunk: Some(chunk),
                })
            }
        }
    }

    /// `GET /downloads/{id}`: outside the auth layer, because a signed link
    /// carries no key; the handler checks the key or the token itself.
    pub fn router(self, auth: Auth) -> Router {
        Router::new()
            .route("/downloads/{id}", get(serve))
            .with_state((Arc::new(self), auth))
    }
}

/// Whether a type is text a reader wants as text.
fn textual(mime: &str) -> bool {
    mime.starts_with("text/")
        || matches!(
            mime,
            "application/json" | "application/xml" | "application/javascript" | "image/svg+xml"
        )
        || mime.ends_with("+json")
        || mime.ends_with("+xml")
}

/// `bytes`, read at `offset` of `row`'s file, in the encoding asked for
/// (empty: text for a text type that decodes, base64 otherwise). Text ends
/// at the last whole character, so the next read starts at
/// `offset + length`; text that does not decode is refused, naming base64.
fn chunk(
    row: &DownloadRow,
    offset: u64,
    bytes: &[u8],
    encoding: &str,
) -> Result<pb::DownloadChunk, String> {
    let eof_at = |len: usize| offset + len as u64 >= row.size_bytes;
    let as_text = |strict: bool| -> Result<Option<(String, usize)>, String> {
        match std::str::from_utf8(bytes) {
            Ok(text) => Ok(Some((text.to_owned(), bytes.len()))),
            // A character cut by the range's end: stop before it.
            Err(e) if e.error_len().is_none() && !eof_at(bytes.len()) => {
                let n = e.valid_up_to();
                Ok(Some((String::from_utf8_lossy(&bytes[..n]).into_owned(), n)))
            }
            Err(e) if strict => Err(format!(
                "the bytes at offset {} are not UTF-8 text; read them with encoding \"base64\"",
                offset + e.valid_up_to() as u64
            )),
            Err(_) => Ok(None),
        }
    };
    let (encoding, content, len) = match encoding {
        "text" => {
            let (text, n) = as_text(true)?.unwrap_or_default();
            ("text", text, n)
        }
        "base64" => (
            "base64",
            base64::engine::general_purpose::STANDARD.encode(bytes),
            bytes.len(),
        ),
        "" => match as_text(false)?.filter(|_| textual(&row.mime_type)) {
            Some((text, n)) => ("text", text, n),
            None => (
                "base64",
                base64::engine::general_purpose::STANDARD.encode(bytes),
                bytes.len(),
            ),
        },
        other => {
            return Err(format!(
                "encoding must be \"text\" or \"base64\"; got {:?}",
                other.chars().take(32).collect::<String>()
            ));
        }
    };
    Ok(pb::DownloadChunk {
        download_id: row.id.clone(),
        offset,
        length: u32::try_from(len).unwrap_or(u32::MAX),
        total_bytes: row.size_bytes,
        encoding: encoding.into(),
        content,
        eof: eof_at(len),
    })
}

async fn serve(
    State((downloads, auth)): State<(Arc<Downloads>, Auth)>,
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
        downloads.media.downloads.download(&id).await,
        (&downloads.signer, &signed_id(&id)),
        |r| r.tenant_id.as_str(),
        |r| r.status == "complete",
        "no such download, or it failed, or the link is not valid",
    )
    .await
    {
        Ok(row) => row,
        Err(refused) => return refused,
    };
    served_file::serve(
        &downloads.media.blobs,
        &headers,
        &ServedFile {
            key: download_key(&row.id),
            size: row.size_bytes,
            content_type: &row.mime_type,
            filename: &row.filename,
        },
    )
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(mime: &str, size: u64) -> DownloadRow {
        DownloadRow {
            id: "d".into(),
            tenant_id: "t".into(),
            session_id: "s".into(),
            filename: "f".into(),
            mime_type: mime.into(),
            source_url: "http://example.test/f".into(),
            size_bytes: size,
            status: "complete".into(),
            error: None,
            created_at: 0,
            expires_at: 1,
        }
    }

    #[test]
    fn text_reads_stop_before_a_cut_character_so_the_next_read_continues() {
        let text = "a€b".as_bytes(); // 1 + 3 + 1 bytes
        let r = row("text/csv", text.len() as u64);
        let first = chunk(&r, 0, &text[..2], "").unwrap();
        assert_eq!(
            (
                first.encoding.as_str(),
                first.content.as_str(),
                first.length,
                first.eof
            ),
            ("text", "a", 1, false)
        );
        let next = chunk(&r, 1, &text[1..], "text").unwrap();
        assert_eq!((next.content.as_str(), next.eof), ("€b", true));
    }

    #[test]
    fn binary_is_base64_unless_text_is_asked_for_which_is_refused() {
        let png = [0x89, b'P', b'N', b'G', 0xff, 0x00];
        let r = row("image/png", png.len() as u64);
        let auto = chunk(&r, 0, &png, "").unwrap();
        assert_eq!(
            (auto.encoding.as_str(), auto.content.as_str()),
            ("base64", "iVBOR/8A")
        );
        let err = chunk(&r, 0, &png, "text").unwrap_err();
        assert!(err.contains("offset 0") && err.contains("base64"), "{err}");
        assert!(
            chunk(&r, 0, &png, "hex")
                .unwrap_err()
                .contains("\"text\" or \"base64\"")
        );
        // Valid UTF-8 of a binary type stays base64 unless text is asked for.
        let r = row("application/pdf", 3);
        assert_eq!(chunk(&r, 0, b"abc", "").unwrap().encoding, "base64");
        assert_eq!(chunk(&r, 0, b"abc", "text").unwrap().content, "abc");
    }
}
