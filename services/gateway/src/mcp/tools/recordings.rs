//! The rows of the recording tools (Servo MCP's `servo_recording_start`,
//! `_stop`, `_status` and `_download`): H.264 MP4 video of a session, frames
//! captured after each action, encoded off the call path, downloaded with a
//! signed link.

use fleet_proto::recording::{
    DEFAULT_DURATION_SECONDS, DEFAULT_FPS, MAX_DURATION_SECONDS, MAX_FPS, MIN_DURATION_SECONDS,
    MIN_FPS,
};
use serde_json::{Value, json};

use super::{ACTS, READS, Sessions, Spec, ToolKind, state_tool};

/// `servo_recording_start`.
pub(super) const START: Spec = state_tool(
    ToolKind::RecordingStart,
    "servo_recording_start",
    "Start a screen recording of a session: H.264 MP4, at most 960×540, fps frames per second (1–3, default 2), stopping by itself after maxDurationSeconds (1–60, default 30). A frame is captured after each action that changes the page. One recording in progress per session; it continues if the session moves to another worker. Returns recordingId.",
    Sessions::Existing,
    ACTS,
    start_fields,
);

/// `servo_recording_stop`.
pub(super) const STOP: Spec = state_tool(
    ToolKind::RecordingStop,
    "servo_recording_stop",
    "Stop a session's recording; encoding starts at once (poll servo_recording_status until status is ready).",
    Sessions::Existing,
    ACTS,
    || id_fields(vec!["sessionID", "recordingId"]),
);

/// `servo_recording_status`.
pub(super) const STATUS: Spec = state_tool(
    ToolKind::RecordingStatus,
    "servo_recording_status",
    "Read a recording's state: status (recording, encoding, ready, failed, expired), capturedFrames, targetFrames, width, height, sizeBytes and its times. Works after the session is closed.",
    Sessions::Existing,
    READS,
    || id_fields(vec!["recordingId"]),
);

/// `servo_recording_download`.
pub(super) const DOWNLOAD: Spec = state_tool(
    ToolKind::RecordingDownload,
    "servo_recording_download",
    "A download link for a ready recording (downloadUrl, a bearer link signed to expire with the recording, 24 h after it was encoded; do not share it), with filename servo-recording-{id}.mp4 and mimeType video/mp4. The link serves byte ranges.",
    Sessions::Existing,
    READS,
    || id_fields(vec!["recordingId"]),
);

fn start_fields() -> (Value, Vec<&'static str>) {
    (
        json!({
            "fps": {"type": "integer", "minimum": MIN_FPS, "maximum": MAX_FPS, "default": DEFAULT_FPS, "description": "Frames per second in the file."},
            "maxDurationSeconds": {"type": "integer", "minimum": MIN_DURATION_SECONDS, "maximum": MAX_DURATION_SECONDS, "default": DEFAULT_DURATION_SECONDS, "description": "The recording stops by itself after this long."}
        }),
        vec!["sessionID"],
    )
}

fn id_fields(required: Vec<&'static str>) -> (Value, Vec<&'static str>) {
    (
        json!({
            "recordingId": {"type": "string", "format": "uuid", "description": "The recording's ID, as servo_recording_start returned it."}
        }),
        required,
    )
}
