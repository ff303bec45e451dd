//! The rules of a recording action (`Recording`): start and stop name the
//! session recorded; fps and the duration are within
//! `fleet_proto::recording`'s bounds (0 takes the default); a recording ID
//! is a UUID. Status and download name a recording only: it outlives its
//! session.

use fleet_proto::recording::{MAX_DURATION_SECONDS, MAX_FPS, MIN_DURATION_SECONDS, MIN_FPS};
use fleet_proto::v1::{self as pb, recording::Op};

use crate::error::GatewayError;

/// Checks action `i`, a recording action naming `session_id`.
pub(super) fn validate_recording(
    i: usize,
    session_id: &str,
    r: &pb::Recording,
) -> Result<(), GatewayError> {
    let invalid = |m: String| Err(GatewayError::Invalid(m));
    let needs_session = matches!(r.op, Some(Op::Start(_) | Op::Stop(_)));
    if needs_session && session_id.is_empty() {
        return invalid(format!(
            "actions[{i}].sessionID is required: it names the session to record"
        ));
    }
    match &r.op {
        None => invalid(format!("actions[{i}] names no recording operation")),
        Some(Op::Start(s)) => {
            if s.fps != 0 && !(MIN_FPS..=MAX_FPS).contains(&s.fps) {
                return invalid(format!(
                    "actions[{i}].fps must be {MIN_FPS} to {MAX_FPS}; got {}",
                    s.fps
                ));
            }
            if s.max_duration_seconds != 0
                && !(MIN_DURATION_SECONDS..=MAX_DURATION_SECONDS).contains(&s.max_duration_seconds)
            {
                return invalid(format!(
                    "actions[{i}].maxDurationSeconds must be {MIN_DURATION_SECONDS} to {MAX_DURATION_SECONDS}; got {}",
                    s.max_duration_seconds
                ));
            }
            Ok(())
        }
        Some(Op::Stop(pb::RecordingStop { recording_id }))
        | Some(Op::Status(pb::RecordingStatus { recording_id }))
        | Some(Op::Download(pb::RecordingDownload { recording_id })) => {
            if uuid::Uuid::parse_str(recording_id).is_err() {
                return invalid(format!(
                    "actions[{i}].recordingId must be a recording UUID, as servo_recording_start returned it; got {:?}",
                    recording_id.chars().take(64).collect::<String>()
                ));
            }
            Ok(())
        }
    }
}
