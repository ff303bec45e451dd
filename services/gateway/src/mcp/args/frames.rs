//! Arguments of the frame tools: `frameId` as `servo_frame_list` gives it (a
//! string, or a number for a frame of the page), `script` to evaluate,
//! `maxChars` to cut a frame's HTML.

use fleet_proto::v1::{self as pb, frames::Op};
use rmcp::model::JsonObject;
use serde_json::Value;

use super::super::tools::ToolKind;
use super::{invalid, positive, string_at};
use crate::error::GatewayError;

/// The frames action of `tool` from action `i`'s fields.
pub(super) fn parse_frames(
    tool: ToolKind,
    i: usize,
    obj: &JsonObject,
) -> Result<pb::Frames, GatewayError> {
    let at = format!("actions[{i}]");
    let frame_id = || -> Result<String, GatewayError> {
        match obj.get("frameId") {
            None | Some(Value::Null) => Err(invalid(format!("{at}.frameId is required"))),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(Value::Number(n)) if n.as_u64().is_some() => Ok(n.to_string()),
            Some(_) => Err(invalid(format!(
                "{at}.frameId must be a frame id string (2, 2.1), as servo_frame_list gives it"
            ))),
        }
    };
    let op = match tool {
        ToolKind::FrameEvaluate => {
            let frame_id = frame_id()?;
            if !obj.contains_key("script") {
                return Err(invalid(format!("{at}.script is required")));
            }
            Op::Evaluate(pb::FrameEvaluate {
                frame_id,
                script: string_at(obj, "script", &at)?,
            })
        }
        ToolKind::FrameHtml | ToolKind::PageHtml => Op::Html(pb::FrameHtml {
            frame_id: if tool == ToolKind::PageHtml {
                String::new()
            } else {
                frame_id()?
            },
            max_chars: positive(
                obj.get("maxChars"),
                &format!("{at}.maxChars"),
                fleet_proto::MAX_FRAME_HTML_CHARS as usize,
            )?,
        }),
        _ => Op::List(pb::FrameList {}),
    };
    Ok(pb::Frames { op: Some(op) })
}
