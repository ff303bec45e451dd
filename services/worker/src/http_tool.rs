//! The `Worker/Http` call: an HTTP tool's request, belonging to no session,
//! sent through the worker's fetcher, and its answer or its failure with the
//! code the agent branches on.

use std::time::Duration;

use fleet_proto::http::{DEFAULT_RESPONSE_BYTES, MAX_RESPONSE_BYTES};
use fleet_proto::v1::{self as pb, ActionOutput, ErrorCode, action_output};
use fleet_proto::{DEFAULT_BUDGET_MS, MAX_BUDGET_MS, MIN_BUDGET_MS};

use crate::failure::Failure;
use crate::net::{Fetcher, Refused, ToolRequest};

/// Runs one HTTP tool request. The gateway validated it; the limits that
/// protect this process are applied again here.
pub async fn run(fetcher: &Fetcher, req: pb::HttpRunRequest) -> Result<ActionOutput, Failure> {
    let http = req
        .request
        .ok_or_else(|| Failure::new(ErrorCode::InvalidArgument, "the request is missing"))?;
    let budget = match req.max_duration_ms {
        0 => DEFAULT_BUDGET_MS,
        ms => ms.clamp(MIN_BUDGET_MS, MAX_BUDGET_MS),
    };
    let method = if http.method.is_empty() {
        "GET".to_owned()
    } else {
        http.method.to_ascii_uppercase()
    };
    let max_response_bytes = match usize::try_from(http.max_response_bytes) {
        Ok(0) => DEFAULT_RESPONSE_BYTES,
        Ok(n) => n.min(MAX_RESPONSE_BYTES),
        Err(_) => MAX_RESPONSE_BYTES,
    };
    let tool = ToolRequest {
        method: method.clone(),
        url: http.url.clone(),
        headers: http
            .headers
            .into_iter()
            .map(|h| (h.name, h.value))
            .collect(),
        body: http.body,
        follow_redirects: http.follow_redirects.unwrap_or(true),
        max_response_bytes,
    };
    let resp = fetcher
        .tool_request(tool, Duration::from_millis(u64::from(budget)))
        .await
        .map_err(failure)?;
    Ok(ActionOutput {
        kind: Some(action_output::Kind::Http(pb::HttpResult {
            method,
            request_url: http.url,
            status: u32::from(resp.status),
            status_text: resp.status_text,
            url: resp.url,
            redirected: resp.redirected,
            headers: resp
                .headers
                .into_iter()
                .map(|(name, value)| pb::Header { name, value })
                .collect(),
            body: resp.body,
            truncated: resp.truncated,
        })),
    })
}

/// Sorts a fetch's failure by whose it is: the exchange ran out of time, the
/// remote end gave no answer, or the network policy refused an address or
/// URL (every policy refusal; the texts of the other two are the fetcher's).
fn failure(e: Refused) -> Failure {
    let m = e.0;
    let upstream = [
        "could not resolve",
        "could not connect",
        "the request failed",
        "more than ",
        "a redirect ",
    ];
    let code = if m.starts_with("the request timed out") {
        ErrorCode::Timeout
    } else if m.starts_with("invalid ") || m.starts_with("the HTTP method") {
        ErrorCode::InvalidArgument
    } else if upstream.iter().any(|p| m.starts_with(p)) || m.ends_with("has no addresses") {
        ErrorCode::UpstreamFailed
    } else {
        ErrorCode::NetworkRefused
    };
    Failure::new(code, m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_carry_the_code_of_whose_they_are() {
        let code = |m: &str| failure(Refused(m.into())).code;
        assert_eq!(
            code("the request timed out after 100 ms"),
            ErrorCode::Timeout
        );
        assert_eq!(
            code("could not connect to the server"),
            ErrorCode::UpstreamFailed
        );
        assert_eq!(code("more than 5 redirects"), ErrorCode::UpstreamFailed);
        assert_eq!(
            code("nx.example has no addresses"),
            ErrorCode::UpstreamFailed
        );
        assert_eq!(
            code(
                "the address 10.0.0.1 is private, loopback, link-local or reserved and is refused by the network policy"
            ),
            ErrorCode::NetworkRefused
        );
        assert_eq!(
            code("only http and https URLs are allowed"),
            ErrorCode::NetworkRefused
        );
    }
}
