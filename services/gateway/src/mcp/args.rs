//! Arguments of a tool call, parsed by hand rather than by serde derive so
//! every error names the exact field (`actions[3].html`) and the limit it
//! broke: `{actions: [...]}` into browser actions, and the session list's
//! `{limit}`.

use base64::Engine as _;
use fleet_proto::v1::{self as pb, BrowserAction, action::Kind};
use rmcp::model::JsonObject;
use serde_json::Value;

use super::tools::{Sessions, ToolKind};

mod cookies;
mod frames;
mod http;
mod storage;

use crate::error::GatewayError;
use crate::validate::{DEFAULT_VIEWPORT, MAX_ACTIONS};
use cookies::parse_cookies;
use frames::parse_frames;
use http::parse_http;
pub(super) use http::parse_search;
use storage::parse_storage;

/// Page time a `networkidle` wait lets pass, ms: Playwright's quiet period.
const NETWORK_IDLE_MS: u32 = 500;

pub(super) fn invalid(m: String) -> GatewayError {
    GatewayError::Invalid(m)
}

/// An optional positive integer named `what` in errors, 0 when absent. Its
/// upper bound `max` is named here and checked by validation, which every
/// surface shares.
pub(super) fn positive(v: Option<&Value>, what: &str, max: usize) -> Result<u32, GatewayError> {
    match v {
        None | Some(Value::Null) => Ok(0),
        Some(v) => v
            .as_u64()
            .filter(|n| *n >= 1)
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| invalid(format!("{what} must be an integer from 1 to {max}"))),
    }
}

/// Field `k` of object `o` (at `at` in errors) as text; empty when absent.
pub(super) fn string_at(o: &JsonObject, k: &str, at: &str) -> Result<String, GatewayError> {
    match o.get(k) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(invalid(format!("{at}.{k} must be a string"))),
    }
}

/// Field `k` of object `o` (at `at` in errors) as a flag; false when absent.
pub(super) fn flag_at(o: &JsonObject, k: &str, at: &str) -> Result<bool, GatewayError> {
    match o.get(k) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(invalid(format!("{at}.{k} must be true or false"))),
    }
}

/// The target named by an action's fields, if any; more than one is an error.
fn parse_target(i: usize, obj: &JsonObject) -> Result<Option<pb::Target>, GatewayError> {
    let text = |k: &str| -> Result<Option<String>, GatewayError> {
        match obj.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(invalid(format!("actions[{i}].{k} must be a string"))),
        }
    };
    let number = |k: &str| -> Result<Option<f64>, GatewayError> {
        match obj.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_f64()
                .map(Some)
                .ok_or_else(|| invalid(format!("actions[{i}].{k} must be a number"))),
        }
    };
    let mut found = Vec::new();
    if let Some(s) = text("selector")? {
        found.push(pb::target::Kind::Selector(s));
    }
    if let Some(s) = text("visibleText")? {
        found.push(pb::target::Kind::Text(s));
    }
    if let Some(s) = text("ref")? {
        found.push(pb::target::Kind::Ref(s));
    }
    match (number("x")?, number("y")?) {
        (Some(x), Some(y)) => found.push(pb::target::Kind::Point(pb::Point { x, y })),
        (None, None) => {}
        _ => {
            return Err(invalid(format!(
                "actions[{i}] needs both x and y for a point"
            )));
        }
    }
    if found.len() > 1 {
        return Err(invalid(format!(
            "actions[{i}] names its element more than one way; give exactly one of selector, visibleText, ref or x/y"
        )));
    }
    Ok(found.pop().map(|kind| pb::Target { kind: Some(kind) }))
}

/// Parses `{actions:[…]}` of one tool into browser actions.
pub(super) fn parse_call(
    tool: ToolKind,
    args: Option<&JsonObject>,
) -> Result<Vec<BrowserAction>, GatewayError> {
    let args =
        args.ok_or_else(|| invalid("arguments are required: {\"actions\": [...]}".into()))?;
    if let Some(k) = args.keys().find(|k| k.as_str() != "actions") {
        return Err(invalid(format!(
            "unknown argument {k:?}; the only argument is actions"
        )));
    }
    let actions = match args.get("actions") {
        Some(Value::Array(a)) => a,
        Some(_) => return Err(invalid("actions must be an array".into())),
        None => return Err(invalid("actions is required".into())),
    };
    if actions.is_empty() || actions.len() > MAX_ACTIONS {
        return Err(invalid(format!(
            "actions must hold 1 to {MAX_ACTIONS} entries; got {}",
            actions.len()
        )));
    }
    actions
        .iter()
        .enumerate()
        .map(|(i, a)| parse_action(tool, i, a))
        .collect()
}

fn parse_action(tool: ToolKind, i: usize, v: &Value) -> Result<BrowserAction, GatewayError> {
    let obj = v
        .as_object()
        .ok_or_else(|| invalid(format!("actions[{i}] must be an object")))?;
    let (props, _) = tool.fields();
    let sessions = tool.sessions();
    let allowed = |k: &str| {
        (sessions != Sessions::None && k == "sessionID")
            || (sessions == Sessions::Any && matches!(k, "width" | "height"))
            || props.get(k).is_some()
    };
    if let Some(k) = obj.keys().find(|k| !allowed(k)) {
        return Err(invalid(format!(
            "actions[{i}] has an unknown field {k:?} for {}",
            tool.name()
        )));
    }
    let session_id = match obj.get("sessionID") {
        None | Some(Value::Null) | Some(Value::Bool(false)) => String::new(),
        Some(Value::Number(n)) if n.as_f64() == Some(0.0) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(_) => {
            return Err(invalid(format!(
                "actions[{i}].sessionID must be a session UUID string, or null/false/0/\"\" to create a session"
            )));
        }
    };
    let int = |k: &str| -> Result<Option<u32>, GatewayError> {
        match obj.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .map(Some)
                .ok_or_else(|| invalid(format!("actions[{i}].{k} must be a non-negative integer"))),
        }
    };
    let string = |k: &str| -> Result<Option<String>, GatewayError> {
        match obj.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(invalid(format!("actions[{i}].{k} must be a string"))),
        }
    };
    let (width, height) = (int("width")?, int("height")?);
    let viewport = (width.is_some() || height.is_some()).then(|| pb::Viewport {
        width: width.unwrap_or(DEFAULT_VIEWPORT.width),
        height: height.unwrap_or(DEFAULT_VIEWPORT.height),
    });
    let kind = match tool {
        ToolKind::Navigate => {
            let target = match (string("url")?, string("html")?) {
                (Some(_), Some(_)) => {
                    return Err(invalid(format!(
                        "actions[{i}] needs exactly one of url or html; got both"
                    )));
                }
                (None, None) => {
                    return Err(invalid(format!(
                        "actions[{i}] needs exactly one of url or html; got neither"
                    )));
                }
                (Some(u), None) => pb::navigate::Target::Url(u),
                (None, Some(h)) => pb::navigate::Target::Html(h),
            };
            Kind::Navigate(pb::Navigate {
                target: Some(target),
            })
        }
        ToolKind::Inspect => Kind::Inspect(pb::Inspect {}),
        ToolKind::Evaluate => Kind::Evaluate(pb::Evaluate {
            script: string("script")?
                .ok_or_else(|| invalid(format!("actions[{i}].script is required")))?,
        }),
        ToolKind::Screenshot => Kind::Screenshot(pb::Screenshot {
            full_page: match obj.get("fullPage") {
                None | Some(Value::Null) => false,
                Some(Value::Bool(b)) => *b,
                Some(_) => {
                    return Err(invalid(format!(
                        "actions[{i}].fullPage must be true or false"
                    )));
                }
            },
        }),
        ToolKind::Status => Kind::Status(pb::SessionStatus {}),
        ToolKind::Close => Kind::Close(pb::CloseSession {}),
        ToolKind::Click => {
            // Servo MCP's clicks name a button; the engine presses the primary one.
            if let Some(b) = int("button")?.filter(|b| *b != 0) {
                return Err(invalid(format!(
                    "actions[{i}].button is {b}; only 0, the primary button, is supported"
                )));
            }
            Kind::Click(pb::Click {
                target: parse_target(i, obj)?,
            })
        }
        ToolKind::Type => Kind::Type(pb::Type {
            target: parse_target(i, obj)?,
            text: string("text")?
                .ok_or_else(|| invalid(format!("actions[{i}].text is required")))?,
            clear: match obj.get("clear") {
                None | Some(Value::Null) => false,
                Some(Value::Bool(b)) => *b,
                Some(_) => {
                    return Err(invalid(format!("actions[{i}].clear must be true or false")));
                }
            },
        }),
        ToolKind::Find => Kind::Find(pb::Find {
            target: parse_target(i, obj)?,
        }),
        ToolKind::Hover => Kind::Hover(pb::Hover {
            target: parse_target(i, obj)?,
        }),
        ToolKind::PressKey => Kind::PressKey(pb::PressKey {
            key: string("key")?.ok_or_else(|| invalid(format!("actions[{i}].key is required")))?,
        }),
        ToolKind::Scroll => {
            let number = |k: &str| -> Result<Option<f64>, GatewayError> {
                match obj.get(k) {
                    None | Some(Value::Null) => Ok(None),
                    Some(v) => v
                        .as_f64()
                        .map(Some)
                        .ok_or_else(|| invalid(format!("actions[{i}].{k} must be a number"))),
                }
            };
            // `deltaX`/`deltaY` are Servo MCP's names for the same distances.
            let either = |ours: &str, seeds: &str| -> Result<f64, GatewayError> {
                match (number(ours)?, number(seeds)?) {
                    (Some(_), Some(_)) => Err(invalid(format!(
                        "actions[{i}] gives both {ours} and {seeds}; they are the same distance, give one"
                    ))),
                    (a, b) => Ok(a.or(b).unwrap_or(0.0)),
                }
            };
            Kind::Scroll(pb::Scroll {
                target: parse_target(i, obj)?,
                dx: either("dx", "deltaX")?,
                dy: either("dy", "deltaY")?,
            })
        }
        ToolKind::SelectOption => Kind::SelectOption(pb::SelectOption {
            target: parse_target(i, obj)?,
            value: string("value")?
                .ok_or_else(|| invalid(format!("actions[{i}].value is required")))?,
        }),
        ToolKind::Wait => {
            let time_ms = match int("timeMs")? {
                Some(0) => {
                    return Err(invalid(format!(
                        "actions[{i}].timeMs must be 1 to {}; got 0",
                        crate::validate::MAX_WAIT_MS
                    )));
                }
                n => n.unwrap_or(0),
            };
            // Playwright's load states. Requests finish inside the action
            // that makes them, and every action returns after the load
            // event, so `load` asks for no more than the page as it is; a
            // network idle is 500 ms of page time with no request in flight,
            // so the page's timers run for 500 ms, and whatever they fetch
            // is fetched within them.
            let until = match string("until")?.as_deref() {
                None => None,
                Some("load" | "domcontentloaded") => Some(1),
                Some("networkidle") => Some(NETWORK_IDLE_MS),
                Some(other) => {
                    return Err(invalid(format!(
                        "actions[{i}].until must be load, domcontentloaded or networkidle; got {other:?}"
                    )));
                }
            };
            let (selector, text) = (string("selector")?, string("text")?);
            if until.is_some() && (selector.is_some() || text.is_some() || time_ms != 0) {
                return Err(invalid(format!(
                    "actions[{i}].until waits for a load state; it goes with no selector, text or timeMs"
                )));
            }
            Kind::Wait(pb::Wait {
                selector,
                text,
                time_ms: until.unwrap_or(time_ms),
            })
        }
        ToolKind::Reload => Kind::History(pb::History {
            step: pb::history::Step::Reload.into(),
        }),
        ToolKind::History => {
            // `direction` is Servo MCP's name for the step.
            let step = match (string("step")?, string("direction")?) {
                (Some(_), Some(_)) => {
                    return Err(invalid(format!(
                        "actions[{i}] gives both step and direction; give one"
                    )));
                }
                (Some(s), None) => Some(s),
                (None, Some(d)) if d == "reload" => {
                    return Err(invalid(format!(
                        "actions[{i}].direction must be back or forward; use servo_reload to reload"
                    )));
                }
                (None, d) => d,
            };
            let step = match step.as_deref() {
                Some("back") => pb::history::Step::Back,
                Some("forward") => pb::history::Step::Forward,
                Some("reload") => pb::history::Step::Reload,
                Some(other) => {
                    return Err(invalid(format!(
                        "actions[{i}].step must be back, forward or reload; got {other:?}"
                    )));
                }
                None => {
                    return Err(invalid(format!(
                        "actions[{i}].step (or direction) is required"
                    )));
                }
            };
            Kind::History(pb::History { step: step.into() })
        }
        ToolKind::Accessibility => Kind::Accessibility(pb::Accessibility {
            max_nodes: match int("maxNodes")? {
                Some(0) => {
                    return Err(invalid(format!(
                        "actions[{i}].maxNodes must be 1 to {}; got 0",
                        crate::validate::MAX_A11Y_NODES
                    )));
                }
                n => n.unwrap_or(0),
            },
        }),
        ToolKind::DialogPolicy => Kind::DialogPolicy(pb::DialogPolicy {
            accept: match obj.get("accept") {
                Some(Value::Bool(b)) => *b,
                None | Some(Value::Null) => {
                    return Err(invalid(format!("actions[{i}].accept is required")));
                }
                Some(_) => {
                    return Err(invalid(format!(
                        "actions[{i}].accept must be true or false"
                    )));
                }
            },
            prompt_text: string("promptText")?,
        }),
        ToolKind::Capabilities => Kind::Capabilities(pb::Capabilities {}),
        ToolKind::HttpRequest
        | ToolKind::HttpGet
        | ToolKind::HttpPost
        | ToolKind::HttpPut
        | ToolKind::HttpPatch
        | ToolKind::HttpDelete
        | ToolKind::HttpHead
        | ToolKind::HttpOptions => Kind::Http(parse_http(i, obj, tool.http_method())?),
        ToolKind::CookiesGet
        | ToolKind::CookiesSet
        | ToolKind::CookiesDelete
        | ToolKind::CookiesClear => Kind::Cookies(parse_cookies(tool, i, obj)?),
        ToolKind::StorageGet
        | ToolKind::StorageSet
        | ToolKind::StorageClear
        | ToolKind::StorageStateExport
        | ToolKind::StorageStateImport => Kind::Storage(parse_storage(tool, i, obj)?),
        ToolKind::FrameList
        | ToolKind::FrameEvaluate
        | ToolKind::FrameHtml
        | ToolKind::PageHtml => Kind::Frames(parse_frames(tool, i, obj)?),
        ToolKind::RecordingStart => Kind::Recording(pb::Recording {
            op: Some(pb::recording::Op::Start(pb::RecordingStart {
                fps: int("fps")?.unwrap_or(0),
                max_duration_seconds: int("maxDurationSeconds")?.unwrap_or(0),
            })),
        }),
        ToolKind::RecordingStop | ToolKind::RecordingStatus | ToolKind::RecordingDownload => {
            let recording_id = string("recordingId")?
                .ok_or_else(|| invalid(format!("actions[{i}].recordingId is required")))?;
            let op = match tool {
                ToolKind::RecordingStop => {
                    pb::recording::Op::Stop(pb::RecordingStop { recording_id })
                }
                ToolKind::RecordingStatus => {
                    pb::recording::Op::Status(pb::RecordingStatus { recording_id })
                }
                _ => pb::recording::Op::Download(pb::RecordingDownload { recording_id }),
            };
            Kind::Recording(pb::Recording { op: Some(op) })
        }
        ToolKind::Downloads => Kind::Downloads(pb::Downloads {
            // The action's sessionID names the session.
            op: Some(pb::downloads::Op::List(pb::DownloadList::default())),
        }),
        ToolKind::DownloadRead => Kind::Downloads(pb::Downloads {
            op: Some(pb::downloads::Op::Read(pb::DownloadRead {
                download_id: string("downloadId")?
                    .ok_or_else(|| invalid(format!("actions[{i}].downloadId is required")))?,
                offset: int("offset")?.map_or(0, u64::from),
                length: match int("length")? {
                    Some(0) => {
                        return Err(invalid(format!(
                            "actions[{i}].length must be 1 to {} bytes (256 KiB); got 0",
                            fleet_proto::download::MAX_READ_BYTES
                        )));
                    }
                    n => n.unwrap_or(0),
                },
                encoding: string("encoding")?.unwrap_or_default(),
            })),
        }),
        ToolKind::CdpEndpoint => Kind::CdpEndpoint(pb::CdpEndpoint {}),
        ToolKind::LiveView => Kind::LiveView(pb::LiveView {
            mode: string("mode")?.unwrap_or_default(),
        }),
        ToolKind::NetworkLog | ToolKind::ConsoleMessages => {
            let max = fleet_proto::MAX_LOG_ENTRIES;
            let limit = match int("limit")? {
                Some(n) if n == 0 || n as usize > max => {
                    return Err(invalid(format!(
                        "actions[{i}].limit must be 1 to {max}; got {n}"
                    )));
                }
                n => n.unwrap_or(0),
            };
            if tool == ToolKind::NetworkLog {
                Kind::NetworkLog(pb::NetworkLog { limit })
            } else {
                Kind::ConsoleMessages(pb::ConsoleMessages { limit })
            }
        }
        ToolKind::RegisterFont => {
            let data = string("fontBase64")?
                .ok_or_else(|| invalid(format!("actions[{i}].fontBase64 is required")))?;
            if data.len() > crate::validate::MAX_FONT_BASE64_CHARS {
                return Err(invalid(format!(
                    "actions[{i}].fontBase64 is {} characters; the limit is {} (2 MiB decoded)",
                    data.len(),
                    crate::validate::MAX_FONT_BASE64_CHARS
                )));
            }
            let data = base64::engine::general_purpose::STANDARD
                .decode(data.trim())
                .map_err(|e| {
                    invalid(format!("actions[{i}].fontBase64 is not valid base64: {e}"))
                })?;
            Kind::RegisterFont(pb::RegisterFont { data })
        }
    };
    Ok(BrowserAction {
        session_id,
        viewport,
        action: Some(pb::Action {
            kind: Some(kind),
            max_duration_ms: int("maxDurationMs")?.unwrap_or(0),
        }),
    })
}

pub(super) fn parse_limit(args: Option<&JsonObject>) -> Result<u32, GatewayError> {
    let Some(args) = args else { return Ok(0) };
    if let Some(k) = args.keys().find(|k| k.as_str() != "limit") {
        return Err(invalid(format!(
            "unknown argument {k:?}; the only argument is limit"
        )));
    }
    positive(
        args.get("limit"),
        "limit",
        crate::validate::MAX_LIST as usize,
    )
}

#[cfg(test)]
mod tests;
