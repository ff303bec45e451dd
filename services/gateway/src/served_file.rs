//! What the file routes (`GET /recordings/{id}`, `GET /downloads/{id}`)
//! share: who may read (the owning tenant's key, or a signed, expiring
//! token in the URL, since a link carries no key), and serving a stored
//! object as an attachment with single byte ranges, so players can seek
//! and large files resume.

use axum::body::Body;
use axum::response::{IntoResponse as _, Response};
use fleet_media::{BlobError, Blobs, Signer};
use fleet_store::{StoreError, now_millis};
use http::{HeaderMap, HeaderValue, StatusCode, header};

use crate::auth::Auth;

/// `?token=` of a signed link.
#[derive(serde::Deserialize)]
pub(crate) struct LinkQuery {
    pub token: Option<String>,
}

/// Who asks for a file: the request's headers (a key) and query (a token).
pub(crate) struct Asker<'a> {
    pub auth: &'a Auth,
    pub headers: &'a HeaderMap,
    pub query: &'a LinkQuery,
}

/// The row the store `found`, when the asker may read it (a valid token
/// for `signed_id`, or the owner's key) and it is `servable`. Otherwise one
/// 404 saying `missing` (an unknown ID, another tenant's and a bad link
/// look the same), the auth layer's own refusal (no key, a bad key), or the
/// store's failure.
pub(crate) async fn admit<R>(
    asker: &Asker<'_>,
    found: Result<Option<R>, StoreError>,
    (signer, signed_id): (&Signer, &str),
    owner: impl Fn(&R) -> &str,
    servable: impl Fn(&R) -> bool,
    missing: &str,
) -> Result<R, Response> {
    let row = found.map_err(|e| crate::GatewayError::Store(e).to_http(false))?;
    let allowed = match (&asker.query.token, &row) {
        (Some(token), _) => signer.check(signed_id, token, now_millis()),
        (None, Some(row)) => {
            let tenant = crate::auth::tenant_of(asker.auth, asker.headers, false).await?;
            tenant.id == owner(row)
        }
        (None, None) => false,
    };
    row.filter(|r| allowed && servable(r))
        .ok_or_else(|| plain(StatusCode::NOT_FOUND, missing))
}

/// A JSON error body with `status`.
pub(crate) fn plain(status: StatusCode, message: &str) -> Response {
    let body = serde_json::json!({"error": message}).to_string();
    let mut r = (status, body).into_response();
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

/// An object to serve.
pub(crate) struct ServedFile<'a> {
    /// Its key in the object store.
    pub key: String,
    /// Its size, from its row (written from the same bytes), so a download
    /// costs one read of the store, not a HEAD first.
    pub size: u64,
    /// `Content-Type`.
    pub content_type: &'a str,
    /// The name a browser saves it under.
    pub filename: &'a str,
}

/// A `Range: bytes=…` header's one range over `size` bytes: `Ok(None)` for
/// the whole file, `Err` when it cannot be satisfied.
fn byte_range(headers: &HeaderMap, size: u64) -> Result<Option<(u64, u64)>, ()> {
    let Some(v) = headers.get(header::RANGE) else {
        return Ok(None);
    };
    let spec = v.to_str().map_err(|_| ())?.trim();
    let spec = spec.strip_prefix("bytes=").ok_or(())?;
    // One range only; a multipart answer is not worth it for players.
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

/// `attachment` with the name: ASCII in `filename` (others replaced), the
/// exact name in `filename*` (RFC 6266) when it is not plain ASCII.
fn disposition(filename: &str) -> Option<HeaderValue> {
    let ascii: String = filename
        .chars()
        .map(|c| {
            if (c.is_ascii_graphic() && c != '"' && c != '\\') || c == ' ' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut value = format!("attachment; filename=\"{ascii}\"");
    if ascii != filename {
        let encoded: String = filename
            .bytes()
            .map(|b| {
                if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                    char::from(b).to_string()
                } else {
                    format!("%{b:02X}")
                }
            })
            .collect();
        value.push_str(&format!("; filename*=UTF-8''{encoded}"));
    }
    HeaderValue::from_str(&value).ok()
}

/// Serves `file` from `blobs`: the whole of it, or the one range asked for
/// (206, or 416 when it cannot be satisfied); 410 when the bytes are gone.
pub(crate) async fn serve(blobs: &Blobs, headers: &HeaderMap, file: &ServedFile<'_>) -> Response {
    let size = file.size;
    let range = match byte_range(headers, size) {
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
        match blobs.get_range(&file.key, start..end + 1).await {
            Ok(b) => b,
            Err(BlobError::NotFound(_)) => {
                return plain(StatusCode::GONE, "the file is gone");
            }
            Err(e) => {
                tracing::error!(key = %file.key, error = %e, "reading a stored file");
                return plain(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "storage is unavailable; try again shortly",
                );
            }
        }
    };
    let mut r = (status, Body::from(bytes)).into_response();
    let h = r.headers_mut();
    let content_type = HeaderValue::from_str(file.content_type)
        .unwrap_or(HeaderValue::from_static("application/octet-stream"));
    h.insert(header::CONTENT_TYPE, content_type);
    h.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    // A page's file is served from the gateway's origin: never sniffed,
    // never run, always saved.
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("sandbox"),
    );
    if let Some(v) = disposition(file.filename) {
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

    #[test]
    fn a_name_that_is_not_ascii_goes_in_filename_star() {
        assert_eq!(
            disposition("a b.pdf").expect("header"),
            "attachment; filename=\"a b.pdf\""
        );
        assert_eq!(
            disposition("€ rates.csv").expect("header"),
            "attachment; filename=\"_ rates.csv\"; filename*=UTF-8''%E2%82%AC%20rates.csv"
        );
    }
}
