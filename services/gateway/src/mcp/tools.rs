//! The tool catalogue: every `servo_*` tool as one row of [`TOOLS`] — its name,
//! description, annotations and action fields together — and the JSON Schema
//! `tools/list` builds from a row. The argument parser reads the same rows, so a
//! field the schema offers is a field the parser accepts.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

use crate::validate::{
    HEIGHT, MAX_A11Y_NODES, MAX_ACTIONS, MAX_KEY_CHARS, MAX_PROMPT_CHARS, MAX_TARGET_CHARS,
    MAX_TYPE_CHARS, MAX_URL_CHARS, MAX_WAIT_MS, WIDTH,
};

/// The tools, each a shape of action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ToolKind {
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
pub(super) const LIST_TOOL: &str = "servo_session_list";

/// One tool, as `tools/list` describes it and the parser checks it.
pub(super) struct Spec {
    pub(super) kind: ToolKind,
    pub(super) name: &'static str,
    pub(super) description: &'static str,
    /// Acts on existing sessions only, so an action takes no viewport fields.
    pub(super) existing_only: bool,
    pub(super) read_only: bool,
    pub(super) open_world: bool,
    pub(super) destructive: bool,
    /// Fields of one action beyond the common ones, and which are required.
    pub(super) fields: fn() -> (Value, Vec<&'static str>),
}

/// Every action tool, in `tools/list` order; row `i` is the tool whose
/// [`ToolKind`] is `i` (a test holds that).
pub(super) static TOOLS: [Spec; 17] = [
    Spec {
        kind: ToolKind::Navigate,
        name: "servo_navigate",
        description: "Load a URL or inline HTML into browser tabs and return each page's URL, title, visible text and links. A falsy or absent sessionID opens a new tab (optionally with width/height); an existing sessionID reuses its tab.",
        existing_only: false,
        read_only: false,
        open_world: true,
        destructive: false,
        fields: || {
            (
                json!({
                    "url": {"type": "string", "maxLength": MAX_URL_CHARS, "description": "Absolute http(s) URL without credentials. Exactly one of url or html."},
                    "html": {"type": "string", "description": "Inline HTML document, at most 1 MiB of UTF-8. Exactly one of url or html."},
                    "maxDurationMs": duration()
                }),
                vec![],
            )
        },
    },
    Spec {
        kind: ToolKind::Inspect,
        name: "servo_inspect",
        description: "Read the current page of existing tabs: URL, title, visible text (innerText) and links.",
        existing_only: false,
        read_only: true,
        open_world: false,
        destructive: false,
        fields: || (json!({"maxDurationMs": duration()}), vec![]),
    },
    Spec {
        kind: ToolKind::Evaluate,
        name: "servo_evaluate",
        description: "Evaluate JavaScript in tabs and return the completion value as JSON (promises are awaited). Side effects on the page are kept.",
        existing_only: false,
        read_only: false,
        open_world: false,
        destructive: false,
        fields: || {
            (
                json!({
                    "script": {"type": "string", "description": "JavaScript, at most 64 KiB."},
                    "maxDurationMs": duration()
                }),
                vec!["script"],
            )
        },
    },
    Spec {
        kind: ToolKind::Screenshot,
        name: "servo_screenshot",
        description: "Take a PNG screenshot of each tab's viewport, or with fullPage the whole page; images are returned as image content blocks in action order.",
        existing_only: false,
        read_only: true,
        open_world: false,
        destructive: false,
        fields: || {
            (
                json!({
                    "fullPage": {"type": "boolean", "default": false, "description": "The whole page from its top (at most 16,384 px high) instead of the viewport."},
                    "maxDurationMs": duration()
                }),
                vec![],
            )
        },
    },
    Spec {
        kind: ToolKind::Status,
        name: "servo_session_status",
        description: "Report a session's lifecycle state: status, updatedAt, expiresAt, runtimeAvailable, resumable, and what a restore does not bring back.",
        existing_only: true,
        read_only: true,
        open_world: false,
        destructive: false,
        fields: || (json!({}), vec!["sessionID"]),
    },
    Spec {
        kind: ToolKind::Close,
        name: "servo_session_close",
        description: "Close sessions: delete each tab and everything stored for it (snapshot, storage). Later calls with its sessionID get SESSION_NOT_FOUND.",
        existing_only: true,
        read_only: false,
        open_world: false,
        destructive: true,
        fields: || (json!({}), vec!["sessionID"]),
    },
    Spec {
        kind: ToolKind::RegisterFont,
        name: "servo_register_font",
        description: "Register a font (TrueType, OpenType, WOFF or WOFF2, base64) in tabs so pages can name its families in CSS font-family. Returns the family names; the font stays with the session across restores. At most 2 MiB per font, 16 fonts per session.",
        existing_only: false,
        read_only: false,
        open_world: false,
        destructive: false,
        fields: || {
            (
                json!({
                    "data": {"type": "string", "contentEncoding": "base64", "description": "The font file, base64 (standard alphabet), at most 2 MiB decoded."},
                    "maxDurationMs": duration()
                }),
                vec!["data"],
            )
        },
    },
    Spec {
        kind: ToolKind::Click,
        name: "servo_click",
        description: "Click an element like a user: found by CSS selector, visible text, accessibility ref (from servo_accessibility_tree or a page's fields) or viewport point x/y. Fires mousedown/mouseup/click, moves focus and runs the default action (follows links, toggles checkboxes, submits forms), then returns the page after it settles.",
        existing_only: true,
        read_only: false,
        open_world: true,
        destructive: false,
        fields: || {
            (
                target_fields(json!({"maxDurationMs": duration()})),
                vec!["sessionID"],
            )
        },
    },
    Spec {
        kind: ToolKind::Type,
        name: "servo_type",
        description: "Type text into a field (give selector, ref, visibleText or x/y to click it first) or into the focused element: keydown, beforeinput, input and keyup per character; a newline presses Enter (which submits a form). clear empties the field first.",
        existing_only: true,
        read_only: false,
        open_world: true,
        destructive: false,
        fields: || {
            (
                target_fields(json!({
                    "text": {"type": "string", "maxLength": MAX_TYPE_CHARS, "description": "The text to type; a newline presses Enter."},
                    "clear": {"type": "boolean", "default": false, "description": "Empty the field first."},
                    "maxDurationMs": duration()
                })),
                vec!["sessionID", "text"],
            )
        },
    },
    Spec {
        kind: ToolKind::PressKey,
        name: "servo_press_key",
        description: "Press a key in the focused element, with modifiers: Enter (submits forms, follows focused links), Tab / Shift+Tab (moves focus), Backspace, Escape, ArrowUp/ArrowDown (changes selects, scrolls), PageUp/PageDown, Home/End, Control+a, or a single character.",
        existing_only: true,
        read_only: false,
        open_world: true,
        destructive: false,
        fields: || {
            (
                json!({
                    "key": {"type": "string", "maxLength": MAX_KEY_CHARS, "description": "A key name (Enter, Tab, Backspace, Escape, ArrowDown, ...) or one character, with modifiers joined by + (Shift+Tab, Control+a)."},
                    "maxDurationMs": duration()
                }),
                vec!["sessionID", "key"],
            )
        },
    },
    Spec {
        kind: ToolKind::Scroll,
        name: "servo_scroll",
        description: "Scroll the page, or an element (by selector, ref, visibleText or x/y) and failing that its nearest scrollable ancestor, by dx/dy CSS pixels.",
        existing_only: true,
        read_only: false,
        open_world: false,
        destructive: false,
        fields: || {
            (
                target_fields(json!({
                    "dx": {"type": "number", "default": 0, "description": "Horizontal distance, CSS pixels."},
                    "dy": {"type": "number", "default": 0, "description": "Vertical distance, CSS pixels (positive scrolls down)."},
                    "maxDurationMs": duration()
                })),
                vec!["sessionID"],
            )
        },
    },
    Spec {
        kind: ToolKind::SelectOption,
        name: "servo_select_option",
        description: "Choose an option of a <select> element (by selector, ref, visibleText or x/y) by its value or visible text; fires input and change.",
        existing_only: true,
        read_only: false,
        open_world: false,
        destructive: false,
        fields: || {
            (
                target_fields(json!({
                    "value": {"type": "string", "maxLength": MAX_TARGET_CHARS, "description": "The option's value, or its visible text."},
                    "maxDurationMs": duration()
                })),
                vec!["sessionID", "value"],
            )
        },
    },
    Spec {
        kind: ToolKind::History,
        name: "servo_history",
        description: "Go back, forward or reload in a tab's history (step: back | forward | reload) and return the page.",
        existing_only: true,
        read_only: false,
        open_world: true,
        destructive: false,
        fields: || {
            (
                json!({
                    "step": {"type": "string", "enum": ["back", "forward", "reload"]},
                    "maxDurationMs": duration()
                }),
                vec!["sessionID", "step"],
            )
        },
    },
    Spec {
        kind: ToolKind::Accessibility,
        name: "servo_accessibility_tree",
        description: "Read the accessibility tree of the page: one line per node with role, name, states and an element ref (e12) that servo_click, servo_type, servo_scroll and servo_select_option accept. Cut at maxNodes (default 500) with a truncation marker.",
        existing_only: true,
        read_only: true,
        open_world: false,
        destructive: false,
        fields: || {
            (
                json!({
                    "maxNodes": {"type": "integer", "minimum": 1, "maximum": MAX_A11Y_NODES, "default": 500},
                    "maxDurationMs": duration()
                }),
                vec!["sessionID"],
            )
        },
    },
    Spec {
        kind: ToolKind::DialogPolicy,
        name: "servo_dialog_policy",
        description: "Set how a tab answers alert/confirm/prompt from now on: accept (confirm returns true, prompt returns promptText or its default) or dismiss (the default). Every dialog is reported in the page's dialogs list.",
        existing_only: true,
        read_only: false,
        open_world: false,
        destructive: false,
        fields: || {
            (
                json!({
                    "accept": {"type": "boolean", "description": "Accept dialogs (true) or dismiss them (false)."},
                    "promptText": {"type": "string", "maxLength": MAX_PROMPT_CHARS, "description": "What an accepted prompt returns."},
                    "maxDurationMs": duration()
                }),
                vec!["sessionID", "accept"],
            )
        },
    },
    Spec {
        kind: ToolKind::Wait,
        name: "servo_wait",
        description: "Wait on a tab's page: until an element matching selector is rendered, until the visible text contains text, or (with neither) for timeMs of page time. The page's timers run as the page clock moves ahead (no real waiting); a condition not met within timeMs (default 10000) is a TIMEOUT error naming it.",
        existing_only: true,
        read_only: false,
        open_world: false,
        destructive: false,
        fields: || {
            (
                json!({
                    "selector": {"type": "string", "maxLength": MAX_TARGET_CHARS, "description": "CSS selector of an element to wait for (rendered: displayed and visible)."},
                    "text": {"type": "string", "maxLength": MAX_TARGET_CHARS, "description": "Text to wait for in the page's visible text."},
                    "timeMs": {"type": "integer", "minimum": 1, "maximum": MAX_WAIT_MS, "description": "Page time: the longest wait for selector/text (default 10000), or with neither the time to let pass."},
                    "maxDurationMs": duration()
                }),
                vec!["sessionID"],
            )
        },
    },
    Spec {
        kind: ToolKind::Capabilities,
        name: "servo_get_capabilities",
        description: "Report what the browser engine supports: each feature as supported, partial, unsupported or unverified, with the reason and the checks that cover it.",
        existing_only: false,
        read_only: true,
        open_world: false,
        destructive: false,
        fields: || (json!({"maxDurationMs": duration()}), vec![]),
    },
];

impl ToolKind {
    /// This tool's row of [`TOOLS`].
    pub(super) fn spec(self) -> &'static Spec {
        &TOOLS[self as usize]
    }

    pub(super) fn name(self) -> &'static str {
        self.spec().name
    }

    /// Tools that act on existing sessions only (no viewport fields).
    pub(super) fn existing_only(self) -> bool {
        self.spec().existing_only
    }

    /// Fields of one action beyond the common ones.
    pub(super) fn fields(self) -> (Value, Vec<&'static str>) {
        (self.spec().fields)()
    }

    pub(super) fn from_name(name: &str) -> Option<Self> {
        TOOLS.iter().find(|t| t.name == name).map(|t| t.kind)
    }
}

impl Spec {
    /// The tool as `tools/list` shows it: its action fields inside the
    /// `{actions: [...]}` envelope every action tool shares.
    fn tool(&self) -> Tool {
        let (mut props, required) = (self.fields)();
        if let Some(p) = props.as_object_mut() {
            p.insert(
                "sessionID".into(),
                json!({"description": "Session UUID; null, false, 0, \"\" or absent opens a new tab.", "type": ["string", "null", "boolean", "integer"]}),
            );
            if !self.existing_only {
                p.insert("width".into(), json!({"type": "integer", "minimum": WIDTH.start(), "maximum": WIDTH.end(), "description": "Viewport width of a new tab (default 1280)."}));
                p.insert("height".into(), json!({"type": "integer", "minimum": HEIGHT.start(), "maximum": HEIGHT.end(), "description": "Viewport height of a new tab (default 720)."}));
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
        let mut annotations = ToolAnnotations::default();
        annotations.read_only_hint = Some(self.read_only);
        annotations.open_world_hint = Some(self.open_world);
        annotations.destructive_hint = Some(self.destructive);
        let mut tool = Tool::new(self.name, self.description, Arc::new(schema));
        tool.annotations = Some(annotations);
        tool
    }
}

/// Every tool `tools/list` answers with: the action tools in [`TOOLS`] order,
/// then the session list.
pub(super) fn all() -> Vec<Tool> {
    let mut tools: Vec<Tool> = TOOLS.iter().map(Spec::tool).collect();
    tools.push(list_tool());
    tools
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

fn duration() -> Value {
    json!({"type": "integer", "minimum": fleet_proto::MIN_BUDGET_MS, "maximum": fleet_proto::MAX_BUDGET_MS, "default": fleet_proto::DEFAULT_BUDGET_MS})
}

/// The ways an input tool names its element: add them to `props`.
fn target_fields(mut props: Value) -> Value {
    if let Some(p) = props.as_object_mut() {
        p.insert("selector".into(), json!({"type": "string", "maxLength": MAX_TARGET_CHARS, "description": "CSS selector of the element (the first match)."}));
        p.insert("visibleText".into(), json!({"type": "string", "maxLength": MAX_TARGET_CHARS, "description": "Visible text of the element (exact match first, then containing; links and buttons first)."}));
        p.insert("ref".into(), json!({"type": "string", "pattern": "^e[0-9]+$", "description": "Element reference from servo_accessibility_tree or a page's fields."}));
        p.insert("x".into(), json!({"type": "number", "minimum": 0, "description": "Viewport x in CSS pixels (with y)."}));
        p.insert("y".into(), json!({"type": "number", "minimum": 0, "description": "Viewport y in CSS pixels (with x)."}));
    }
    props
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_sits_in_the_row_its_kind_indexes() {
        for (i, spec) in TOOLS.iter().enumerate() {
            assert_eq!(spec.kind as usize, i, "{}", spec.name);
            assert_eq!(ToolKind::from_name(spec.name), Some(spec.kind));
        }
    }

    #[test]
    fn tool_names_are_unique_and_the_list_tool_is_not_an_action_tool() {
        let mut names: Vec<&str> = TOOLS.iter().map(|t| t.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), TOOLS.len());
        assert_eq!(ToolKind::from_name(LIST_TOOL), None);
    }
}
