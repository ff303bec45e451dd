//! The browser process: finding the binary, its scratch profile, reading the
//! DevTools address it prints, and killing its whole tree.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context as _, Result, anyhow, bail};
use tokio::io::{AsyncBufReadExt as _, BufReader};
use tokio::process::{Child, ChildStderr};
use tokio::task::JoinHandle;

use super::{DEFAULT_BINARY, KILL_SETTLE};
use crate::procmem::{self, Pid};

/// The started browser process and its scratch directory (profile and crash database),
/// killed and removed on drop unless [`super::Chromium::close`] already did so.
pub(super) struct Process {
    pub(super) child: Child,
    pub(super) pid: Pid,
    pub(super) scratch_dir: PathBuf,
    pub(super) cleaned: bool,
}

impl Process {
    /// The browser's descendants plus the processes started with its scratch directory.
    pub(super) fn pids(&self) -> Result<Vec<Pid>> {
        let mut pids = procmem::tree(self.pid)?;
        if let Some(dir) = self.scratch_dir.to_str() {
            // The trailing slash keeps `…-1` from matching another launch's `…-10`.
            for pid in procmem::find_by_cmdline(&format!("{dir}/"))? {
                if !pids.contains(&pid) {
                    pids.push(pid);
                }
            }
        }
        Ok(pids)
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        if self.cleaned {
            return;
        }
        let pids = self.pids().unwrap_or_else(|_| vec![self.pid]);
        kill_all(&pids);
        let _ = self.child.start_kill();
        // Killed processes can still be writing into the scratch dir for a moment, so the
        // wait comes before removing it. Drop cannot await; the wait is short and bounded.
        let deadline = Instant::now() + KILL_SETTLE;
        loop {
            let _ = self.child.try_wait();
            if !pids.iter().any(|&pid| procmem::is_alive(pid)) || Instant::now() >= deadline {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = std::fs::remove_dir_all(&self.scratch_dir);
    }
}

/// Sends SIGKILL to each of `pids`, ignoring those already gone.
pub(super) fn kill_all(pids: &[Pid]) {
    for &pid in pids {
        let target = i32::try_from(pid)
            .ok()
            .and_then(rustix::process::Pid::from_raw);
        if let Some(target) = target {
            let _ = rustix::process::kill_process(target, rustix::process::Signal::KILL);
        }
    }
}

/// Reads Chromium's stderr up to the `DevTools listening on ws://…` line, then hands
/// the rest of it to a task that drains it: an unread pipe fills up and blocks the
/// browser mid-run.
pub(super) async fn read_devtools_url(
    stderr: ChildStderr,
    process: &mut Process,
    binary: &Path,
    limit: Duration,
) -> Result<(String, JoinHandle<()>)> {
    let mut lines = BufReader::new(stderr).lines();
    let mut tail: Vec<String> = Vec::new();
    let found = tokio::time::timeout(limit, async {
        while let Some(line) = lines.next_line().await? {
            if let Some(url) = devtools_url(&line) {
                return Ok::<_, std::io::Error>(Some(url.to_owned()));
            }
            if tail.len() == 20 {
                tail.remove(0);
            }
            tail.push(line);
        }
        Ok(None)
    })
    .await;
    let mut context = |what: &str| {
        let status = match process.child.try_wait() {
            Ok(Some(status)) => format!(" ({status})"),
            _ => String::new(),
        };
        format!(
            "{} {what}{status}; its stderr ended with:\n{}",
            binary.display(),
            tail.join("\n")
        )
    };
    let url = match found {
        Ok(Ok(Some(url))) => url,
        Ok(Ok(None)) => bail!(context("exited before DevTools was listening")),
        Ok(Err(err)) => return Err(anyhow!(err).context(context("stderr could not be read"))),
        Err(_) => bail!(context(&format!(
            "printed no `DevTools listening on` line within {limit:?}"
        ))),
    };
    let drain = tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            tracing::trace!(target: "fleet_bench::chromium::stderr", "{line}");
        }
    });
    Ok((url, drain))
}

/// The websocket URL in a `DevTools listening on ws://…` stderr line.
pub(super) fn devtools_url(line: &str) -> Option<&str> {
    let rest = line.split("DevTools listening on ").nth(1)?;
    let url = rest.trim();
    url.starts_with("ws://").then_some(url)
}

/// The executable to launch: the one asked for, else Debian's, else one on `PATH`.
pub(super) fn resolve_binary(explicit: Option<&Path>) -> Result<PathBuf> {
    if let Some(path) = explicit {
        return Ok(path.to_path_buf());
    }
    if Path::new(DEFAULT_BINARY).exists() {
        return Ok(PathBuf::from(DEFAULT_BINARY));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        for name in ["chromium", "chromium-browser"] {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
    }
    bail!(
        "headless Chromium not found: no {DEFAULT_BINARY} and no chromium on PATH \
         (install it with `apt-get install chromium`, or pass its path)"
    )
}

/// A new, empty scratch directory that no other launch (in this or another process)
/// can be handed: its unique name is also how this launch's processes are recognised.
pub(super) fn make_scratch_dir() -> Result<PathBuf> {
    static SEQUENCE: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let dir = std::env::temp_dir().join(format!(
        "fleet-bench-chromium-{}-{nanos}-{}",
        std::process::id(),
        SEQUENCE.fetch_add(1, Ordering::Relaxed)
    ));
    // `create_dir`, not `create_dir_all`: failing on an existing directory is what
    // guarantees the profile is fresh and the name is ours alone.
    std::fs::create_dir(&dir).with_context(|| format!("creating {}", dir.display()))?;
    Ok(dir)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn the_devtools_line_yields_its_websocket_url() {
        let line = "\nDevTools listening on ws://127.0.0.1:40125/devtools/browser/0b1c-2d\r";
        assert_eq!(
            devtools_url(line),
            Some("ws://127.0.0.1:40125/devtools/browser/0b1c-2d")
        );
        assert_eq!(devtools_url("[123:ERROR:gpu_init.cc] nope"), None);
    }
}
