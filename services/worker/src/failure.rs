//! The worker's one error type for a call that ran (or may have run) and
//! failed, with the code the agent sees, and how store and engine errors map
//! to it.

use fleet_proto::v1::{ActionError, ErrorCode};
use fleet_store::StoreError;

use crate::host::TabError;

/// A failed call, with the code the agent sees.
#[derive(Debug)]
pub struct Failure {
    pub(crate) code: ErrorCode,
    pub(crate) message: String,
}

impl Failure {
    /// A failure with `code` and the message the agent reads.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }

    /// As the protocol's error message.
    pub fn into_proto(self) -> ActionError {
        ActionError {
            message: self.message,
            code: self.code as i32,
        }
    }
}

impl From<TabError> for Failure {
    fn from(e: TabError) -> Self {
        let code = match e {
            TabError::Timeout(_) => ErrorCode::Timeout,
            TabError::Trap(_) => ErrorCode::EngineFailed,
        };
        Failure::new(code, e.to_string())
    }
}

/// A store error as the agent sees it: what failed is logged, never shown.
pub(crate) fn store_failure(e: StoreError) -> Failure {
    match e {
        StoreError::StaleEpoch { .. } => Failure::new(
            ErrorCode::Unavailable,
            "the session moved to another worker; retry the call",
        ),
        other if other.is_outage() => {
            // The outage guard logged the outage once; each call need not.
            tracing::debug!(error = %other, "store unavailable");
            Failure::new(
                ErrorCode::Unavailable,
                "the session store is unavailable; try again shortly",
            )
        }
        other => {
            tracing::error!(error = %other, "store failed");
            Failure::new(ErrorCode::Internal, "the session store failed")
        }
    }
}
