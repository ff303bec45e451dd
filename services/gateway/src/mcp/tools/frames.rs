//! The rows of the frame tools (the Go browser MCP server's `frame_list`,
//! `frame_eval`, `frame_get_html` and `page_get_html`): a session's frames
//! with their ids, a script evaluated in one, one's HTML or the page's.

use serde_json::{Value, json};

use super::super::schema::duration;
use super::{READS, Sessions, Spec, ToolKind, state_tool};

/// `servo_frame_list`.
pub(super) const LIST: Spec = state_tool(
    ToolKind::FrameList,
    "servo_frame_list",
    "List the frames of a session's page (iframe and frame elements, nested ones after their parent) as {id, parentId, url, name, title, loaded, sameOrigin}. Same-origin frames' scripts have run; ids (2, 2.1) name frames in servo_frame_evaluate and servo_frame_get_html.",
    Sessions::Existing,
    READS,
    || (json!({"maxDurationMs": duration()}), vec!["sessionID"]),
);

/// `servo_frame_evaluate`: a script, so it reaches as far as `servo_evaluate`.
pub(super) const EVALUATE: Spec = Spec {
    kind: ToolKind::FrameEvaluate,
    name: "servo_frame_evaluate",
    description: "Evaluate JavaScript in a frame of a session's page (its window and document; a same-origin frame's realm is the one its scripts ran in) and return the completion value as JSON (promises are awaited). Side effects are kept.",
    sessions: Sessions::Existing,
    read_only: false,
    open_world: false,
    outside: true,
    idempotent: false,
    destructive: false,
    fields: evaluate_fields,
};

/// `servo_frame_get_html`.
pub(super) const HTML: Spec = state_tool(
    ToolKind::FrameHtml,
    "servo_frame_get_html",
    "Read a frame's document as HTML as it is now (what its scripts changed included), cut at maxChars (default and most 200000).",
    Sessions::Existing,
    READS,
    html_fields,
);

/// `servo_get_html`: the Go browser MCP server's `page_get_html`, the page's
/// own document as a frame read.
pub(super) const PAGE_HTML: Spec = state_tool(
    ToolKind::PageHtml,
    "servo_get_html",
    "Read the page's document as HTML as it is now (what its scripts changed included; frames' documents are servo_frame_get_html's), cut at maxChars (default and most 200000).",
    Sessions::Existing,
    READS,
    page_html_fields,
);

fn frame_id() -> Value {
    json!({"type": ["string", "integer"], "maxLength": 64, "description": "The frame's id as servo_frame_list gives it (2, 2.1)."})
}

fn evaluate_fields() -> (Value, Vec<&'static str>) {
    (
        json!({
            "frameId": frame_id(),
            "script": {"type": "string", "description": "JavaScript, at most 64 KiB."},
            "maxDurationMs": duration()
        }),
        vec!["sessionID", "frameId", "script"],
    )
}

fn html_fields() -> (Value, Vec<&'static str>) {
    (
        json!({
            "frameId": frame_id(),
            "maxChars": max_chars(),
            "maxDurationMs": duration()
        }),
        vec!["sessionID", "frameId"],
    )
}

fn max_chars() -> Value {
    json!({"type": "integer", "minimum": 1, "maximum": fleet_proto::MAX_FRAME_HTML_CHARS, "default": fleet_proto::MAX_FRAME_HTML_CHARS})
}

fn page_html_fields() -> (Value, Vec<&'static str>) {
    (
        json!({"maxChars": max_chars(), "maxDurationMs": duration()}),
        vec!["sessionID"],
    )
}
