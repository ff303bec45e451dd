//! Arguments of the actions that belong to no session: an HTTP tool's
//! request, and `servo_web_search`'s top-level `{query, limit?, provider?}`.

use fleet_proto::v1::{self as pb, BrowserAction, action::Kind};
use rmcp::model::JsonObject;
use serde_json::Value;

use super::{invalid, positive};
use crate::error::GatewayError;

/// An HTTP request's fields; `method` is the tool's when it fixes one.
pub(super) fn parse_http(
    i: usize,
    obj: &JsonObject,
    method: Option<&str>,
) -> Result<pb::HttpRequest, GatewayError> {
    let string = |k: &str| -> Result<Option<String>, GatewayError> {
        match obj.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(invalid(format!("actions[{i}].{k} must be a string"))),
        }
    };
    let url = string("url")?.ok_or_else(|| invalid(format!("actions[{i}].url is required")))?;
    let method = match method {
        Some(m) => m.to_owned(),
        None => string("method")?.unwrap_or_else(|| "GET".into()),
    };
    let headers = match obj.get("headers") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(name, value)| match value {
                Value::String(v) => Ok(pb::Header {
                    name: name.clone(),
                    value: v.clone(),
                }),
                _ => Err(invalid(format!(
                    "actions[{i}].headers.{name} must be a string"
                ))),
            })
            .collect::<Result<_, _>>()?,
        Some(_) => {
            return Err(invalid(format!(
                "actions[{i}].headers must be an object of header name to value"
            )));
        }
    };
    let follow_redirects = match obj.get("followRedirects") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(_) => {
            return Err(invalid(format!(
                "actions[{i}].followRedirects must be true or false"
            )));
        }
    };
    let max_response_bytes = positive(
        obj.get("maxResponseBytes"),
        &format!("actions[{i}].maxResponseBytes"),
        fleet_proto::http::MAX_RESPONSE_BYTES,
    )?;
    Ok(pb::HttpRequest {
        url,
        method,
        headers,
        body: string("body")?.map(String::into_bytes),
        follow_redirects,
        max_response_bytes,
    })
}

/// Parses `servo_web_search`'s top-level `{query, limit?, provider?}` into
/// one session-less action.
pub(in crate::mcp) fn parse_search(
    args: Option<&JsonObject>,
) -> Result<BrowserAction, GatewayError> {
    let args =
        args.ok_or_else(|| invalid("arguments are required: {\"query\": \"...\"}".into()))?;
    if let Some(k) = args
        .keys()
        .find(|k| !matches!(k.as_str(), "query" | "limit" | "provider"))
    {
        return Err(invalid(format!(
            "unknown argument {k:?}; the arguments are query, limit and provider"
        )));
    }
    let query = match args.get("query") {
        Some(Value::String(q)) => q.clone(),
        Some(_) => return Err(invalid("query must be a string".into())),
        None => return Err(invalid("query is required".into())),
    };
    let limit = positive(
        args.get("limit"),
        "limit",
        crate::search::MAX_RESULTS as usize,
    )?;
    let provider = match args.get("provider") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(p)) => p.clone(),
        Some(_) => return Err(invalid("provider must be a string".into())),
    };
    Ok(BrowserAction {
        session_id: String::new(),
        viewport: None,
        action: Some(pb::Action {
            kind: Some(Kind::WebSearch(pb::WebSearch {
                query,
                limit,
                provider,
            })),
            max_duration_ms: 0,
        }),
    })
}
