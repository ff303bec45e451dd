//! What the gateway answers by itself rather than a worker: the error of a
//! failed action (a store failure is `UNAVAILABLE`, logged and never shown), a
//! session's status, and the summaries of a session list.

use fleet_proto::v1::{self as pb, ActionError, ActionOutput, ErrorCode, action_output};
use fleet_store::{SessionRow, SessionStatus};

/// A failed action's error: the stable code an agent branches on, and a
/// message safe to show it.
pub(super) fn fail(code: ErrorCode, message: impl Into<String>) -> ActionError {
    ActionError {
        message: message.into(),
        code: code as i32,
    }
}

/// A store failure seen by one action: `UNAVAILABLE`, so the agent retries;
/// what failed is logged, never shown.
pub(crate) fn store_fail(e: fleet_store::StoreError) -> ActionError {
    if e.is_outage() {
        // The outage guard logged the outage once; each call need not.
        tracing::debug!(error = %e, "store unavailable");
    } else {
        tracing::error!(error = %e, "store failed");
    }
    fail(
        ErrorCode::Unavailable,
        "the session store is unavailable; try again shortly",
    )
}

/// One row of a session list.
pub(super) fn summary(r: SessionRow) -> pb::SessionSummary {
    pb::SessionSummary {
        session_id: r.id,
        url: r.url,
        title: r.title,
        status: r.status.to_string(),
        updated_at: rfc3339(r.updated_at),
        expires_at: rfc3339(r.expires_at),
    }
}

fn rfc3339(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.to_rfc3339())
        .unwrap_or_default()
}

/// A session's status, answered from its row: `runtime_available` says
/// whether the worker its route names is still registered.
pub(super) fn status(row: &SessionRow, runtime_available: bool) -> ActionOutput {
    ActionOutput {
        kind: Some(action_output::Kind::Status(pb::SessionStatusResult {
            status: row.status.to_string(),
            updated_at: rfc3339(row.updated_at),
            expires_at: rfc3339(row.expires_at),
            runtime_available,
            resumable: row.status == SessionStatus::Active,
            failure: (!row.failure.is_empty()).then(|| row.failure.clone()),
            // A restore reloads the page and reapplies stored state; these live
            // only in a running engine.
            not_restored: vec![
                "jsHeap".into(),
                "history".into(),
                "elementScrollOffsets".into(),
            ],
        })),
    }
}
