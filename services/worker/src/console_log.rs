//! The console log of a tab: what its pages wrote to the console (and their
//! uncaught errors) during every action, gathered from each action's page,
//! the newest [`MAX_MESSAGES`] kept. It lives with the tab on its worker; a
//! restore starts a new log.

use std::collections::VecDeque;

use fleet_proto::v1 as pb;

/// Messages a tab keeps.
pub const MAX_MESSAGES: usize = fleet_proto::MAX_LOG_ENTRIES;
/// Messages a read returns when it names no limit.
pub const DEFAULT_MESSAGES: usize = fleet_proto::DEFAULT_LOG_ENTRIES;

/// The log.
#[derive(Default)]
pub struct ConsoleLog {
    messages: VecDeque<pb::ConsoleEntry>,
    /// Messages seen so far, kept or not.
    total: u64,
}

impl ConsoleLog {
    /// Adds what an action's page wrote.
    pub fn extend(&mut self, written: &[pb::ConsoleEntry]) {
        for m in written {
            if self.messages.len() == MAX_MESSAGES {
                self.messages.pop_front();
            }
            self.messages.push_back(m.clone());
            self.total += 1;
        }
    }

    /// The newest `limit` messages (0: the default), oldest first.
    pub fn read(&self, limit: usize) -> pb::ConsoleMessagesResult {
        let limit = match limit {
            0 => DEFAULT_MESSAGES,
            n => n.min(MAX_MESSAGES),
        };
        let skip = self.messages.len().saturating_sub(limit);
        pb::ConsoleMessagesResult {
            messages: self.messages.iter().skip(skip).cloned().collect(),
            total: self.total,
        }
    }
}
