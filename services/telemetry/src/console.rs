//! What a command prints for its user on stdout (tables, JSON results, keys).
//! A reader that stops reading — `servo-fleet sessions list | head -1` — ends
//! the output quietly: the rest is dropped and the command finishes as it
//! would have, with the same exit status, where `println!` would panic. Only a
//! secret shown once ([`secret`]) treats a closed stdout as an error, since
//! the user never saw it.

use std::fmt;
use std::io::{self, ErrorKind, Write as _};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once stdout's reader has gone; later output is dropped unwritten.
static READER_GONE: AtomicBool = AtomicBool::new(false);

/// Prints `args` and a newline; nothing once the reader has gone.
pub fn line(args: fmt::Arguments<'_>) -> io::Result<()> {
    if READER_GONE.load(Ordering::Relaxed) {
        return Ok(());
    }
    match write_line(args) {
        Err(e) if e.kind() == ErrorKind::BrokenPipe => {
            READER_GONE.store(true, Ordering::Relaxed);
            Ok(())
        }
        other => other,
    }
}

/// Prints a secret the user sees only this once (a new API key): a reader
/// that has gone is an error here, so the command can say the secret was not
/// shown.
pub fn secret(value: &str) -> io::Result<()> {
    if READER_GONE.load(Ordering::Relaxed) {
        return Err(ErrorKind::BrokenPipe.into());
    }
    write_line(format_args!("{value}"))
}

/// Stdout is line-buffered, so the newline flushes and a closed pipe shows
/// here rather than at exit; the flush makes that hold for a line without
/// one in its text as well.
fn write_line(args: fmt::Arguments<'_>) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_fmt(args)?;
    out.write_all(b"\n")?;
    out.flush()
}

/// `println!` for a command's output: [`line`] with `format!` arguments.
#[macro_export]
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::console::line(format_args!($($arg)*))
    };
}
