//! The rules of the actions that belong to no session. An HTTP tool's request
//! (`HttpRequest`), Servo MCP's: a
//! credential-free http(s) URL, a method token other than CONNECT, TRACE and
//! TRACK, at most 64 headers of bounded size, a body of at most 1 MiB and none
//! on GET or HEAD, a response limit of 1 byte to 2 MiB. The numbers live in
//! `fleet_proto::http`, which the worker's client reads too. A web search
//! (`WebSearch`): a query of 1–512 characters, at most 10 results, a known
//! provider; its numbers live in `crate::search`.

use fleet_proto::http::{
    FORBIDDEN_METHODS, MAX_BODY_BYTES, MAX_HEADER_NAME_CHARS, MAX_HEADER_VALUE_CHARS, MAX_HEADERS,
    MAX_METHOD_CHARS, MAX_RESPONSE_BYTES, is_token,
};
use fleet_proto::v1::{self as pb, BrowserAction};

use crate::error::GatewayError;

/// Checks action `i`, an HTTP request: it names no session and no viewport.
pub(super) fn validate_http(
    i: usize,
    a: &BrowserAction,
    http: &pb::HttpRequest,
) -> Result<(), GatewayError> {
    let invalid = |m: String| Err(GatewayError::Invalid(m));
    if !a.session_id.is_empty() || a.viewport.is_some() {
        return invalid(format!(
            "actions[{i}] is an HTTP request, which belongs to no session: it takes no sessionID, width or height"
        ));
    }
    super::validate_url(i, &http.url)?;
    let method = if http.method.is_empty() {
        "GET".to_owned()
    } else {
        http.method.to_ascii_uppercase()
    };
    if method.len() > MAX_METHOD_CHARS || !is_token(&method) {
        return invalid(format!(
            "actions[{i}].method must be an HTTP method token of 1 to {MAX_METHOD_CHARS} characters; got {:?}",
            http.method.chars().take(64).collect::<String>()
        ));
    }
    if FORBIDDEN_METHODS.contains(&method.as_str()) {
        return invalid(format!(
            "actions[{i}].method {method} is forbidden (CONNECT, TRACE and TRACK are not allowed)"
        ));
    }
    if http.headers.len() > MAX_HEADERS {
        return invalid(format!(
            "actions[{i}].headers has {} entries; the limit is {MAX_HEADERS}",
            http.headers.len()
        ));
    }
    for h in &http.headers {
        if h.name.chars().count() > MAX_HEADER_NAME_CHARS || !is_token(&h.name) {
            return invalid(format!(
                "actions[{i}].headers has an invalid name {:?}: a header name is a token of 1 to {MAX_HEADER_NAME_CHARS} characters",
                h.name.chars().take(64).collect::<String>()
            ));
        }
        if h.value.chars().count() > MAX_HEADER_VALUE_CHARS {
            return invalid(format!(
                "actions[{i}].headers.{} is {} characters; the limit is {MAX_HEADER_VALUE_CHARS}",
                h.name,
                h.value.chars().count()
            ));
        }
        if h.value.chars().any(|c| matches!(c, '\r' | '\n' | '\0')) {
            return invalid(format!(
                "actions[{i}].headers.{} holds a line break or NUL, which no header value may",
                h.name
            ));
        }
    }
    if let Some(body) = &http.body {
        if method == "GET" || method == "HEAD" {
            return invalid(format!("actions[{i}].body is not allowed with {method}"));
        }
        if body.len() > MAX_BODY_BYTES {
            return invalid(format!(
                "actions[{i}].body is {} bytes; the limit is {MAX_BODY_BYTES} bytes (1 MiB)",
                body.len()
            ));
        }
    }
    if usize::try_from(http.max_response_bytes).map_or(true, |n| n > MAX_RESPONSE_BYTES) {
        return invalid(format!(
            "actions[{i}].maxResponseBytes must be 1 to {MAX_RESPONSE_BYTES} (2 MiB); got {}",
            http.max_response_bytes
        ));
    }
    Ok(())
}

/// Checks action `i`, a web search: it names no session and no viewport.
pub(super) fn validate_search(
    i: usize,
    a: &BrowserAction,
    search: &pb::WebSearch,
) -> Result<(), GatewayError> {
    use crate::search::{MAX_QUERY_CHARS, MAX_RESULTS, PROVIDER_CHOICES};
    let invalid = |m: String| Err(GatewayError::Invalid(m));
    if !a.session_id.is_empty() || a.viewport.is_some() {
        return invalid(format!(
            "actions[{i}] is a web search, which belongs to no session: it takes no sessionID, width or height"
        ));
    }
    let n = search.query.trim().chars().count();
    if n == 0 || n > MAX_QUERY_CHARS {
        return invalid(format!(
            "query must be 1 to {MAX_QUERY_CHARS} characters after trimming; got {n}"
        ));
    }
    if search.limit > MAX_RESULTS {
        return invalid(format!(
            "limit must be 1 to {MAX_RESULTS}; got {}",
            search.limit
        ));
    }
    let p = search.provider.to_ascii_lowercase();
    if !p.is_empty() && !PROVIDER_CHOICES.contains(&p.as_str()) {
        return invalid(format!(
            "provider must be one of {}; got {:?}",
            PROVIDER_CHOICES.join(", "),
            search.provider
        ));
    }
    Ok(())
}
