//! The rows of `servo_live_view` — a signed link to a page on the gateway
//! that shows the session as it changes and, in control mode, lets a person
//! drive it while agents wait — and of `servo_cdp_endpoint`, a signed
//! DevTools WebSocket for Puppeteer and Playwright.

use fleet_proto::live::MODES;
use serde_json::{Value, json};

use super::{ACTS, Sessions, Spec, ToolKind, state_tool};

/// `servo_cdp_endpoint`: a client on it evaluates, clicks, types and
/// navigates, so `--read-only` leaves it out.
pub(super) const CDP_ENDPOINT: Spec = Spec {
    kind: ToolKind::CdpEndpoint,
    name: "servo_cdp_endpoint",
    description: "Get a Chrome DevTools Protocol WebSocket URL for a session, to drive it with Puppeteer (puppeteer.connect({browserWSEndpoint: url})) or Playwright (chromium.connectOverCDP(url)): the session is the browser's one page. The socket speaks the subset of CDP those libraries need to navigate, evaluate, query the DOM, click, type and take screenshots, and sends the session's navigations, console messages, dialogs and downloads as CDP events. The URL opens a socket for 10 minutes and is a bearer link. Returns webSocketDebuggerUrl and expiresAt.",
    sessions: Sessions::Existing,
    read_only: false,
    idempotent: false,
    outside: true,
    open_world: true,
    destructive: false,
    fields: || (json!({}), vec!["sessionID"]),
};

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
    fn the_descriptions_state_the_links_lifetime() {
        let minutes = fleet_proto::live::LINK_TTL_MS / 60_000;
        let said = format!("for {minutes} minutes");
        assert!(super::LIVE_VIEW.description.contains(&said));
        assert!(super::CDP_ENDPOINT.description.contains(&said));
    }
}
