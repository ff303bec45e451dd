//! The MCP face of the gateway: the `servo_*` tools over rmcp's Streamable HTTP
//! server. Arguments are parsed here by hand, not by serde derive, so every error
//! names the exact field (`actions[3].html`) and the limit it broke; the parsed call
//! goes to the [`Dispatcher`] like any gRPC call.

use std::sync::Arc;

use base64::Engine as _;
use fleet_proto::v1::{
    self as pb, ActionResponse, BrowserAction, ExecuteResponse, action::Kind, action_output,
    action_response::Outcome,
};
use fleet_store::Tenant;
use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    Implementation, JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities,
    ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Value, json};
use tracing::Instrument as _;

use crate::dispatch::Dispatcher;
use crate::error::{GatewayError, code_name, http_status, retry_after_ms};
use crate::validate::{DEFAULT_VIEWPORT, MAX_ACTIONS};

/// Longest page text returned, characters.
const MAX_TEXT_CHARS: usize = 20_000;

/// The tools, each a shape of action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ToolKind {
    Navigate,
    Inspect,
    Evaluate,
    Screenshot,
    Status,
    Close,
    RegisterFont,
    Click,
    Type,
    PressKey,
    Scroll,
    SelectOption,
    History,
    Accessibility,
    DialogPolicy,
    Wait,
    Capabilities,
}

/// The one tool outside the actions envelope.
const LIST_TOOL: &str = "servo_session_list";

impl ToolKind {
    const ALL: [ToolKind; 17] = [
        Self::Navigate,
        Self::Inspect,
        Self::Evaluate,
        Self::Screenshot,
        Self::Status,
        Self::Close,
        Self::RegisterFont,
        Self::Click,
        Self::Type,
        Self::PressKey,
        Self::Scroll,
        Self::SelectOption,
        Self::History,
        Self::Accessibility,
        Self::DialogPolicy,
        Self::Wait,
        Self::Capabilities,
    ];

    /// Tools that act on existing sessions only (no viewport fields).
    fn existing_only(self) -> bool {
        matches!(
            self,
            Self::Status
                | Self::Close
                | Self::Click
                | Self::Type
                | Self::PressKey
                | Self::Scroll
                | Self::SelectOption
                | Self::History
                | Self::Accessibility
                | Self::DialogPolicy
                | Self::Wait
        )
    }

    fn name(self) -> &'static str {
        match self {
            Self::Navigate => "servo_navigate",
            Self::Inspect => "servo_inspect",
            Self::Evaluate => "servo_evaluate",
            Self::Screenshot => "servo_screenshot",
            Self::Status => "servo_session_status",
            Self::Close => "servo_session_close",
            Self::RegisterFont => "servo_register_font",
            Self::Click => "servo_click",
            Self::Type => "servo_type",
            Self::PressKey => "servo_press_key",
            Self::Scroll => "servo_scroll",
            Self::SelectOption => "servo_select_option",
            Self::History => "servo_history",
            Self::Accessibility => "servo_accessibility_tree",
            Self::DialogPolicy => "servo_dialog_policy",
            Self::Wait => "servo_wait",
            Self::Capabilities => "servo_get_capabilities",
        }
    }

    fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }

    fn description(self) -> &'static str {
        match self {
            Self::Navigate => {
                "Load a URL or inline HTML into browser tabs and return each page's URL, title, visible text and links. A falsy or absent sessionID opens a new tab (optionally with width/height); an existing sessionID reuses its tab."
            }
            Self::Inspect => {
                "Read the current page of existing tabs: URL, title, visible text (innerText) and links."
            }
            Self::Evaluate => {
                "Evaluate JavaScript in tabs and return the completion value as JSON (promises are awaited). Side effects on the page are kept."
            }
            Self::Screenshot => {
                "Take a PNG screenshot of each tab's viewport, or with fullPage the whole page; images are returned as image content blocks in action order."
            }
            Self::Status => {
                "Report a session's lifecycle state: status, updatedAt, expiresAt, runtimeAvailable, resumable, and what a restore does not bring back."
            }
            Self::Close => {
                "Close sessions: delete each tab and everything stored for it (snapshot, storage). Later calls with its sessionID get SESSION_NOT_FOUND."
            }
            Self::RegisterFont => {
                "Register a font (TrueType, OpenType, WOFF or WOFF2, base64) in tabs so pages can name its families in CSS font-family. Returns the family names; the font stays with the session across restores. At most 2 MiB per font, 16 fonts per session."
            }
            Self::Click => {
                "Click an element like a user: found by CSS selector, visible text, accessibility ref (from servo_accessibility_tree or a page's fields) or viewport point x/y. Fires mousedown/mouseup/click, moves focus and runs the default action (follows links, toggles checkboxes, submits forms), then returns the page after it settles."
            }
            Self::Type => {
                "Type text into a field (give selector, ref, visibleText or x/y to click it first) or into the focused element: keydown, beforeinput, input and keyup per character; a newline presses Enter (which submits a form). clear empties the field first."
            }
            Self::PressKey => {
                "Press a key in the focused element, with modifiers: Enter (submits forms, follows focused links), Tab / Shift+Tab (moves focus), Backspace, Escape, ArrowUp/ArrowDown (changes selects, scrolls), PageUp/PageDown, Home/End, Control+a, or a single character."
            }
            Self::Scroll => {
                "Scroll the page, or an element (by selector, ref, visibleText or x/y) and failing that its nearest scrollable ancestor, by dx/dy CSS pixels."
            }
            Self::SelectOption => {
                "Choose an option of a <select> element (by selector, ref, visibleText or x/y) by its value or visible text; fires input and change."
            }
            Self::History => {
                "Go back, forward or reload in a tab's history (step: back | forward | reload) and return the page."
            }
            Self::Accessibility => {
                "Read the accessibility tree of the page: one line per node with role, name, states and an element ref (e12) that servo_click, servo_type, servo_scroll and servo_select_option accept. Cut at maxNodes (default 500) with a truncation marker."
            }
            Self::DialogPolicy => {
                "Set how a tab answers alert/confirm/prompt from now on: accept (confirm returns true, prompt returns promptText or its default) or dismiss (the default). Every dialog is reported in the page's dialogs list."
            }
            Self::Wait => {
                "Wait on a tab's page: until an element matching selector is rendered, until the visible text contains text, or (with neither) for timeMs of page time. The page's timers run as the page clock moves ahead (no real waiting); a condition not met within timeMs (default 10000) is a TIMEOUT error naming it."
            }
            Self::Capabilities => {
                "Report what the browser engine supports: each feature as supported, partial, unsupported or unverified, with the reason and the checks that cover it."
            }
        }
    }

    /// Fields of one action beyond the common ones.
    fn fields(self) -> (Value, Vec<&'static str>) {
        match self {
            Self::Navigate => (
                json!({
                    "url": {"type": "string", "maxLength": 2048, "description": "Absolute http(s) URL without credentials. Exactly one of url or html."},
                    "html": {"type": "string", "description": "Inline HTML document, at most 1 MiB of UTF-8. Exactly one of url or html."},
                    "maxDurationMs": {"type": "integer", "minimum": 100, "maximum": 15000, "default": 10000}
                }),
                vec![],
            ),
            Self::Evaluate => (
                json!({
                    "script": {"type": "string", "description": "JavaScript, at most 64 KiB."},
                    "maxDurationMs": {"type": "integer", "minimum": 100, "maximum": 15000, "default": 10000}
                }),
                vec!["script"],
            ),
            Self::Inspect => (json!({"maxDurationMs": duration()}), vec![]),
            Self::Screenshot => (
                json!({
                    "fullPage": {"type": "boolean", "default": false, "description": "The whole page from its top (at most 16,384 px high) instead of the viewport."},
                    "maxDurationMs": duration()
                }),
                vec![],
            ),
            Self::Status | Self::Close => (json!({}), vec!["sessionID"]),
            Self::Click => (
                target_fields(json!({"maxDurationMs": duration()})),
                vec!["sessionID"],
            ),
            Self::Type => (
                target_fields(json!({
                    "text": {"type": "string", "maxLength": 10000, "description": "The text to type; a newline presses Enter."},
                    "clear": {"type": "boolean", "default": false, "description": "Empty the field first."},
                    "maxDurationMs": duration()
                })),
                vec!["sessionID", "text"],
            ),
            Self::PressKey => (
                json!({
                    "key": {"type": "string", "maxLength": 64, "description": "A key name (Enter, Tab, Backspace, Escape, ArrowDown, ...) or one character, with modifiers joined by + (Shift+Tab, Control+a)."},
                    "maxDurationMs": duration()
                }),
                vec!["sessionID", "key"],
            ),
            Self::Scroll => (
                target_fields(json!({
                    "dx": {"type": "number", "default": 0, "description": "Horizontal distance, CSS pixels."},
                    "dy": {"type": "number", "default": 0, "description": "Vertical distance, CSS pixels (positive scrolls down)."},
                    "maxDurationMs": duration()
                })),
                vec!["sessionID"],
            ),
            Self::SelectOption => (
                target_fields(json!({
                    "value": {"type": "string", "maxLength": 1024, "description": "The option's value, or its visible text."},
                    "maxDurationMs": duration()
                })),
                vec!["sessionID", "value"],
            ),
            Self::History => (
                json!({
                    "step": {"type": "string", "enum": ["back", "forward", "reload"]},
                    "maxDurationMs": duration()
                }),
                vec!["sessionID", "step"],
            ),
            Self::Accessibility => (
                json!({
                    "maxNodes": {"type": "integer", "minimum": 1, "maximum": 5000, "default": 500},
                    "maxDurationMs": duration()
                }),
                vec!["sessionID"],
            ),
            Self::DialogPolicy => (
                json!({
                    "accept": {"type": "boolean", "description": "Accept dialogs (true) or dismiss them (false)."},
                    "promptText": {"type": "string", "maxLength": 10000, "description": "What an accepted prompt returns."},
                    "maxDurationMs": duration()
                }),
                vec!["sessionID", "accept"],
            ),
            Self::Wait => (
                json!({
                    "selector": {"type": "string", "maxLength": 1024, "description": "CSS selector of an element to wait for (rendered: displayed and visible)."},
                    "text": {"type": "string", "maxLength": 1024, "description": "Text to wait for in the page's visible text."},
                    "timeMs": {"type": "integer", "minimum": 1, "maximum": 60000, "description": "Page time: the longest wait for selector/text (default 10000), or with neither the time to let pass."},
                    "maxDurationMs": duration()
                }),
                vec!["sessionID"],
            ),
            Self::Capabilities => (json!({"maxDurationMs": duration()}), vec![]),
            Self::RegisterFont => (
                json!({
                    "data": {"type": "string", "contentEncoding": "base64", "description": "The font file, base64 (standard alphabet), at most 2 MiB decoded."},
                    "maxDurationMs": {"type": "integer", "minimum": 100, "maximum": 15000, "default": 10000}
                }),
                vec!["data"],
            ),
        }
    }

    fn tool(self) -> Tool {
        let (mut props, required) = self.fields();
        if let Some(p) = props.as_object_mut() {
            p.insert(
                "sessionID".into(),
                json!({"description": "Session UUID; null, false, 0, \"\" or absent opens a new tab.", "type": ["string", "null", "boolean", "integer"]}),
            );
            if !self.existing_only() {
                p.insert("width".into(), json!({"type": "integer", "minimum": 320, "maximum": 1920, "description": "Viewport width of a new tab (default 1280)."}));
                p.insert("height".into(), json!({"type": "integer", "minimum": 240, "maximum": 1600, "description": "Viewport height of a new tab (default 720)."}));
            }
        }
        let schema = json!({
            "type": "object",
            "properties": {
                "actions": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": MAX_ACTIONS,
                    "items": {"type": "object", "properties": props, "required": required, "additionalProperties": false}
                }
            },
            "required": ["actions"],
            "additionalProperties": false
        });
        let schema: JsonObject = match schema {
            Value::Object(m) => m,
            _ => JsonObject::new(),
        };
        let read_only = matches!(
            self,
            Self::Inspect
                | Self::Screenshot
                | Self::Status
                | Self::Accessibility
                | Self::Capabilities
        );
        let destructive = self == Self::Close;
        let mut annotations = ToolAnnotations::default();
        annotations.read_only_hint = Some(read_only);
        annotations.open_world_hint = Some(matches!(
            self,
            Self::Navigate | Self::Click | Self::Type | Self::PressKey | Self::History
        ));
        annotations.destructive_hint = Some(destructive);
        let mut tool = Tool::new(self.name(), self.description(), Arc::new(schema));
        tool.annotations = Some(annotations);
        tool
    }
}

fn invalid(m: String) -> GatewayError {
    GatewayError::Invalid(m)
}

fn duration() -> Value {
    json!({"type": "integer", "minimum": 100, "maximum": 15000, "default": 10000})
}

/// The ways an input tool names its element: add them to `props`.
fn target_fields(mut props: Value) -> Value {
    if let Some(p) = props.as_object_mut() {
        p.insert("selector".into(), json!({"type": "string", "maxLength": 1024, "description": "CSS selector of the element (the first match)."}));
        p.insert("visibleText".into(), json!({"type": "string", "maxLength": 1024, "description": "Visible text of the element (exact match first, then containing; links and buttons first)."}));
        p.insert("ref".into(), json!({"type": "string", "pattern": "^e[0-9]+$", "description": "Element reference from servo_accessibility_tree or a page's fields."}));
        p.insert("x".into(), json!({"type": "number", "minimum": 0, "description": "Viewport x in CSS pixels (with y)."}));
        p.insert("y".into(), json!({"type": "number", "minimum": 0, "description": "Viewport y in CSS pixels (with x)."}));
    }
    props
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
fn parse_call(
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
    let allowed = |k: &str| {
        matches!(k, "sessionID")
            || (!tool.existing_only() && matches!(k, "width" | "height"))
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
        ToolKind::Click => Kind::Click(pb::Click {
            target: parse_target(i, obj)?,
        }),
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
        ToolKind::PressKey => Kind::PressKey(pb::PressKey {
            key: string("key")?.ok_or_else(|| invalid(format!("actions[{i}].key is required")))?,
        }),
        ToolKind::Scroll => {
            let number = |k: &str| -> Result<f64, GatewayError> {
                match obj.get(k) {
                    None | Some(Value::Null) => Ok(0.0),
                    Some(v) => v
                        .as_f64()
                        .ok_or_else(|| invalid(format!("actions[{i}].{k} must be a number"))),
                }
            };
            Kind::Scroll(pb::Scroll {
                target: parse_target(i, obj)?,
                dx: number("dx")?,
                dy: number("dy")?,
            })
        }
        ToolKind::SelectOption => Kind::SelectOption(pb::SelectOption {
            target: parse_target(i, obj)?,
            value: string("value")?
                .ok_or_else(|| invalid(format!("actions[{i}].value is required")))?,
        }),
        ToolKind::Wait => Kind::Wait(pb::Wait {
            selector: string("selector")?,
            text: string("text")?,
            time_ms: match int("timeMs")? {
                Some(0) => {
                    return Err(invalid(format!(
                        "actions[{i}].timeMs must be 1 to {}; got 0",
                        crate::validate::MAX_WAIT_MS
                    )));
                }
                n => n.unwrap_or(0),
            },
        }),
        ToolKind::History => {
            let step = match string("step")?.as_deref() {
                Some("back") => pb::history::Step::Back,
                Some("forward") => pb::history::Step::Forward,
                Some("reload") => pb::history::Step::Reload,
                Some(other) => {
                    return Err(invalid(format!(
                        "actions[{i}].step must be back, forward or reload; got {other:?}"
                    )));
                }
                None => return Err(invalid(format!("actions[{i}].step is required"))),
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
        ToolKind::RegisterFont => {
            let data =
                string("data")?.ok_or_else(|| invalid(format!("actions[{i}].data is required")))?;
            let data = base64::engine::general_purpose::STANDARD
                .decode(data.trim())
                .map_err(|e| invalid(format!("actions[{i}].data is not valid base64: {e}")))?;
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

fn page_json(p: &pb::Page) -> Value {
    let text: String = p.text.chars().take(MAX_TEXT_CHARS).collect();
    let mut page = json!({
        "url": p.url,
        "title": p.title,
        "text": text,
        "links": links_json(&p.links),
        "settle": p.settle,
    });
    let Some(obj) = page.as_object_mut() else {
        return page;
    };
    if let Some(e) = &p.load_error {
        obj.insert("loadError".into(), json!(e));
    }
    // Lists an agent rarely needs empty are left out when they are.
    if !p.fields.is_empty() {
        obj.insert(
            "fields".into(),
            p.fields
                .iter()
                .map(|f| {
                    json!({"ref": f.r#ref, "kind": f.kind, "name": f.name, "label": f.label, "value": f.value, "checked": f.checked})
                })
                .collect(),
        );
    }
    if !p.frames.is_empty() {
        obj.insert(
            "frames".into(),
            p.frames
                .iter()
                .map(|f| {
                    json!({
                        "url": f.url,
                        "title": f.title,
                        "text": f.text,
                        "links": links_json(&f.links),
                    })
                })
                .collect(),
        );
    }
    if !p.dialogs.is_empty() {
        obj.insert(
            "dialogs".into(),
            p.dialogs
                .iter()
                .map(|d| json!({"kind": d.kind, "message": d.message, "accepted": d.accepted, "answer": d.answer}))
                .collect(),
        );
    }
    if !p.console.is_empty() {
        obj.insert(
            "console".into(),
            p.console
                .iter()
                .map(|c| json!({"level": c.level, "text": c.text}))
                .collect(),
        );
    }
    page
}

fn links_json(links: &[pb::Link]) -> Vec<Value> {
    links
        .iter()
        .map(|l| json!({"text": l.text, "href": l.href}))
        .collect()
}

/// The page as a reader sees it: its headline, URL, a snippet (the page's
/// description or the start of its first paragraph) and the main content
/// with the boilerplate removed, plus byline, date and site when known.
fn results_json(p: &pb::Page) -> Value {
    let readable = p.readable.clone().unwrap_or_default();
    let title = [&readable.title, &p.title, &p.url]
        .into_iter()
        .find(|t| !t.is_empty())
        .cloned()
        .unwrap_or_default();
    let mut entry = json!({
        "title": title,
        "url": p.url,
        "snippet": readable.excerpt,
        "content": readable.content,
    });
    if let Some(obj) = entry.as_object_mut() {
        for (key, value) in [
            ("byline", readable.byline),
            ("published", readable.published),
            ("siteName", readable.site_name),
        ] {
            if let Some(v) = value {
                obj.insert(key.into(), json!(v));
            }
        }
    }
    json!([entry])
}

/// Renders a call's answer: the `{responses, metadata}` object as structured
/// content and text, plus one PNG image block per screenshot in action order.
fn render(tool: ToolKind, resp: ExecuteResponse) -> CallToolResult {
    let mut images = Vec::new();
    let responses: Vec<Value> = resp
        .responses
        .iter()
        .map(|r| response_json(tool, r, &mut images))
        .collect();
    let meta = resp.metadata.unwrap_or_default();
    let body = json!({
        "responses": responses,
        "metadata": {
            "responseCount": meta.response_count,
            "successfulCount": meta.successful_count,
            "failedCount": meta.failed_count,
        }
    });
    let mut content = vec![ContentBlock::text(body.to_string())];
    content.extend(images);
    let mut result = CallToolResult::success(content);
    result.structured_content = Some(body);
    result.is_error = Some(meta.failed_count > 0);
    result
}

fn response_json(tool: ToolKind, r: &ActionResponse, images: &mut Vec<ContentBlock>) -> Value {
    let head =
        |ok: bool| json!({"actionIndex": r.action_index, "sessionID": r.session_id, "ok": ok});
    match &r.outcome {
        Some(Outcome::Output(out)) => {
            let response = match &out.kind {
                Some(action_output::Kind::Page(p)) => match tool {
                    ToolKind::Navigate => {
                        json!({"action": "navigate", "page": page_json(p), "results": results_json(p)})
                    }
                    _ => json!({"page": page_json(p), "results": results_json(p)}),
                },
                Some(action_output::Kind::Evaluate(e)) => {
                    let value: Value = serde_json::from_str(&e.value_json).unwrap_or(Value::Null);
                    json!({"value": value, "page": e.page.as_ref().map(page_json)})
                }
                Some(action_output::Kind::Screenshot(s)) => {
                    let index = images.len();
                    images.push(ContentBlock::image(
                        base64::engine::general_purpose::STANDARD.encode(&s.png),
                        "image/png",
                    ));
                    json!({
                        "imageIndex": index,
                        "mimeType": "image/png",
                        "width": s.width,
                        "height": s.height,
                        "page": s.page.as_ref().map(page_json),
                    })
                }
                Some(action_output::Kind::Status(s)) => json!({
                    "status": s.status,
                    "updatedAt": s.updated_at,
                    "expiresAt": s.expires_at,
                    "runtimeAvailable": s.runtime_available,
                    "resumable": s.resumable,
                    "failure": s.failure,
                    "notRestored": s.not_restored,
                }),
                Some(action_output::Kind::Closed(c)) => json!({"closed": c.closed}),
                Some(action_output::Kind::Font(f)) => {
                    json!({"families": f.families, "fontCount": f.font_count})
                }
                Some(action_output::Kind::Accessibility(a)) => json!({
                    "tree": a.tree,
                    "nodes": a.nodes,
                    "truncated": a.truncated,
                    "page": a.page.as_ref().map(page_json),
                }),
                Some(action_output::Kind::Capabilities(c)) => json!({
                    "capabilities": c.capabilities.iter().map(|c| json!({"name": c.name, "support": c.support, "reason": c.reason})).collect::<Vec<_>>(),
                }),
                None => Value::Null,
            };
            let mut v = head(true);
            if let Some(o) = v.as_object_mut() {
                o.insert("response".into(), response);
            }
            v
        }
        Some(Outcome::Error(e)) => {
            let code = e.code();
            let mut v = head(false);
            if let Some(o) = v.as_object_mut() {
                o.insert(
                    "error".into(),
                    json!(e.message.chars().take(2048).collect::<String>()),
                );
                o.insert("code".into(), json!(code_name(code)));
                o.insert("status".into(), json!(http_status(code)));
                if code == pb::ErrorCode::Unavailable {
                    o.insert("retryAfterMs".into(), json!(retry_after_ms()));
                }
            }
            v
        }
        None => head(false),
    }
}

/// The MCP server: one per request in stateless mode, so it holds only handles.
#[derive(Clone)]
pub struct McpServer {
    dispatcher: Dispatcher,
}

impl McpServer {
    /// A server over `dispatcher`.
    pub fn new(dispatcher: Dispatcher) -> Self {
        Self { dispatcher }
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("servo-fleet", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Headless browser tabs for agents. Open a tab with servo_navigate (sessionID null), then pass the returned sessionID to the other tools. Up to 20 actions per call, one per session, run concurrently.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut tools: Vec<Tool> = ToolKind::ALL.into_iter().map(ToolKind::tool).collect();
        tools.push(list_tool());
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let tool = ToolKind::from_name(&request.name);
        if tool.is_none() && request.name != LIST_TOOL {
            return Err(ErrorData::invalid_params(
                format!("unknown tool {:?}", request.name),
                None,
            ));
        }
        // The auth layer put the caller's tenant into the HTTP request's extensions.
        let tenant = context
            .extensions
            .get::<http::request::Parts>()
            .and_then(|p| p.extensions.get::<Tenant>())
            .cloned()
            .ok_or_else(|| {
                ErrorData::internal_error("unauthenticated request reached a tool", None)
            })?;
        let Some(tool) = tool else {
            return Ok(self.list(&tenant, request.arguments.as_ref()).await.into());
        };
        // The trace: `params._meta.traceparent` if the client sent one, else
        // the HTTP request's `traceparent` header.
        let span = tracing::info_span!("mcp.tool", tool = %request.name);
        // rmcp moves the request's `_meta` into the context.
        let meta = request
            .meta
            .as_ref()
            .map(|m| &m.0.0)
            .or(Some(&context.meta.0.0));
        let headers = context
            .extensions
            .get::<http::request::Parts>()
            .map(|p| &p.headers);
        fleet_telemetry::trace::set_parent(&span, |name| {
            meta.and_then(|m| m.get(name))
                .and_then(Value::as_str)
                .or_else(|| headers?.get(name)?.to_str().ok())
                .map(str::to_owned)
        });
        let result = match parse_call(tool, request.arguments.as_ref()) {
            Ok(actions) => match self
                .dispatcher
                .execute(&tenant, actions)
                .instrument(span)
                .await
            {
                Ok(resp) => render(tool, resp),
                Err(e) => e.to_tool_result(),
            },
            Err(e) => e.to_tool_result(),
        };
        Ok(result.into())
    }
}

fn list_tool() -> Tool {
    let schema = json!({
        "type": "object",
        "properties": {"limit": {"type": "integer", "minimum": 1, "maximum": crate::validate::MAX_LIST, "default": crate::validate::DEFAULT_LIST}},
        "additionalProperties": false
    });
    let schema = match schema {
        Value::Object(m) => m,
        _ => JsonObject::new(),
    };
    let mut tool = Tool::new(
        LIST_TOOL,
        "List your sessions, most recently used first: sessionID, url, title, status, updatedAt, expiresAt.",
        Arc::new(schema),
    );
    let mut annotations = ToolAnnotations::default();
    annotations.read_only_hint = Some(true);
    tool.annotations = Some(annotations);
    tool
}

impl McpServer {
    async fn list(&self, tenant: &Tenant, args: Option<&JsonObject>) -> CallToolResult {
        let limit = match parse_limit(args) {
            Ok(l) => l,
            Err(e) => return e.to_tool_result(),
        };
        match self.dispatcher.list(tenant, limit).await {
            Ok(list) => {
                let sessions: Vec<Value> = list
                    .sessions
                    .iter()
                    .map(|s| {
                        json!({
                            "sessionID": s.session_id,
                            "url": s.url,
                            "title": s.title,
                            "status": s.status,
                            "updatedAt": s.updated_at,
                            "expiresAt": s.expires_at,
                        })
                    })
                    .collect();
                let body = json!({"sessions": sessions});
                let mut r = CallToolResult::success(vec![ContentBlock::text(body.to_string())]);
                r.structured_content = Some(body);
                r
            }
            Err(e) => e.to_tool_result(),
        }
    }
}

fn parse_limit(args: Option<&JsonObject>) -> Result<u32, GatewayError> {
    let Some(args) = args else { return Ok(0) };
    if let Some(k) = args.keys().find(|k| k.as_str() != "limit") {
        return Err(invalid(format!(
            "unknown argument {k:?}; the only argument is limit"
        )));
    }
    match args.get("limit") {
        None | Some(Value::Null) => Ok(0),
        Some(v) => v
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .filter(|n| *n >= 1)
            .ok_or_else(|| {
                invalid(format!(
                    "limit must be an integer from 1 to {}",
                    crate::validate::MAX_LIST
                ))
            }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: Value) -> JsonObject {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn falsy_session_ids_mean_a_new_session() {
        for falsy in [json!(null), json!(false), json!(0), json!("")] {
            let a = parse_call(
                ToolKind::Inspect,
                Some(&args(json!({"actions": [{"sessionID": falsy}]}))),
            )
            .unwrap();
            assert_eq!(a[0].session_id, "");
        }
        let e = parse_call(
            ToolKind::Inspect,
            Some(&args(json!({"actions": [{"sessionID": true}]}))),
        )
        .unwrap_err();
        assert!(e.to_string().contains("actions[0].sessionID"), "{e}");
    }

    #[test]
    fn navigate_needs_exactly_one_of_url_and_html() {
        let both = args(json!({"actions": [{"url": "https://e.com/", "html": "<p>"}]}));
        assert!(
            parse_call(ToolKind::Navigate, Some(&both))
                .unwrap_err()
                .to_string()
                .contains("got both")
        );
        let neither = args(json!({"actions": [{}]}));
        assert!(
            parse_call(ToolKind::Navigate, Some(&neither))
                .unwrap_err()
                .to_string()
                .contains("got neither")
        );
    }

    #[test]
    fn unknown_fields_are_named() {
        let a = args(json!({"actions": [{"url": "https://e.com/", "colour": 1}]}));
        let e = parse_call(ToolKind::Navigate, Some(&a))
            .unwrap_err()
            .to_string();
        assert!(e.contains("\"colour\""), "{e}");
        let a = args(json!({"actions": [{"html": "<p>"}]}));
        let e = parse_call(ToolKind::Inspect, Some(&a))
            .unwrap_err()
            .to_string();
        assert!(e.contains("\"html\""), "{e}");
    }

    #[test]
    fn a_partial_viewport_fills_the_other_side_with_the_default() {
        let a = parse_call(
            ToolKind::Navigate,
            Some(&args(json!({"actions": [{"html": "x", "width": 800}]}))),
        )
        .unwrap();
        assert_eq!(
            a[0].viewport,
            Some(pb::Viewport {
                width: 800,
                height: 720
            })
        );
    }
}
