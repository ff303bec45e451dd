//! The gateway's one error type and its single mapping to MCP, gRPC and HTTP.

use axum::response::{IntoResponse as _, Response};
use fleet_proto::v1::ErrorCode;
use fleet_store::PROBE_INTERVAL;
use http::{HeaderValue, StatusCode, header};

/// gRPC's server pushback trailer: how long a client should wait before
/// retrying (honoured by gRPC retry policies).
const PUSHBACK: &str = "grpc-retry-pushback-ms";

/// What can go wrong in the gateway.
#[derive(Debug, thiserror::Error)]
pub enum GatewayError {
    /// The input broke a rule; the message names the field and the limit.
    #[error("{0}")]
    Invalid(String),
    /// The session does not exist for this tenant (or is another's).
    #[error("{0}")]
    NotFound(String),
    /// No usable API key.
    #[error("unauthorized: {0}")]
    Unauthorized(&'static str),
    /// A store failed; details are logged, never shown.
    #[error("the session store is unavailable; try again shortly")]
    Store(#[from] fleet_store::StoreError),
    /// Something the call needs cannot be reached now; a retry may succeed.
    #[error("{0}")]
    Unavailable(&'static str),
    /// The tenant is over one of its limits; nothing was created.
    #[error("{message}")]
    Limited {
        /// Which limit, and what to do.
        message: String,
        /// When a retry may succeed.
        retry_after: std::time::Duration,
    },
    /// Anything else; details are logged, never shown.
    #[error("internal error")]
    Internal(#[from] anyhow::Error),
}

impl GatewayError {
    /// The stable code of this error.
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::Invalid(_) => ErrorCode::InvalidArgument,
            Self::NotFound(_) => ErrorCode::SessionNotFound,
            Self::Unavailable(_) => ErrorCode::Unavailable,
            Self::Limited { .. } => ErrorCode::ResourceExhausted,
            Self::Store(e) if e.is_outage() => ErrorCode::Unavailable,
            Self::Unauthorized(_) | Self::Store(_) | Self::Internal(_) => ErrorCode::Internal,
        }
    }

    fn log(&self) {
        match self {
            Self::Store(e) if e.is_outage() => tracing::debug!(error = %e, "store unavailable"),
            Self::Store(e) => tracing::error!(error = %e, "store failed"),
            Self::Internal(e) => tracing::error!(error = %e, "internal error"),
            _ => {}
        }
    }

    /// As a gRPC status.
    pub fn to_status(&self) -> tonic::Status {
        match self {
            Self::Invalid(m) => tonic::Status::invalid_argument(m.clone()),
            Self::NotFound(m) => tonic::Status::not_found(m.clone()),
            Self::Unauthorized(m) => tonic::Status::unauthenticated(*m),
            Self::Limited { message, .. } => {
                let mut status = tonic::Status::resource_exhausted(message.clone());
                status.metadata_mut().insert(
                    PUSHBACK,
                    tonic::metadata::MetadataValue::from(self.retry_ms()),
                );
                status
            }
            _ if self.code() == ErrorCode::Unavailable => {
                self.log();
                let mut status = tonic::Status::unavailable(self.to_string());
                status.metadata_mut().insert(
                    PUSHBACK,
                    tonic::metadata::MetadataValue::from(self.retry_ms()),
                );
                status
            }
            _ => {
                self.log();
                tonic::Status::internal(self.to_string())
            }
        }
    }

    /// As a plain HTTP answer (outside MCP and gRPC handlers, e.g. in auth):
    /// a gRPC status when the caller speaks gRPC, JSON otherwise.
    pub fn to_http(&self, grpc: bool) -> Response {
        if grpc {
            return self.to_status().into_http::<axum::body::Body>();
        }
        self.log();
        let status = StatusCode::from_u16(http_status(self.code()))
            .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut resp = json_response(status, &self.to_string(), self.code(), self.retry_ms());
        if matches!(
            self.code(),
            ErrorCode::Unavailable | ErrorCode::ResourceExhausted
        ) {
            // Whole seconds, rounded up, at least one.
            let secs = self.retry_ms().div_ceil(1000).max(1);
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        resp
    }

    /// The retry hint, ms: the limit's own wait, else the outage probe interval.
    fn retry_ms(&self) -> u64 {
        match self {
            Self::Limited { retry_after, .. } => u64::try_from(retry_after.as_millis())
                .unwrap_or(u64::MAX)
                .max(1),
            _ => retry_after_ms(),
        }
    }

    /// As the message of a DevTools protocol error: the stable code, then
    /// what a client may read.
    pub fn to_cdp_message(&self) -> String {
        self.log();
        format!("{}: {self}", code_name(self.code()))
    }

    /// As an MCP error the model can read (a tool result with `isError`).
    pub fn to_tool_result(&self) -> rmcp::model::CallToolResult {
        self.log();
        let mut r = rmcp::model::CallToolResult::error(vec![rmcp::model::ContentBlock::text(
            self.to_string(),
        )]);
        let mut body = serde_json::json!({
            "error": self.to_string(),
            "code": code_name(self.code()),
        });
        if matches!(
            self.code(),
            ErrorCode::Unavailable | ErrorCode::ResourceExhausted
        ) && let Some(o) = body.as_object_mut()
        {
            o.insert("retryAfterMs".into(), self.retry_ms().into());
        }
        r.structured_content = Some(body);
        r
    }
}

/// The retry hint of every `UNAVAILABLE`, ms: a store outage is probed again
/// after this long.
pub fn retry_after_ms() -> u64 {
    u64::try_from(PROBE_INTERVAL.as_millis()).unwrap_or(1000)
}

fn json_response(status: StatusCode, message: &str, code: ErrorCode, retry_ms: u64) -> Response {
    let mut body = serde_json::json!({"error": message, "code": code_name(code)});
    if matches!(code, ErrorCode::Unavailable | ErrorCode::ResourceExhausted)
        && let Some(o) = body.as_object_mut()
    {
        o.insert("retryAfterMs".into(), retry_ms.into());
    }
    let mut resp = (status, body.to_string()).into_response();
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    resp
}

/// The wire name of a code, as agents see it.
pub fn code_name(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::SessionNotFound => "SESSION_NOT_FOUND",
        ErrorCode::InvalidArgument => "INVALID_ARGUMENT",
        ErrorCode::Timeout => "TIMEOUT",
        ErrorCode::ScriptError => "SCRIPT_ERROR",
        ErrorCode::EngineFailed => "ENGINE_FAILED",
        ErrorCode::Unavailable => "UNAVAILABLE",
        ErrorCode::NetworkRefused => "NETWORK_REFUSED",
        ErrorCode::ResourceExhausted => "RESOURCE_EXHAUSTED",
        ErrorCode::UpstreamFailed => "UPSTREAM_FAILED",
        ErrorCode::RecordingNotFound => "RECORDING_NOT_FOUND",
        ErrorCode::DownloadNotFound => "DOWNLOAD_NOT_FOUND",
        ErrorCode::HumanInControl => "HUMAN_IN_CONTROL",
        ErrorCode::Internal | ErrorCode::Unspecified => "INTERNAL",
    }
}

/// The HTTP status that goes with a code.
pub fn http_status(code: ErrorCode) -> u16 {
    match code {
        ErrorCode::SessionNotFound | ErrorCode::RecordingNotFound | ErrorCode::DownloadNotFound => {
            404
        }
        ErrorCode::InvalidArgument => 400,
        ErrorCode::Timeout => 504,
        ErrorCode::ScriptError => 422,
        ErrorCode::Unavailable => 503,
        ErrorCode::NetworkRefused => 403,
        ErrorCode::ResourceExhausted => 429,
        ErrorCode::UpstreamFailed => 502,
        ErrorCode::HumanInControl => 409,
        ErrorCode::EngineFailed | ErrorCode::Internal | ErrorCode::Unspecified => 500,
    }
}
