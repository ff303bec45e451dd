//! The console of the current document: what pages log (bounded, oldest
//! dropped first) and which entries a summary has already reported.

use std::cell::{Cell, RefCell};

use crate::bindings::exports::fleet::engine::page::{self as wit};

/// Console entries one summary reports, at most (the newest).
const MAX_REPORTED_CONSOLE: usize = 100;

/// Console entries kept per document, and characters per entry.
const MAX_CONSOLE_ENTRIES: usize = 1_000;

const MAX_CONSOLE_ENTRY_CHARS: usize = 4_096;

/// A message written with `console.*` or an uncaught script error.
pub(crate) struct ConsoleEntry {
    /// `log`, `info`, `warn`, `error` or `debug`.
    pub level: String,
    /// The formatted message.
    pub text: String,
}

thread_local! {
    static CONSOLE: RefCell<Vec<ConsoleEntry>> = const { RefCell::new(Vec::new()) };
    /// How many console entries a summary has reported.
    static REPORTED: Cell<usize> = const { Cell::new(0) };
}

/// Forget the entries already reported (on `load`); what the old document
/// logged but no summary reported yet stays.
pub(super) fn forget_reported() {
    let reported = REPORTED.with(|r| r.replace(0));
    CONSOLE.with(|console| {
        let mut console = console.borrow_mut();
        let reported = reported.min(console.len());
        console.drain(..reported);
    });
}

/// The console entries written since the last call, the newest
/// [`MAX_REPORTED_CONSOLE`] of them.
pub(crate) fn take_console() -> Vec<wit::ConsoleEntry> {
    CONSOLE.with(|console| {
        let console = console.borrow();
        let from = REPORTED
            .with(|r| r.replace(console.len()))
            .min(console.len());
        let fresh = &console[from..];
        fresh[fresh.len().saturating_sub(MAX_REPORTED_CONSOLE)..]
            .iter()
            .map(|e| wit::ConsoleEntry {
                level: e.level.clone(),
                text: e.text.clone(),
            })
            .collect()
    })
}

/// Record a console message (bounded, oldest dropped first).
pub(crate) fn console(level: &str, text: &str) {
    CONSOLE.with(|console| {
        let mut console = console.borrow_mut();
        if console.len() >= MAX_CONSOLE_ENTRIES {
            console.remove(0);
            REPORTED.with(|r| r.set(r.get().saturating_sub(1)));
        }
        console.push(ConsoleEntry {
            level: level.to_owned(),
            text: text.chars().take(MAX_CONSOLE_ENTRY_CHARS).collect(),
        });
    });
}

/// Read the console of the current document with `f`.
pub(crate) fn with_console<R>(f: impl FnOnce(&[ConsoleEntry]) -> R) -> R {
    CONSOLE.with(|console| f(&console.borrow()))
}
