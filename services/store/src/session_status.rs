//! What a stored session can be: usable, or failed for good. The `sessions`
//! table's `status` column holds [`SessionStatus::as_str`]; reading any other
//! value is a corrupt row, not a new state to guess at.

use std::fmt;
use std::str::FromStr;

use crate::StoreError;

/// A session's stored status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionStatus {
    /// Usable: calls run, and an evicted session is restored.
    Active,
    /// Its engine failed in a way a restore cannot mend; calls are refused
    /// with the stored reason.
    Failed,
}

impl SessionStatus {
    /// The column's spelling (also what `ListSessions` and status results show).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Active => "active",
            Self::Failed => "failed",
        }
    }
}

impl fmt::Display for SessionStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for SessionStatus {
    type Err = StoreError;

    fn from_str(text: &str) -> Result<Self, StoreError> {
        match text {
            "active" => Ok(Self::Active),
            "failed" => Ok(Self::Failed),
            other => Err(StoreError::Corrupt(format!(
                "unknown session status {other:?}"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn every_status_reads_back_as_itself() {
        for status in [SessionStatus::Active, SessionStatus::Failed] {
            assert_eq!(status.as_str().parse::<SessionStatus>().unwrap(), status);
        }
    }

    #[test]
    fn an_unknown_status_is_a_corrupt_row() {
        let err = "paused".parse::<SessionStatus>().unwrap_err();
        assert!(matches!(err, StoreError::Corrupt(m) if m.contains("paused")));
    }
}
