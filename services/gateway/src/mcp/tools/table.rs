//! The rows of the tool table, one per [`ToolKind`] in its order: each tool's
//! name, description, annotations and action fields.

use serde_json::json;

use super::super::schema::{area, duration, http_fields, target_fields};
use super::fields::{cookie_set_fields, log_fields, storage_state_fields};
use super::{ACTS, DELETES, READS, SETS, Sessions, Spec, ToolKind, http_tool, state_tool};
use crate::validate::{
    MAX_A11Y_NODES, MAX_ACTIONS, MAX_FONT_BASE64_CHARS, MAX_KEY_CHARS, MAX_PROMPT_CHARS,
    MAX_TARGET_CHARS, MAX_TYPE_CHARS, MAX_URL_CHARS, MAX_WAIT_MS,
};

/// Every action tool, in `tools/list` order; row `i` is the tool whose
/// [`ToolKind`] is `i` (a test holds that).
pub(in crate::mcp) static TOOLS: [Spec; 51] = [
    Spec {
        kind: ToolKind::Navigate,
        name: "servo_navigate",
        description: "Load a URL or inline HTML into browser tabs and return each page's URL, title, visible text and links. A falsy or absent sessionID opens a new tab (optionally with width/height); an existing sessionID reuses its tab.",
        sessions: Sessions::Any,
        read_only: false,
        open_world: true,
        outside: false,
        idempotent: false,
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
        sessions: Sessions::Any,
        read_only: true,
        open_world: false,
        outside: false,
        idempotent: false,
        destructive: false,
        fields: || (json!({"maxDurationMs": duration()}), vec![]),
    },
    Spec {
        kind: ToolKind::Evaluate,
        name: "servo_evaluate",
        description: "Evaluate JavaScript in tabs and return the completion value as JSON (promises are awaited). Side effects on the page are kept.",
        sessions: Sessions::Any,
        read_only: false,
        open_world: false,
        outside: true,
        idempotent: false,
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
        sessions: Sessions::Any,
        read_only: true,
        open_world: false,
        outside: false,
        idempotent: false,
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
        description: "Report a session's lifecycle state: status, updatedAt, expiresAt, runtimeAvailable, resumable, and what a restore does not bring back. A falsy or absent sessionID opens a new blank tab and reports it, as Servo MCP does.",
        sessions: Sessions::Any,
        read_only: false,
        open_world: false,
        outside: false,
        idempotent: false,
        destructive: false,
        fields: || (json!({}), vec![]),
    },
    Spec {
        kind: ToolKind::Close,
        name: "servo_session_close",
        description: "Close sessions: delete each tab and everything stored for it (snapshot, storage). Later calls with its sessionID get SESSION_NOT_FOUND.",
        sessions: Sessions::Existing,
        read_only: false,
        open_world: false,
        outside: false,
        idempotent: true,
        destructive: true,
        fields: || (json!({}), vec!["sessionID"]),
    },
    Spec {
        kind: ToolKind::RegisterFont,
        name: "servo_register_font",
        description: "Register a font (TrueType, OpenType, WOFF or WOFF2, base64) in tabs so pages can name its families in CSS font-family. Returns the family names and a fontId; the font stays with the session for every later navigation and across restores. At most 2 MiB per font, 16 fonts per session.",
        sessions: Sessions::Any,
        read_only: false,
        open_world: false,
        outside: false,
        idempotent: false,
        destructive: false,
        fields: || {
            (
                json!({
                    "fontBase64": {"type": "string", "contentEncoding": "base64", "minLength": 1, "maxLength": MAX_FONT_BASE64_CHARS, "description": "The font file, base64 (standard alphabet), at most 2 MiB decoded."},
                    "maxDurationMs": duration()
                }),
                vec!["fontBase64"],
            )
        },
    },
    Spec {
        kind: ToolKind::Click,
        name: "servo_click",
        description: "Click an element like a user: found by CSS selector, visible text, accessibility ref (from servo_accessibility_tree or a page's fields) or viewport point x/y. Fires mousedown/mouseup/click, moves focus and runs the default action (follows links, toggles checkboxes, submits forms), then returns the page after it settles.",
        sessions: Sessions::Existing,
        read_only: false,
        open_world: true,
        outside: true,
        idempotent: false,
        destructive: false,
        fields: || {
            (
                target_fields(json!({
                    "button": {"type": "integer", "minimum": 0, "maximum": 4, "default": 0, "description": "Mouse button as in Servo MCP; only 0, the primary button, is supported."},
                    "maxDurationMs": duration()
                })),
                vec!["sessionID"],
            )
        },
    },
    Spec {
        kind: ToolKind::Type,
        name: "servo_type_text",
        description: "Type text into a field (give selector, ref, visibleText or x/y to click it first) or into the focused element: keydown, beforeinput, input and keyup per character; a newline presses Enter (which submits a form). clear empties the field first.",
        sessions: Sessions::Existing,
        read_only: false,
        open_world: true,
        outside: true,
        idempotent: false,
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
        sessions: Sessions::Existing,
        read_only: false,
        open_world: true,
        outside: true,
        idempotent: false,
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
        sessions: Sessions::Existing,
        read_only: false,
        open_world: false,
        outside: false,
        idempotent: false,
        destructive: false,
        fields: || {
            (
                target_fields(json!({
                    "dx": {"type": "number", "default": 0, "description": "Horizontal distance, CSS pixels."},
                    "dy": {"type": "number", "default": 0, "description": "Vertical distance, CSS pixels (positive scrolls down)."},
                    "deltaX": {"type": "number", "description": "Servo MCP's name for dx; give one of the two."},
                    "deltaY": {"type": "number", "description": "Servo MCP's name for dy; give one of the two."},
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
        sessions: Sessions::Existing,
        read_only: false,
        open_world: false,
        outside: true,
        idempotent: true,
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
        sessions: Sessions::Existing,
        read_only: false,
        open_world: true,
        outside: false,
        idempotent: false,
        destructive: false,
        fields: || {
            (
                json!({
                    "step": {"type": "string", "enum": ["back", "forward", "reload"]},
                    "direction": {"type": "string", "enum": ["back", "forward"], "description": "Servo MCP's name for step; give one of the two."},
                    "maxDurationMs": duration()
                }),
                vec!["sessionID"],
            )
        },
    },
    Spec {
        kind: ToolKind::Accessibility,
        name: "servo_accessibility_tree",
        description: "Read the accessibility tree of the page: one line per node with role, name, states and an element ref (e12) that servo_click, servo_type_text, servo_scroll and servo_select_option accept. Cut at maxNodes (default 500) with a truncation marker.",
        sessions: Sessions::Existing,
        read_only: true,
        open_world: false,
        outside: false,
        idempotent: false,
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
        sessions: Sessions::Existing,
        read_only: false,
        open_world: false,
        outside: false,
        idempotent: true,
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
        description: "Wait on a tab's page: until an element matching selector is rendered, until the visible text contains text, for a load state (until), or (with none) for timeMs of page time. The page's timers run as the page clock moves ahead (no real waiting); a condition not met within timeMs (default 10000) is a TIMEOUT error naming it.",
        sessions: Sessions::Existing,
        read_only: false,
        open_world: false,
        outside: false,
        idempotent: false,
        destructive: false,
        fields: || {
            (
                json!({
                    "selector": {"type": "string", "maxLength": MAX_TARGET_CHARS, "description": "CSS selector of an element to wait for (rendered: displayed and visible)."},
                    "text": {"type": "string", "maxLength": MAX_TARGET_CHARS, "description": "Text to wait for in the page's visible text."},
                    "timeMs": {"type": "integer", "minimum": 1, "maximum": MAX_WAIT_MS, "description": "Page time: the longest wait for selector/text (default 10000), or with neither the time to let pass."},
                    "until": {"type": "string", "enum": ["load", "domcontentloaded", "networkidle"], "description": "A load state, as Playwright's waitForLoadState: load has happened when any action returns; networkidle runs the page's timers for 500 ms of page time (requests finish within it)."},
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
        sessions: Sessions::Any,
        read_only: true,
        open_world: false,
        outside: false,
        idempotent: false,
        destructive: false,
        fields: || (json!({"maxDurationMs": duration()}), vec![]),
    },
    Spec {
        kind: ToolKind::Reload,
        name: "servo_reload",
        description: "Reload the page of tabs and return it after it settles (the same as servo_history with step reload).",
        sessions: Sessions::Existing,
        read_only: false,
        open_world: true,
        outside: false,
        idempotent: false,
        destructive: false,
        fields: || (json!({"maxDurationMs": duration()}), vec!["sessionID"]),
    },
    http_tool(
        ToolKind::HttpRequest,
        "servo_http_request",
        "Send HTTP requests from the fleet (no browser tab): any method token but CONNECT, TRACE and TRACK, your own headers (Cookie and Authorization included) and a UTF-8 body. Redirects are followed (at most 5) with the network policy checked at every hop; credentials are dropped when a redirect leaves the origin. Returns status, headers, the body (text, or base64 when binary) cut at maxResponseBytes, and a readable summary in results. Requests can change things on the server.",
        false,
        false,
        true,
        || http_fields(true),
    ),
    http_tool(
        ToolKind::HttpGet,
        "servo_http_get",
        "Send GET requests from the fleet (no browser tab), with your own headers; as servo_http_request without method or body.",
        true,
        true,
        false,
        || http_fields(false),
    ),
    http_tool(
        ToolKind::HttpPost,
        "servo_http_post",
        "Send POST requests from the fleet (no browser tab), with your own headers and a UTF-8 body; as servo_http_request without method. Requests can change things on the server.",
        false,
        false,
        true,
        || http_fields(false),
    ),
    http_tool(
        ToolKind::HttpPut,
        "servo_http_put",
        "Send PUT requests from the fleet (no browser tab), with your own headers and a UTF-8 body; as servo_http_request without method. Requests can replace things on the server.",
        false,
        true,
        true,
        || http_fields(false),
    ),
    http_tool(
        ToolKind::HttpPatch,
        "servo_http_patch",
        "Send PATCH requests from the fleet (no browser tab), with your own headers and a UTF-8 body; as servo_http_request without method. Requests can change things on the server.",
        false,
        false,
        true,
        || http_fields(false),
    ),
    http_tool(
        ToolKind::HttpDelete,
        "servo_http_delete",
        "Send DELETE requests from the fleet (no browser tab), with your own headers and an optional body; as servo_http_request without method. Requests can delete things on the server.",
        false,
        true,
        true,
        || http_fields(false),
    ),
    http_tool(
        ToolKind::HttpHead,
        "servo_http_head",
        "Send HEAD requests from the fleet (no browser tab), with your own headers: status and headers, no body; as servo_http_request without method or body.",
        true,
        true,
        false,
        || http_fields(false),
    ),
    http_tool(
        ToolKind::HttpOptions,
        "servo_http_options",
        "Send OPTIONS requests from the fleet (no browser tab), with your own headers and an optional body; as servo_http_request without method.",
        true,
        true,
        false,
        || http_fields(false),
    ),
    state_tool(
        ToolKind::CookiesGet,
        "servo_cookies_get",
        "Read a session's cookies, HttpOnly ones included, as Playwright's context.cookies() gives them: {name, value, domain, path, expires, httpOnly, secure, sameSite}. With urls, only the cookies those URLs would be sent.",
        Sessions::Existing,
        READS,
        || {
            (
                json!({
                    "urls": {"type": "array", "maxItems": MAX_ACTIONS, "items": {"type": "string", "maxLength": MAX_URL_CHARS}, "description": "Only cookies sent to any of these URLs."},
                    "maxDurationMs": duration()
                }),
                vec!["sessionID"],
            )
        },
    ),
    state_tool(
        ToolKind::CookiesSet,
        "servo_cookies_set",
        "Set cookies in a session's jar (the one its pages' requests use; HttpOnly allowed), each placed by url or by domain (leading dot: subdomains too) and path, as Playwright's context.addCookies() takes them. All or none: one bad cookie sets none. A falsy sessionID opens a new tab first, so cookies can be set before the first navigation.",
        Sessions::Any,
        SETS,
        cookie_set_fields,
    ),
    state_tool(
        ToolKind::CookiesDelete,
        "servo_cookies_delete",
        "Delete a session's cookies of a name (on domain and path when given; domain as servo_cookies_get shows it).",
        Sessions::Existing,
        DELETES,
        || {
            (
                json!({
                    "name": {"type": "string"},
                    "domain": {"type": "string"},
                    "path": {"type": "string"},
                    "maxDurationMs": duration()
                }),
                vec!["sessionID", "name"],
            )
        },
    ),
    state_tool(
        ToolKind::CookiesClear,
        "servo_cookies_clear",
        "Delete every cookie of a session.",
        Sessions::Existing,
        DELETES,
        || (json!({"maxDurationMs": duration()}), vec!["sessionID"]),
    ),
    state_tool(
        ToolKind::StorageGet,
        "servo_storage_get",
        "Read a session's localStorage (area local, the default) or sessionStorage: every origin the session has visited, or one origin's, as [{origin, items: [{name, value}]}].",
        Sessions::Existing,
        READS,
        || {
            (
                json!({
                    "area": area(),
                    "origin": {"type": "string", "description": "Only this origin (scheme://host:port)."},
                    "maxDurationMs": duration()
                }),
                vec!["sessionID"],
            )
        },
    ),
    state_tool(
        ToolKind::StorageSet,
        "servo_storage_set",
        "Set items in the localStorage or sessionStorage of the page's origin, as its scripts would (no storage event in this page). Returns that origin's items.",
        Sessions::Existing,
        SETS,
        || {
            (
                json!({
                    "area": area(),
                    "items": {"type": "object", "maxProperties": fleet_proto::MAX_STORAGE_ITEMS, "additionalProperties": {"type": "string"}, "description": "Key to value."},
                    "maxDurationMs": duration()
                }),
                vec!["sessionID", "items"],
            )
        },
    ),
    state_tool(
        ToolKind::StorageClear,
        "servo_storage_clear",
        "Empty the localStorage or sessionStorage of the page's origin. Returns the area's items left on other origins.",
        Sessions::Existing,
        DELETES,
        || {
            (
                json!({"area": area(), "maxDurationMs": duration()}),
                vec!["sessionID"],
            )
        },
    ),
    state_tool(
        ToolKind::StorageStateExport,
        "servo_storage_state_export",
        "Export a session's storage state as Playwright's storageState: {cookies (HttpOnly included), origins: [{origin, localStorage: [{name, value}]}]}, to reuse a login in another session (servo_storage_state_import) or in Playwright.",
        Sessions::Existing,
        READS,
        || (json!({"maxDurationMs": duration()}), vec!["sessionID"]),
    ),
    state_tool(
        ToolKind::StorageStateImport,
        "servo_storage_state_import",
        "Import a Playwright storageState ({cookies, origins: [{origin, localStorage}]}) into a session: the cookies join its jar, the items its localStorage, and the page reloads so its scripts start with them. A falsy sessionID opens a new tab for it.",
        Sessions::Any,
        SETS,
        storage_state_fields,
    ),
    state_tool(
        ToolKind::NetworkLog,
        "servo_network_log",
        "List the requests a session's pages made (documents, scripts, styles, images, fetch, XHR), oldest first: method, url, status, mimeType, size, startedMs, durationMs, finalUrl and error. The newest limit (default 100) of the last 500 on the worker holding the tab; a restore starts a new log.",
        Sessions::Existing,
        READS,
        log_fields,
    ),
    state_tool(
        ToolKind::ConsoleMessages,
        "servo_console_messages",
        "List what a session's pages wrote to the console (and their uncaught errors) during its actions, oldest first, as {level, text}: the newest limit (default 100) of the last 500 on the worker holding the tab; a restore starts anew.",
        Sessions::Existing,
        READS,
        log_fields,
    ),
    state_tool(
        ToolKind::Hover,
        "servo_hover",
        "Move the pointer onto an element (by selector, visibleText, ref or x/y) like a user: over, enter and move events, and out and leave on the element hovered before, so menus and tooltips that open on hover open; then returns the page. CSS :hover does not match.",
        Sessions::Existing,
        ACTS,
        || {
            (
                target_fields(json!({"maxDurationMs": duration()})),
                vec!["sessionID"],
            )
        },
    ),
    state_tool(
        ToolKind::Find,
        "servo_find",
        "Find an element by visibleText (as a click finds it), selector, ref or x/y without acting on it: its ref (for the input tools), a CSS selector that matches it alone, its tag, the text it shows and its box.",
        Sessions::Existing,
        READS,
        || {
            (
                target_fields(json!({"maxDurationMs": duration()})),
                vec!["sessionID"],
            )
        },
    ),
    super::frames::LIST,
    super::frames::EVALUATE,
    super::frames::HTML,
    super::frames::PAGE_HTML,
    super::recordings::START,
    super::recordings::STOP,
    super::recordings::STATUS,
    super::recordings::DOWNLOAD,
    super::downloads::LIST,
    super::downloads::READ,
    super::live::LIVE_VIEW,
    super::live::CDP_ENDPOINT,
];
