//! The rules of a downloads action (`Downloads`): a list names its session
//! (in the operation or the action); a read names a download by its UUID,
//! reads at most `fleet_proto::download::MAX_READ_BYTES` (0 takes that) and
//! asks for text, base64 or neither (the type decides).

use fleet_proto::download::{ENCODINGS, MAX_READ_BYTES};
use fleet_proto::v1::{self as pb, downloads::Op};

use crate::error::GatewayError;

/// Checks action `i`, a downloads action naming `session_id`.
pub(super) fn validate_downloads(
    i: usize,
    session_id: &str,
    d: &pb::Downloads,
) -> Result<(), GatewayError> {
    let invalid = |m: String| Err(GatewayError::Invalid(m));
    match &d.op {
        None => invalid(format!("actions[{i}] names no downloads operation")),
        Some(Op::List(list)) => {
            if list.session_id.is_empty() && session_id.is_empty() {
                return invalid(format!(
                    "actions[{i}].sessionID is required: it names the session whose downloads to list"
                ));
            }
            Ok(())
        }
        Some(Op::Read(read)) => {
            if uuid::Uuid::parse_str(&read.download_id).is_err() {
                return invalid(format!(
                    "actions[{i}].downloadId must be a download UUID, as servo_downloads listed it; got {:?}",
                    read.download_id.chars().take(64).collect::<String>()
                ));
            }
            if read.length > MAX_READ_BYTES {
                return invalid(format!(
                    "actions[{i}].length must be 1 to {MAX_READ_BYTES} bytes (256 KiB); got {}",
                    read.length
                ));
            }
            if !read.encoding.is_empty() && !ENCODINGS.contains(&read.encoding.as_str()) {
                return invalid(format!(
                    "actions[{i}].encoding must be \"text\" or \"base64\"; got {:?}",
                    read.encoding.chars().take(32).collect::<String>()
                ));
            }
            Ok(())
        }
    }
}
