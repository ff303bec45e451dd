//! Validation of a whole call before anything runs, and every limit it checks
//! (DESIGN §7): one home that the MCP schemas, the error messages and the
//! checks all read. A bad call is refused with the field and the limit named,
//! and nothing is created or stored.

mod downloads;
mod frames;
mod http;
mod live;
mod recording;

use std::collections::HashMap;

use fleet_policy::check_form;
use fleet_proto::MAX_FONT_BYTES;
use fleet_proto::v1::{self as pb, BrowserAction, action::Kind};

use crate::error::GatewayError;

/// Most actions in one call.
pub const MAX_ACTIONS: usize = 20;
/// Longest base64 text of a font: [`MAX_FONT_BYTES`] encoded.
pub const MAX_FONT_BASE64_CHARS: usize = MAX_FONT_BYTES.div_ceil(3) * 4;
/// Largest inline HTML document, bytes of UTF-8 (1 MiB).
pub const MAX_HTML_BYTES: usize = 1024 * 1024;
/// Largest script, bytes of UTF-8 (64 KiB).
pub const MAX_SCRIPT_BYTES: usize = 64 * 1024;
/// Largest script a DevTools client runs, bytes of UTF-8 (1 MiB, as an
/// inline document): Playwright injects a script of about 310 KiB.
pub const MAX_DEVTOOLS_SCRIPT_BYTES: usize = 1024 * 1024;
/// Longest URL, characters.
pub const MAX_URL_CHARS: usize = 2048;
/// Longest selector, text or value naming an element or option, characters.
pub const MAX_TARGET_CHARS: usize = 1024;
/// Longest text one type action types, characters.
pub const MAX_TYPE_CHARS: usize = 10_000;
/// Longest key name of a key press, with modifiers (`Control+Shift+ArrowDown`).
pub const MAX_KEY_CHARS: usize = 64;
/// Largest viewport coordinate of a point target, CSS pixels.
pub const MAX_POINT: f64 = 10_000.0;
/// Largest scroll distance of one scroll action, CSS pixels.
pub const MAX_SCROLL: f64 = 1_000_000.0;
/// Most accessibility tree nodes one action may ask for.
pub const MAX_A11Y_NODES: u32 = 5_000;
/// Most page time one wait may take, ms (the worker applies the same cap).
pub const MAX_WAIT_MS: u32 = 60_000;
/// Longest answer a dialog policy gives to prompts, characters.
pub const MAX_PROMPT_CHARS: usize = 10_000;
/// Viewport width bounds.
pub const WIDTH: std::ops::RangeInclusive<u32> = 320..=1920;
/// Viewport height bounds.
pub const HEIGHT: std::ops::RangeInclusive<u32> = 240..=1600;
/// Per-action time budget bounds, ms (0 = the default,
/// [`fleet_proto::DEFAULT_BUDGET_MS`]).
pub const DURATION_MS: std::ops::RangeInclusive<u32> =
    fleet_proto::MIN_BUDGET_MS..=fleet_proto::MAX_BUDGET_MS;
/// Most sessions one list returns.
pub const MAX_LIST: u32 = 500;
/// Sessions a list returns when no limit is given.
pub const DEFAULT_LIST: u32 = 100;
/// Viewport of a new session unless the action chooses one.
pub const DEFAULT_VIEWPORT: pb::Viewport = pb::Viewport {
    width: 1280,
    height: 720,
};

/// Checks one call against every rule before anything runs, so a bad call
/// creates and stores nothing.
pub fn validate(actions: &[BrowserAction]) -> Result<(), GatewayError> {
    validate_with(actions, MAX_SCRIPT_BYTES)
}

/// [`validate`], with scripts of up to `max_script` bytes.
pub(crate) fn validate_with(
    actions: &[BrowserAction],
    max_script: usize,
) -> Result<(), GatewayError> {
    let invalid = |m: String| Err(GatewayError::Invalid(m));
    if actions.is_empty() || actions.len() > MAX_ACTIONS {
        return invalid(format!(
            "actions must hold 1 to {MAX_ACTIONS} entries; got {}",
            actions.len()
        ));
    }
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, a) in actions.iter().enumerate() {
        if !a.session_id.is_empty() {
            let Ok(id) = uuid::Uuid::parse_str(&a.session_id) else {
                return invalid(format!(
                    "actions[{i}].sessionID must be a session UUID, or empty/null to create a session; got {:?}",
                    a.session_id.chars().take(64).collect::<String>()
                ));
            };
            if let Some(j) = seen.insert(id.to_string(), i) {
                return invalid(format!(
                    "actions[{i}].sessionID repeats actions[{j}].sessionID: each sessionID may appear only once in a call"
                ));
            }
            if a.viewport.is_some() {
                return invalid(format!(
                    "actions[{i}].width/height set the viewport of a new session and cannot be used with an existing sessionID"
                ));
            }
        }
        if let Some(v) = a.viewport {
            if !WIDTH.contains(&v.width) {
                return invalid(format!(
                    "actions[{i}].width must be {} to {}; got {}",
                    WIDTH.start(),
                    WIDTH.end(),
                    v.width
                ));
            }
            if !HEIGHT.contains(&v.height) {
                return invalid(format!(
                    "actions[{i}].height must be {} to {}; got {}",
                    HEIGHT.start(),
                    HEIGHT.end(),
                    v.height
                ));
            }
        }
        let Some(action) = &a.action else {
            return invalid(format!("actions[{i}] has no action"));
        };
        if action.max_duration_ms != 0 && !DURATION_MS.contains(&action.max_duration_ms) {
            return invalid(format!(
                "actions[{i}].maxDurationMs must be {} to {}; got {}",
                DURATION_MS.start(),
                DURATION_MS.end(),
                action.max_duration_ms
            ));
        }
        match &action.kind {
            None => return invalid(format!("actions[{i}] has no action")),
            Some(Kind::Navigate(nav)) => match &nav.target {
                None => {
                    return invalid(format!(
                        "actions[{i}] needs exactly one of url or html; got neither"
                    ));
                }
                Some(pb::navigate::Target::Url(u)) => validate_url(i, u)?,
                Some(pb::navigate::Target::Html(h)) => {
                    if h.len() > MAX_HTML_BYTES {
                        return invalid(format!(
                            "actions[{i}].html is {} bytes; the limit is {MAX_HTML_BYTES} bytes (1 MiB)",
                            h.len()
                        ));
                    }
                }
            },
            Some(Kind::Evaluate(ev)) => {
                if ev.script.trim().is_empty() {
                    return invalid(format!("actions[{i}].script must not be empty"));
                }
                if ev.script.len() > max_script {
                    return invalid(format!(
                        "actions[{i}].script is {} bytes; the limit is {max_script} bytes ({} KiB)",
                        ev.script.len(),
                        max_script / 1024
                    ));
                }
            }
            Some(Kind::Http(http)) => http::validate_http(i, a, http)?,
            Some(Kind::WebSearch(search)) => http::validate_search(i, a, search)?,
            Some(Kind::Cookies(c)) => validate_cookies(i, &a.session_id, c)?,
            Some(Kind::Storage(st)) => validate_storage(i, &a.session_id, st)?,
            Some(Kind::Frames(f)) => frames::validate_frames(i, &a.session_id, f)?,
            Some(Kind::Recording(r)) => recording::validate_recording(i, &a.session_id, r)?,
            Some(Kind::Downloads(d)) => downloads::validate_downloads(i, &a.session_id, d)?,
            Some(Kind::LiveView(v)) => live::validate_live_view(i, &a.session_id, v)?,
            Some(Kind::CdpEndpoint(_)) => live::validate_cdp_endpoint(i, &a.session_id)?,
            Some(Kind::NetworkLog(pb::NetworkLog { limit }))
            | Some(Kind::ConsoleMessages(pb::ConsoleMessages { limit })) => {
                if a.session_id.is_empty() {
                    return invalid(format!(
                        "actions[{i}].sessionID is required: it names the session whose log to read"
                    ));
                }
                let max = fleet_proto::MAX_LOG_ENTRIES;
                if *limit as usize > max {
                    return invalid(format!(
                        "actions[{i}].limit must be 1 to {max}; got {limit}"
                    ));
                }
            }
            Some(Kind::Close(_)) => {
                if a.session_id.is_empty() {
                    return invalid(format!(
                        "actions[{i}].sessionID is required: it names the session to close"
                    ));
                }
            }
            Some(Kind::RegisterFont(font)) => {
                if font.data.is_empty() || font.data.len() > MAX_FONT_BYTES {
                    return invalid(format!(
                        "actions[{i}].fontBase64 decodes to {} bytes; a font must be 1 to {MAX_FONT_BYTES} bytes (2 MiB)",
                        font.data.len()
                    ));
                }
            }
            Some(
                Kind::Inspect(_) | Kind::Screenshot(_) | Kind::Capabilities(_) | Kind::Status(_),
            ) => {}
            Some(kind) => validate_page_action(i, &a.session_id, kind)?,
        }
    }
    Ok(())
}

/// A cookie action: reads, deletes and clears name a session; a set may open
/// one; the counts and URLs are bounded.
fn validate_cookies(i: usize, session_id: &str, c: &pb::Cookies) -> Result<(), GatewayError> {
    let invalid = |m: String| Err(GatewayError::Invalid(m));
    let needs_session = !matches!(c.op, Some(pb::cookies::Op::Set(_)));
    if needs_session && session_id.is_empty() {
        return invalid(format!(
            "actions[{i}].sessionID is required: it names the session whose cookies to read or delete"
        ));
    }
    match &c.op {
        None => invalid(format!("actions[{i}] names no cookie operation")),
        Some(pb::cookies::Op::Get(g)) => {
            if g.urls.len() > MAX_ACTIONS {
                return invalid(format!(
                    "actions[{i}].urls has {} entries; the limit is {MAX_ACTIONS}",
                    g.urls.len()
                ));
            }
            for u in &g.urls {
                validate_url(i, u)?;
            }
            Ok(())
        }
        Some(pb::cookies::Op::Set(s)) => {
            let max = fleet_proto::MAX_COOKIES_PER_SET;
            if s.cookies.is_empty() || s.cookies.len() > max {
                return invalid(format!(
                    "actions[{i}].cookies must hold 1 to {max} cookies; got {}",
                    s.cookies.len()
                ));
            }
            Ok(())
        }
        Some(pb::cookies::Op::Delete(d)) if d.name.is_empty() => {
            invalid(format!("actions[{i}].name is required"))
        }
        Some(_) => Ok(()),
    }
}

/// A storage action: all but an import name a session; areas are `local` or
/// `session`; item and cookie counts are bounded.
fn validate_storage(i: usize, session_id: &str, st: &pb::Storage) -> Result<(), GatewayError> {
    let invalid = |m: String| Err(GatewayError::Invalid(m));
    let max = fleet_proto::MAX_STORAGE_ITEMS;
    let area = |a: &str| -> Result<(), GatewayError> {
        if matches!(a, "" | "local" | "session") {
            Ok(())
        } else {
            Err(GatewayError::Invalid(format!(
                "actions[{i}].area must be local or session; got {a:?}"
            )))
        }
    };
    if session_id.is_empty() && !matches!(st.op, Some(pb::storage::Op::ImportState(_))) {
        return invalid(format!(
            "actions[{i}].sessionID is required: it names the session whose storage to use"
        ));
    }
    match &st.op {
        None => invalid(format!("actions[{i}] names no storage operation")),
        Some(pb::storage::Op::Get(g)) => area(&g.area),
        Some(pb::storage::Op::Clear(c)) => area(&c.area),
        Some(pb::storage::Op::Set(s)) => {
            area(&s.area)?;
            if s.items.len() > max {
                return invalid(format!(
                    "actions[{i}].items has {} entries; the limit is {max}",
                    s.items.len()
                ));
            }
            Ok(())
        }
        Some(pb::storage::Op::ExportState(_)) => Ok(()),
        Some(pb::storage::Op::ImportState(state)) => {
            let n: usize = state.origins.iter().map(|o| o.items.len()).sum();
            if n > max || state.cookies.len() > fleet_proto::MAX_COOKIES_PER_SET {
                return invalid(format!(
                    "actions[{i}].storageState holds {} cookies and {n} items; the limits are {} and {max}",
                    state.cookies.len(),
                    fleet_proto::MAX_COOKIES_PER_SET
                ));
            }
            Ok(())
        }
    }
}

/// Input, history, accessibility and dialog actions: they act on an open page.
fn validate_page_action(i: usize, session_id: &str, kind: &Kind) -> Result<(), GatewayError> {
    let invalid = |m: String| Err(GatewayError::Invalid(m));
    if session_id.is_empty() {
        return invalid(format!(
            "actions[{i}].sessionID is required: this action acts on the page of an open session"
        ));
    }
    let chars = |field: &str, value: &str, max: usize| -> Result<(), GatewayError> {
        let n = value.chars().count();
        if n > max {
            return Err(GatewayError::Invalid(format!(
                "actions[{i}].{field} is {n} characters; the limit is {max}"
            )));
        }
        Ok(())
    };
    match kind {
        Kind::Click(c) => validate_target(i, c.target.as_ref())?,
        Kind::Hover(h) => validate_target(i, h.target.as_ref())?,
        Kind::Find(f) => validate_target(i, f.target.as_ref())?,
        Kind::Type(t) => {
            if let Some(target) = &t.target {
                validate_target(i, Some(target))?;
            }
            chars("text", &t.text, MAX_TYPE_CHARS)?;
        }
        Kind::PressKey(k) => {
            if k.key.trim().is_empty() {
                return invalid(format!("actions[{i}].key must not be empty"));
            }
            chars("key", &k.key, MAX_KEY_CHARS)?;
        }
        Kind::Scroll(sc) => {
            if let Some(target) = &sc.target {
                validate_target(i, Some(target))?;
            }
            for (field, d) in [("dx", sc.dx), ("dy", sc.dy)] {
                if !d.is_finite() || d.abs() > MAX_SCROLL {
                    return invalid(format!(
                        "actions[{i}].{field} must be a number from -{MAX_SCROLL} to {MAX_SCROLL}; got {d}"
                    ));
                }
            }
        }
        Kind::SelectOption(sel) => {
            validate_target(i, sel.target.as_ref())?;
            chars("value", &sel.value, MAX_TARGET_CHARS)?;
        }
        Kind::History(h)
            if !matches!(
                pb::history::Step::try_from(h.step),
                Ok(pb::history::Step::Back
                    | pb::history::Step::Forward
                    | pb::history::Step::Reload)
            ) =>
        {
            return invalid(format!("actions[{i}].step must be back, forward or reload"));
        }
        Kind::Accessibility(a) if a.max_nodes > MAX_A11Y_NODES => {
            return invalid(format!(
                "actions[{i}].maxNodes must be 1 to {MAX_A11Y_NODES}; got {}",
                a.max_nodes
            ));
        }
        Kind::DialogPolicy(d) => {
            if let Some(text) = &d.prompt_text {
                chars("promptText", text, MAX_PROMPT_CHARS)?;
            }
        }
        Kind::Wait(w) => {
            for (field, value) in [("selector", &w.selector), ("text", &w.text)] {
                if let Some(value) = value {
                    if value.trim().is_empty() {
                        return invalid(format!("actions[{i}].{field} must not be empty"));
                    }
                    chars(field, value, MAX_TARGET_CHARS)?;
                }
            }
            if w.time_ms > MAX_WAIT_MS {
                return invalid(format!(
                    "actions[{i}].timeMs must be 1 to {MAX_WAIT_MS}; got {}",
                    w.time_ms
                ));
            }
            if w.selector.is_none() && w.text.is_none() && w.time_ms == 0 {
                return invalid(format!(
                    "actions[{i}] needs something to wait for: a selector, a text or a timeMs"
                ));
            }
        }
        _ => {}
    }
    Ok(())
}

/// A target names exactly one element or point, within the limits.
fn validate_target(i: usize, target: Option<&pb::Target>) -> Result<(), GatewayError> {
    let invalid = |m: String| Err(GatewayError::Invalid(m));
    let Some(kind) = target.and_then(|t| t.kind.as_ref()) else {
        return invalid(format!(
            "actions[{i}] needs a target: exactly one of selector, visible text, ref or a point (x and y)"
        ));
    };
    let text = |field: &str, value: &str| -> Result<(), GatewayError> {
        if value.trim().is_empty() {
            return Err(GatewayError::Invalid(format!(
                "actions[{i}].{field} must not be empty"
            )));
        }
        let n = value.chars().count();
        if n > MAX_TARGET_CHARS {
            return Err(GatewayError::Invalid(format!(
                "actions[{i}].{field} is {n} characters; the limit is {MAX_TARGET_CHARS}"
            )));
        }
        Ok(())
    };
    match kind {
        pb::target::Kind::Selector(s) => text("selector", s),
        pb::target::Kind::Text(s) => text("text", s),
        pb::target::Kind::Ref(r) => {
            let well_formed = r.strip_prefix('e').is_some_and(|n| {
                !n.is_empty() && n.len() <= 20 && n.bytes().all(|b| b.is_ascii_digit())
            });
            if well_formed {
                Ok(())
            } else {
                invalid(format!(
                    "actions[{i}].ref must be an element reference such as \"e12\" from an accessibility tree; got {r:?}"
                ))
            }
        }
        pb::target::Kind::Point(p) => {
            for (field, v) in [("x", p.x), ("y", p.y)] {
                if !v.is_finite() || !(0.0..=MAX_POINT).contains(&v) {
                    return invalid(format!(
                        "actions[{i}].{field} must be a number from 0 to {MAX_POINT}; got {v}"
                    ));
                }
            }
            Ok(())
        }
    }
}

fn validate_url(i: usize, raw: &str) -> Result<(), GatewayError> {
    if raw.chars().count() > MAX_URL_CHARS {
        return Err(GatewayError::Invalid(format!(
            "actions[{i}].url is {} characters; the limit is {MAX_URL_CHARS}",
            raw.chars().count()
        )));
    }
    let url = url::Url::parse(raw).map_err(|e| {
        GatewayError::Invalid(format!(
            "actions[{i}].url is not an absolute URL ({e}): {raw:?}"
        ))
    })?;
    check_form(&url).map_err(|e| GatewayError::Invalid(format!("actions[{i}].url: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nav(session: &str, url: &str) -> BrowserAction {
        BrowserAction {
            session_id: session.into(),
            viewport: None,
            action: Some(pb::Action {
                kind: Some(Kind::Navigate(pb::Navigate {
                    target: Some(pb::navigate::Target::Url(url.into())),
                })),
                max_duration_ms: 0,
            }),
        }
    }

    fn err(actions: &[BrowserAction]) -> String {
        validate(actions).unwrap_err().to_string()
    }

    #[test]
    fn twenty_actions_pass_and_twenty_one_are_refused() {
        let ok: Vec<_> = (0..20).map(|_| nav("", "https://example.com/")).collect();
        validate(&ok).unwrap();
        let too_many: Vec<_> = (0..21).map(|_| nav("", "https://example.com/")).collect();
        assert!(err(&too_many).contains("1 to 20"), "{}", err(&too_many));
        assert!(err(&[]).contains("got 0"));
    }

    #[test]
    fn malformed_and_duplicate_session_ids_are_refused_naming_the_field() {
        assert!(err(&[nav("not-a-uuid", "https://e.com/")]).contains("actions[0].sessionID"));
        let id = uuid::Uuid::new_v4().to_string();
        let e = err(&[
            nav(&id, "https://e.com/"),
            nav(&id.to_uppercase(), "https://e.com/"),
        ]);
        assert!(e.contains("only once"), "{e}");
    }

    #[test]
    fn html_and_script_limits_hold_at_their_edges() {
        let html = |n: usize| BrowserAction {
            session_id: String::new(),
            viewport: None,
            action: Some(pb::Action {
                kind: Some(Kind::Navigate(pb::Navigate {
                    target: Some(pb::navigate::Target::Html("a".repeat(n))),
                })),
                max_duration_ms: 0,
            }),
        };
        validate(&[html(MAX_HTML_BYTES)]).unwrap();
        assert!(err(&[html(MAX_HTML_BYTES + 1)]).contains("1 MiB"));
        let script = |n: usize| BrowserAction {
            session_id: String::new(),
            viewport: None,
            action: Some(pb::Action {
                kind: Some(Kind::Evaluate(pb::Evaluate {
                    script: "1".repeat(n),
                })),
                max_duration_ms: 0,
            }),
        };
        validate(&[script(MAX_SCRIPT_BYTES)]).unwrap();
        assert!(err(&[script(MAX_SCRIPT_BYTES + 1)]).contains("64 KiB"));
    }

    #[test]
    fn urls_must_be_http_without_credentials() {
        assert!(err(&[nav("", "file:///etc/passwd")]).contains("actions[0].url"));
        assert!(err(&[nav("", "https://u:p@example.com/")]).contains("credentials"));
        assert!(err(&[nav("", "/relative")]).contains("absolute"));
        let long = format!("https://example.com/{}", "a".repeat(MAX_URL_CHARS));
        assert!(err(&[nav("", &long)]).contains("2048"));
    }

    #[test]
    fn viewport_bounds_and_existing_sessions_are_checked() {
        let mut a = nav("", "https://e.com/");
        a.viewport = Some(pb::Viewport {
            width: 319,
            height: 720,
        });
        assert!(err(std::slice::from_ref(&a)).contains("width must be 320 to 1920"));
        a.viewport = Some(pb::Viewport {
            width: 1920,
            height: 1600,
        });
        validate(std::slice::from_ref(&a)).unwrap();
        a.session_id = uuid::Uuid::new_v4().to_string();
        assert!(err(&[a]).contains("existing sessionID"));
    }

    #[test]
    fn wait_limits_hold_at_their_edges_and_a_wait_needs_something_to_wait_for() {
        let wait = |selector: Option<&str>, text: Option<String>, time_ms| BrowserAction {
            session_id: uuid::Uuid::new_v4().to_string(),
            viewport: None,
            action: Some(pb::Action {
                kind: Some(Kind::Wait(pb::Wait {
                    selector: selector.map(str::to_owned),
                    text,
                    time_ms,
                })),
                max_duration_ms: 0,
            }),
        };
        validate(&[wait(None, None, MAX_WAIT_MS)]).unwrap();
        assert!(
            err(&[wait(None, None, MAX_WAIT_MS + 1)])
                .contains("timeMs must be 1 to 60000; got 60001")
        );
        assert!(err(&[wait(None, None, 0)]).contains("a selector, a text or a timeMs"));
        validate(&[wait(Some("#late"), None, 0)]).unwrap();
        validate(&[wait(None, Some("x".repeat(MAX_TARGET_CHARS)), 0)]).unwrap();
        assert!(
            err(&[wait(None, Some("x".repeat(MAX_TARGET_CHARS + 1)), 0)])
                .contains("actions[0].text is 1025 characters; the limit is 1024")
        );
        assert!(
            err(&[wait(Some("  "), None, 0)]).contains("actions[0].selector must not be empty")
        );
        let mut new_tab = wait(Some("#late"), None, 0);
        new_tab.session_id.clear();
        assert!(err(&[new_tab]).contains("sessionID is required"));
    }
}
