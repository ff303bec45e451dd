//! The row of `servo_live_view`: a signed link to a page on the gateway that
//! shows the session as it changes and, in control mode, lets a person drive
//! it while agents wait.

use fleet_proto::live::MODES;
use serde_json::{Value, json};

use super::{ACTS, Sessions, Spec, ToolKind, state_tool};

/// `servo_live_view`.
pub(super) const LIVE_VIEW: Spec = state_tool(
    ToolKind::LiveView,
    "servo_live_view",
    "Get a link to watch a session live in a browser: the page shows the session's frames as they change. In control mode the person who opens it can click, type, press keys and scroll in the session; while they hold control (from opening the page until they press Release control or close it), agents' calls on the session fail with HUMAN_IN_CONTROL, so wait and retry. The link opens the page for 10 minutes and is a bearer link: share it only with the person meant to use it. Returns url, mode and expiresAt.",
    Sessions::Existing,
    ACTS,
    fields,
);

fn fields() -> (Value, Vec<&'static str>) {
    (
        json!({
            "mode": {"type": "string", "enum": MODES, "default": "view", "description": "view: watch only; control: the person may also drive the session."}
        }),
        vec!["sessionID"],
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_description_states_the_links_lifetime() {
        let minutes = fleet_proto::live::LINK_TTL_MS / 60_000;
        let said = format!("for {minutes} minutes");
        assert!(super::LIVE_VIEW.description.contains(&said));
    }
}
