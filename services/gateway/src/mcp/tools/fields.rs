//! Action fields too long to sit in their rows of the tool table, or shared
//! by several: a cookie to set, a Playwright storage state, a log's limit.

use serde_json::{Value, json};

use super::super::schema::duration;

/// `servo_cookies_set`: cookies in Playwright's `addCookies` shape.
pub(super) fn cookie_set_fields() -> (Value, Vec<&'static str>) {
    (
        json!({
            "cookies": {
                "type": "array", "minItems": 1, "maxItems": fleet_proto::MAX_COOKIES_PER_SET,
                "items": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "value": {"type": "string"},
                        "url": {"type": "string"},
                        "domain": {"type": "string"},
                        "path": {"type": "string"},
                        "expires": {"type": "number", "description": "Unix seconds; -1 or absent: a session cookie."},
                        "httpOnly": {"type": "boolean"},
                        "secure": {"type": "boolean"},
                        "sameSite": {"type": "string", "enum": ["Strict", "Lax", "None"]}
                    },
                    "required": ["name", "value"],
                    "additionalProperties": false
                }
            },
            "maxDurationMs": duration()
        }),
        vec!["cookies"],
    )
}

/// `servo_storage_state_import`: a Playwright `storageState`.
pub(super) fn storage_state_fields() -> (Value, Vec<&'static str>) {
    (
        json!({
            "storageState": {
                "type": "object",
                "properties": {
                    "cookies": {"type": "array", "maxItems": fleet_proto::MAX_COOKIES_PER_SET, "items": {"type": "object"}},
                    "origins": {"type": "array", "items": {"type": "object", "properties": {"origin": {"type": "string"}, "localStorage": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}, "value": {"type": "string"}}, "required": ["name", "value"]}}}, "required": ["origin"]}}
                }
            },
            "maxDurationMs": duration()
        }),
        vec!["storageState"],
    )
}

/// `servo_network_log` and `servo_console_messages`: how many of the newest
/// entries to read.
pub(super) fn log_fields() -> (Value, Vec<&'static str>) {
    (
        json!({
            "limit": {"type": "integer", "minimum": 1, "maximum": fleet_proto::MAX_LOG_ENTRIES, "default": fleet_proto::DEFAULT_LOG_ENTRIES},
            "maxDurationMs": duration()
        }),
        vec!["sessionID"],
    )
}
