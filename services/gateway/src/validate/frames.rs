//! The rules of a frames action (`Frames`): it names an open session and an
//! operation; a frame id is positions from 1 joined by dots (`2`, `2.1`), as
//! the frame list gives them; a script is what `Evaluate` takes; an HTML read
//! asks for at most `fleet_proto::MAX_FRAME_HTML_CHARS` characters.

use fleet_proto::MAX_FRAME_HTML_CHARS;
use fleet_proto::v1::{self as pb, frames::Op};

use super::MAX_SCRIPT_BYTES;
use crate::error::GatewayError;

/// Longest frame id (eight levels of four-digit positions fit).
const MAX_FRAME_ID_CHARS: usize = 64;

/// Checks action `i`, a frames action on the session `session_id`.
pub(super) fn validate_frames(
    i: usize,
    session_id: &str,
    f: &pb::Frames,
) -> Result<(), GatewayError> {
    let invalid = |m: String| Err(GatewayError::Invalid(m));
    if session_id.is_empty() {
        return invalid(format!(
            "actions[{i}].sessionID is required: it names the session whose frames to read"
        ));
    }
    match &f.op {
        None => invalid(format!("actions[{i}] names no frames operation")),
        Some(Op::List(_)) => Ok(()),
        Some(Op::Evaluate(e)) => {
            frame_id(i, &e.frame_id)?;
            if e.script.trim().is_empty() {
                return invalid(format!("actions[{i}].script must not be empty"));
            }
            if e.script.len() > MAX_SCRIPT_BYTES {
                return invalid(format!(
                    "actions[{i}].script is {} bytes; the limit is {MAX_SCRIPT_BYTES} bytes (64 KiB)",
                    e.script.len()
                ));
            }
            Ok(())
        }
        Some(Op::Html(h)) => {
            // No frame id reads the page's own document.
            if !h.frame_id.is_empty() {
                frame_id(i, &h.frame_id)?;
            }
            if h.max_chars > MAX_FRAME_HTML_CHARS {
                return invalid(format!(
                    "actions[{i}].maxChars must be 1 to {MAX_FRAME_HTML_CHARS}; got {}",
                    h.max_chars
                ));
            }
            Ok(())
        }
    }
}

fn frame_id(i: usize, id: &str) -> Result<(), GatewayError> {
    let well_formed = !id.is_empty()
        && id.len() <= MAX_FRAME_ID_CHARS
        && id.split('.').all(|step| {
            !step.is_empty()
                && step.bytes().all(|b| b.is_ascii_digit())
                && !step.trim_start_matches('0').is_empty()
        });
    if well_formed {
        return Ok(());
    }
    Err(GatewayError::Invalid(format!(
        "actions[{i}].frameId {id:?} is not a frame id: ids are positions from 1 joined by dots (2, 2.1), as servo_frames lists them"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn html(id: &str, max_chars: u32) -> pb::Frames {
        pb::Frames {
            op: Some(Op::Html(pb::FrameHtml {
                frame_id: id.to_owned(),
                max_chars,
            })),
        }
    }

    fn message(r: Result<(), GatewayError>) -> String {
        match r {
            Err(GatewayError::Invalid(m)) => m,
            other => panic!("expected an invalid argument, got {other:?}"),
        }
    }

    #[test]
    fn frame_ids_are_positions_from_one_joined_by_dots() {
        for good in ["1", "2.1", "10.3.4"] {
            validate_frames(0, "s", &html(good, 0)).unwrap();
        }
        validate_frames(0, "s", &html("", 0)).unwrap();
        for bad in ["0", "1.", ".1", "1.0", "a", "1..2", "-1", " 1"] {
            let m = message(validate_frames(0, "s", &html(bad, 0)));
            assert!(m.contains("is not a frame id"), "{bad:?}: {m}");
        }
        let long = vec!["1"; 33].join(".");
        assert!(message(validate_frames(0, "s", &html(&long, 0))).contains("frameId"));
    }

    #[test]
    fn an_html_read_asks_for_at_most_the_limit() {
        validate_frames(0, "s", &html("1", MAX_FRAME_HTML_CHARS)).unwrap();
        let m = message(validate_frames(
            0,
            "s",
            &html("1", MAX_FRAME_HTML_CHARS + 1),
        ));
        assert!(
            m.contains("maxChars must be 1 to 200000; got 200001"),
            "{m}"
        );
    }

    #[test]
    fn an_evaluation_names_its_frame() {
        let page = pb::Frames {
            op: Some(Op::Evaluate(pb::FrameEvaluate {
                frame_id: String::new(),
                script: "1".into(),
            })),
        };
        assert!(message(validate_frames(0, "s", &page)).contains("is not a frame id"));
    }

    #[test]
    fn frames_need_a_session_and_an_operation() {
        let m = message(validate_frames(3, "", &html("1", 0)));
        assert!(m.starts_with("actions[3].sessionID is required"), "{m}");
        let m = message(validate_frames(0, "s", &pb::Frames { op: None }));
        assert!(m.contains("names no frames operation"), "{m}");
        let empty = pb::Frames {
            op: Some(Op::Evaluate(pb::FrameEvaluate {
                frame_id: "1".into(),
                script: " ".into(),
            })),
        };
        assert!(message(validate_frames(0, "s", &empty)).contains("script must not be empty"));
    }
}
