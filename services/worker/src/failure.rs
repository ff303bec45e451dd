//! The worker's errors, all in one place: [`Failure`], a call that ran (or may
//! have run) and failed, with the code the agent sees, and how store and engine
//! errors map to it; [`RunError`], why a call did not run, which tells the
//! gateway whether another worker may take it; and why a checkpoint was not
//! saved, which tells the session whether its copy must go.

use fleet_proto::v1::{ActionError, ErrorCode};
use fleet_store::StoreError;

use crate::host::{EvalError, TabError, WaitError};

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

/// A script that threw, ran out of time or returned what JSON cannot carry.
impl From<EvalError> for Failure {
    fn from(e: EvalError) -> Self {
        match e {
            EvalError::Exception(m) => {
                Failure::new(ErrorCode::ScriptError, format!("the script threw: {m}"))
            }
            EvalError::Timeout(m) => Failure::new(ErrorCode::Timeout, m),
            EvalError::NoFrame(m) => Failure::new(ErrorCode::InvalidArgument, m),
            EvalError::Unserializable(m) => Failure::new(
                ErrorCode::ScriptError,
                format!("the script's value cannot be returned as JSON: {m}"),
            ),
        }
    }
}

/// A wait that could not start is the caller's mistake; one whose condition
/// never held ran out of time.
impl From<WaitError> for Failure {
    fn from(e: WaitError) -> Self {
        match e {
            WaitError::InvalidSelector(reason) => Failure::new(ErrorCode::InvalidArgument, reason),
            WaitError::Unmet(reason) => Failure::new(ErrorCode::Timeout, reason),
        }
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

/// Why a call did not run.
#[derive(Debug)]
pub enum RunError {
    /// Refused before anything ran (not the owner, draining, at capacity): the
    /// gateway may safely send it to another worker.
    Refused(String),
    /// Ran, or may have run, and failed: the agent sees this.
    Failed(Failure),
}

impl From<Failure> for RunError {
    fn from(f: Failure) -> Self {
        Self::Failed(f)
    }
}

impl From<TabError> for RunError {
    fn from(e: TabError) -> Self {
        Self::Failed(e.into())
    }
}

/// Why a checkpoint was not saved.
pub(crate) enum NotSaved {
    /// A newer owner holds the session: this copy must go.
    Moved(Failure),
    /// Anything else; the session stays.
    Failed(Failure),
}

impl From<Failure> for NotSaved {
    fn from(f: Failure) -> Self {
        Self::Failed(f)
    }
}

impl From<TabError> for NotSaved {
    fn from(e: TabError) -> Self {
        Self::Failed(e.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_reaches_the_agent_with_its_code_and_message() {
        let error = Failure::new(ErrorCode::Timeout, "too slow").into_proto();
        assert_eq!(error.code, ErrorCode::Timeout as i32);
        assert_eq!(error.message, "too slow");
    }

    #[test]
    fn an_engine_deadline_is_a_timeout_and_a_trap_an_engine_failure() {
        let late = Failure::from(TabError::Timeout(250));
        assert_eq!(late.code, ErrorCode::Timeout);
        assert!(late.message.contains("250 ms"), "{}", late.message);
        let trapped = Failure::from(TabError::Trap("out of memory".into()));
        assert_eq!(trapped.code, ErrorCode::EngineFailed);
        assert!(
            trapped.message.contains("out of memory"),
            "{}",
            trapped.message
        );
    }

    #[test]
    fn a_script_that_threw_or_returned_no_json_is_a_script_error() {
        let threw = Failure::from(EvalError::Exception("boom".into()));
        assert_eq!(threw.code, ErrorCode::ScriptError);
        assert_eq!(threw.message, "the script threw: boom");
        let cyclic = Failure::from(EvalError::Unserializable("a cycle".into()));
        assert_eq!(cyclic.code, ErrorCode::ScriptError);
        assert_eq!(
            cyclic.message,
            "the script's value cannot be returned as JSON: a cycle"
        );
        let late = Failure::from(EvalError::Timeout("ran 10 s".into()));
        assert_eq!(
            (late.code, late.message.as_str()),
            (ErrorCode::Timeout, "ran 10 s")
        );
    }

    #[test]
    fn a_wait_with_a_bad_selector_is_invalid_and_an_unmet_one_timed_out() {
        let bad = Failure::from(WaitError::InvalidSelector("a[".into()));
        assert_eq!(
            (bad.code, bad.message.as_str()),
            (ErrorCode::InvalidArgument, "a[")
        );
        let unmet = Failure::from(WaitError::Unmet("no #done".into()));
        assert_eq!(
            (unmet.code, unmet.message.as_str()),
            (ErrorCode::Timeout, "no #done")
        );
    }

    #[test]
    fn a_session_that_moved_away_is_unavailable_so_the_agent_retries() {
        let moved = store_failure(StoreError::StaleEpoch {
            given: 1,
            current: 2,
        });
        assert_eq!(moved.code, ErrorCode::Unavailable);
        let down = store_failure(StoreError::Unavailable("postgres"));
        assert_eq!(down.code, ErrorCode::Unavailable);
        let broken = store_failure(StoreError::Corrupt("bad row".into()));
        assert_eq!(broken.code, ErrorCode::Internal);
        assert!(!broken.message.contains("bad row"), "{}", broken.message);
    }

    #[test]
    fn an_engine_error_in_a_call_is_a_failure_the_agent_sees() {
        let run = RunError::from(TabError::Trap("gone".into()));
        assert!(
            matches!(&run, RunError::Failed(f) if f.code == ErrorCode::EngineFailed),
            "{run:?}"
        );
        let saved = NotSaved::from(Failure::new(ErrorCode::Internal, "no"));
        assert!(matches!(saved, NotSaved::Failed(_)));
    }
}
