//! The rows of the downloads tools: the files a session's pages downloaded
//! (an attachment, a type the engine does not render, an `<a download>`
//! link), listed with a link each and read in ranges as text or base64.

use fleet_proto::download::MAX_READ_BYTES;
use serde_json::{Value, json};

use super::{READS, Sessions, Spec, ToolKind, state_tool};

/// `servo_downloads`.
pub(super) const LIST: Spec = state_tool(
    ToolKind::Downloads,
    "servo_downloads",
    "List the files a session's pages downloaded, oldest first: a navigation or link click whose response is an attachment or a type the browser does not render (PDF, archives, images, CSV), or an <a download> link, saves the file here while the page stays where it was. Each has downloadId, filename, mimeType, sizeBytes, sourceUrl, status (complete, or failed with error), createdAt, expiresAt (kept 24 h; at most 50 MiB a file, 100 MiB and 100 files a session) and downloadUrl (a bearer link serving byte ranges; do not share it). Works after the session is closed.",
    Sessions::Existing,
    READS,
    || (json!({}), vec!["sessionID"]),
);

/// `servo_download_read`.
pub(super) const READ: Spec = state_tool(
    ToolKind::DownloadRead,
    "servo_download_read",
    "Read up to 256 KiB of a downloaded file from offset: as text (UTF-8; a read ends before a character cut by its end, so the next read starts at offset + length) or base64. Without encoding, text types that decode come back as text and everything else as base64. Returns content, length, totalBytes and eof.",
    Sessions::Existing,
    READS,
    read_fields,
);

fn read_fields() -> (Value, Vec<&'static str>) {
    (
        json!({
            "downloadId": {"type": "string", "format": "uuid", "description": "The download's ID, as servo_downloads listed it."},
            "offset": {"type": "integer", "minimum": 0, "default": 0, "description": "The first byte to read."},
            "length": {"type": "integer", "minimum": 1, "maximum": MAX_READ_BYTES, "default": MAX_READ_BYTES, "description": "Most bytes to read."},
            "encoding": {"type": "string", "enum": ["text", "base64"], "description": "How to return the bytes; without it, the file's type decides."}
        }),
        vec!["downloadId"],
    )
}
