//! The gateway's one error type and its single mapping to MCP, gRPC and HTTP.

use fleet_proto::v1::ErrorCode;

/// What can go wrong in the gateway.
#[derive(Debug, thiserror::Error)]
pub enum GatewayError {
    /// The input broke a rule; the message names the field and the limit.
    #[error("{0}")]
    Invalid(String),
    /// No usable API key.
    #[error("unauthorized: {0}")]
    Unauthorized(&'static str),
    /// A store failed; details are logged, never shown.
    #[error("the session store is unavailable")]
    Store(#[from] fleet_store::StoreError),
    /// Anything else; details are logged, never shown.
    #[error("internal error")]
    Internal(#[from] anyhow::Error),
}

impl GatewayError {
    /// The stable code of this error.
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::Invalid(_) => ErrorCode::InvalidArgument,
            Self::Unauthorized(_) | Self::Store(_) | Self::Internal(_) => ErrorCode::Internal,
        }
    }

    /// As a gRPC status.
    pub fn to_status(&self) -> tonic::Status {
        match self {
            Self::Invalid(m) => tonic::Status::invalid_argument(m.clone()),
            Self::Unauthorized(m) => tonic::Status::unauthenticated(*m),
            Self::Store(e) => {
                tracing::error!(error = %e, "store failed");
                tonic::Status::unavailable(self.to_string())
            }
            Self::Internal(e) => {
                tracing::error!(error = %e, "internal error");
                tonic::Status::internal(self.to_string())
            }
        }
    }

    /// As an MCP error the model can read (a tool result with `isError`).
    pub fn to_tool_result(&self) -> rmcp::model::CallToolResult {
        if let Self::Store(e) = self {
            tracing::error!(error = %e, "store failed");
        }
        if let Self::Internal(e) = self {
            tracing::error!(error = %e, "internal error");
        }
        let mut r = rmcp::model::CallToolResult::error(vec![rmcp::model::ContentBlock::text(
            self.to_string(),
        )]);
        r.structured_content = Some(serde_json::json!({
            "error": self.to_string(),
            "code": code_name(self.code()),
        }));
        r
    }
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
        ErrorCode::Internal | ErrorCode::Unspecified => "INTERNAL",
    }
}

/// The HTTP status that goes with a code.
pub fn http_status(code: ErrorCode) -> u16 {
    match code {
        ErrorCode::SessionNotFound => 404,
        ErrorCode::InvalidArgument => 400,
        ErrorCode::Timeout => 504,
        ErrorCode::ScriptError => 422,
        ErrorCode::Unavailable => 503,
        ErrorCode::NetworkRefused => 403,
        ErrorCode::EngineFailed | ErrorCode::Internal | ErrorCode::Unspecified => 500,
    }
}
