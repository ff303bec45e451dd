//! The JSON Schemas `tools/list` shows, built from the rows of [`TOOLS`]:
//! each tool's action fields inside the `{actions: [...]}` envelope, with the
//! session fields its [`Sessions`] allows, its annotations, and the session
//! list's own schema. The field helpers the rows use live here too, so every
//! limit a schema names is read from its one home.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

use super::tools::{LIST_TOOL, SEARCH_TOOL, Sessions, Spec, TOOLS};
use crate::validate::{HEIGHT, MAX_ACTIONS, MAX_TARGET_CHARS, MAX_URL_CHARS, WIDTH};

impl Spec {
    /// The tool as `tools/list` shows it: its action fields inside the
    /// `{actions: [...]}` envelope every action tool shares.
    fn tool(&self) -> Tool {
        let (mut props, required) = (self.fields)();
        if let Some(p) = props.as_object_mut()
            && self.sessions != Sessions::None
        {
            p.insert(
                "sessionID".into(),
                json!({"description": "Session UUID; null, false, 0, \"\" or absent opens a new tab.", "type": ["string", "null", "boolean", "integer"]}),
            );
            if self.sessions == Sessions::Any {
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
        annotations.idempotent_hint = Some(self.idempotent);
        let mut tool = Tool::new(self.name, self.description, Arc::new(schema));
        tool.annotations = Some(annotations);
        tool.meta = Some(super::apps::tool_meta(super::apps::BROWSER_UI));
        tool
    }
}

/// Every tool `tools/list` answers with: the action tools in [`TOOLS`] order
/// (without those reaching outside the tab when `read_only`), then the
/// session list.
pub(super) fn all(read_only: bool) -> Vec<Tool> {
    let mut tools: Vec<Tool> = TOOLS
        .iter()
        .filter(|t| !(read_only && t.outside))
        .map(Spec::tool)
        .collect();
    tools.push(list_tool());
    tools.push(search_tool());
    tools
}

fn search_tool() -> Tool {
    use crate::search::{DEFAULT_RESULTS, MAX_QUERY_CHARS, MAX_RESULTS, PROVIDER_CHOICES};
    let schema = json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS, "description": "What to search for (trimmed)."},
            "limit": {"type": "integer", "minimum": 1, "maximum": MAX_RESULTS, "default": DEFAULT_RESULTS},
            "provider": {"type": "string", "enum": PROVIDER_CHOICES, "default": "auto", "description": "auto or all: Google, Bing, DuckDuckGo and Yandex in parallel; or one of them."}
        },
        "required": ["query"],
        "additionalProperties": false
    });
    let schema = match schema {
        Value::Object(m) => m,
        _ => JsonObject::new(),
    };
    let mut tool = Tool::new(
        SEARCH_TOOL,
        "Search the public web across Google, Bing, DuckDuckGo and Yandex (auto and all ask them in parallel; a provider that fails is reported in failedProviders, not fatal). Returns up to limit results, each URL once, as {title, url, snippet, provider}. Open a result with servo_navigate.",
        Arc::new(schema),
    );
    let mut annotations = ToolAnnotations::default();
    annotations.read_only_hint = Some(true);
    annotations.open_world_hint = Some(true);
    annotations.idempotent_hint = Some(true);
    annotations.destructive_hint = Some(false);
    tool.annotations = Some(annotations);
    tool.meta = Some(super::apps::tool_meta(super::apps::SEARCH_UI));
    tool
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

/// The fields of an HTTP request; `method` only where the tool does not fix it.
pub(super) fn http_fields(with_method: bool) -> (Value, Vec<&'static str>) {
    use fleet_proto::http::{
        DEFAULT_RESPONSE_BYTES, MAX_BODY_BYTES, MAX_HEADER_NAME_CHARS, MAX_HEADER_VALUE_CHARS,
        MAX_HEADERS, MAX_METHOD_CHARS, MAX_RESPONSE_BYTES,
    };
    let mut props = json!({
        "url": {"type": "string", "format": "uri", "maxLength": MAX_URL_CHARS, "description": "Absolute http(s) URL without credentials."},
        "headers": {
            "type": "object",
            "maxProperties": MAX_HEADERS,
            "propertyNames": {"minLength": 1, "maxLength": MAX_HEADER_NAME_CHARS},
            "additionalProperties": {"type": "string", "maxLength": MAX_HEADER_VALUE_CHARS},
            "description": "Request headers, name to value."
        },
        "body": {"type": "string", "description": format!("UTF-8 request body, at most {MAX_BODY_BYTES} bytes (1 MiB); not with GET or HEAD.")},
        "followRedirects": {"type": "boolean", "default": true, "description": "Follow redirects (at most 5), checking each hop; false returns the 3xx itself."},
        "maxResponseBytes": {"type": "integer", "minimum": 1, "maximum": MAX_RESPONSE_BYTES, "default": DEFAULT_RESPONSE_BYTES, "description": "Most body bytes returned; a longer body is cut and marked truncated."},
        "maxDurationMs": duration()
    });
    if with_method && let Some(p) = props.as_object_mut() {
        p.insert("method".into(), json!({"type": "string", "pattern": format!("^[!#$%&'*+.^_`|~0-9A-Za-z-]{{1,{MAX_METHOD_CHARS}}}$"), "default": "GET", "description": "HTTP method; extension methods are allowed, CONNECT, TRACE and TRACK are not."}));
    }
    (props, vec!["url"])
}

/// A storage area field.
pub(super) fn area() -> Value {
    json!({"type": "string", "enum": ["local", "session"], "default": "local"})
}

pub(super) fn duration() -> Value {
    json!({"type": "integer", "minimum": fleet_proto::MIN_BUDGET_MS, "maximum": fleet_proto::MAX_BUDGET_MS, "default": fleet_proto::DEFAULT_BUDGET_MS})
}

/// The ways an input tool names its element: add them to `props`.
pub(super) fn target_fields(mut props: Value) -> Value {
    if let Some(p) = props.as_object_mut() {
        p.insert("selector".into(), json!({"type": "string", "maxLength": MAX_TARGET_CHARS, "description": "CSS selector of the element (the first match)."}));
        p.insert("visibleText".into(), json!({"type": "string", "maxLength": MAX_TARGET_CHARS, "description": "Visible text of the element (exact match first, then containing; links and buttons first)."}));
        p.insert("ref".into(), json!({"type": "string", "pattern": "^e[0-9]+$", "description": "Element reference from servo_accessibility_tree or a page's fields."}));
        p.insert("x".into(), json!({"type": "number", "minimum": 0, "description": "Viewport x in CSS pixels (with y)."}));
        p.insert("y".into(), json!({"type": "number", "minimum": 0, "description": "Viewport y in CSS pixels (with x)."}));
    }
    props
}
