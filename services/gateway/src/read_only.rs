//! Read-only mode (`--read-only`): which actions reach outside the tab. An
//! agent may load, read, scroll and wait; it may not run scripts, click, type,
//! press keys or choose options (any of them can submit a form or start a
//! request), nor send HTTP methods other than GET, HEAD and OPTIONS. What a
//! page's own scripts do when it loads is the page's, as in any browser.

use fleet_proto::v1::{BrowserAction, action::Kind, frames::Op};

use crate::error::GatewayError;

/// HTTP methods that change nothing on the server (RFC 9110 "safe").
const SAFE_METHODS: [&str; 3] = ["GET", "HEAD", "OPTIONS"];

/// Whether an action can have effects outside the tab.
pub fn reaches_outside(kind: &Kind) -> bool {
    match kind {
        Kind::Evaluate(_)
        | Kind::Click(_)
        | Kind::Type(_)
        | Kind::PressKey(_)
        | Kind::SelectOption(_) => true,
        // A script in a frame reaches as far as one in the page.
        Kind::Frames(f) => matches!(f.op, Some(Op::Evaluate(_))),
        // A person in control clicks and types as an agent would.
        Kind::LiveView(v) => v.mode == "control",
        // A DevTools client evaluates, clicks and types.
        Kind::CdpEndpoint(_) => true,
        Kind::Http(h) => {
            let method = h.method.to_ascii_uppercase();
            !(method.is_empty() || SAFE_METHODS.contains(&method.as_str()))
        }
        Kind::Navigate(_)
        | Kind::Inspect(_)
        | Kind::Screenshot(_)
        | Kind::Status(_)
        | Kind::Close(_)
        | Kind::RegisterFont(_)
        | Kind::Scroll(_)
        | Kind::History(_)
        | Kind::Accessibility(_)
        | Kind::Capabilities(_)
        | Kind::DialogPolicy(_)
        | Kind::Wait(_)
        | Kind::WebSearch(_)
        // The jar is the session's own; changing it reaches no one else.
        | Kind::Cookies(_)
        | Kind::Storage(_)
        | Kind::NetworkLog(_)
        | Kind::ConsoleMessages(_)
        // Over and enter events; what a page does on them stays in the tab
        // unless its scripts send it away, as on load.
        | Kind::Hover(_)
        | Kind::Find(_)
        // Watching the tab changes nothing in it.
        | Kind::Recording(_)
        // Reading files the session already downloaded.
        | Kind::Downloads(_) => false,
    }
}

/// Refuses a call holding any action that reaches outside the tab.
pub fn check(actions: &[BrowserAction]) -> Result<(), GatewayError> {
    for (i, a) in actions.iter().enumerate() {
        if let Some(kind) = a.action.as_ref().and_then(|a| a.kind.as_ref())
            && reaches_outside(kind)
        {
            return Err(GatewayError::Invalid(format!(
                "actions[{i}] can have effects outside the tab, and this gateway is read-only (--read-only): scripts, clicks, typing, keys, option choices and HTTP methods other than GET, HEAD and OPTIONS are refused"
            )));
        }
    }
    Ok(())
}
