//! A small async driver for headless Chromium over the Chrome DevTools Protocol: it owns
//! the browser process (and its temporary profile), the one websocket to it, and the
//! browser contexts and pages the bench opens through that websocket.
//!
//! One reader task routes every incoming message: replies go to the call waiting on
//! their `id`, events go to whoever subscribed to their `sessionId`. Pages are attached
//! in flat mode, so every page shares the browser's websocket and is addressed by its
//! session id. Every call is bounded by [`LaunchOptions::call_timeout`].
//!
//! This file is the public face (launch, the browser and its process tree, close);
//! `chromium/page.rs` owns the contexts and pages the bench drives,
//! `chromium/process.rs` the browser process and `chromium/cdp.rs` the websocket
//! connection.

use std::fmt;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, anyhow, bail};
use futures::StreamExt as _;
use serde_json::{Value, json};
use tokio::process::Command;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

use crate::procmem::{self, Pid};

mod cdp;
mod page;
mod process;

use cdp::{Connection, Shared, read_loop, str_field, write_loop};
pub use page::{Context, Page};
use process::{Process, kill_all, make_scratch_dir, read_devtools_url, resolve_binary};

/// Where Debian's `chromium` package puts its launcher.
pub const DEFAULT_BINARY: &str = "/usr/bin/chromium";

/// The flags every launch gets: headless, no first-run or background work that would
/// add noise to measurements, and a DevTools port chosen by the OS.
const FLAGS: &[&str] = &[
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--disable-background-networking",
    "--disable-dev-shm-usage",
    "--mute-audio",
    "--remote-debugging-port=0",
];

/// How long [`Chromium::close`] lets the browser shut down by itself before killing it.
const GRACEFUL_EXIT: Duration = Duration::from_secs(5);

/// How long cleanup waits for killed processes to disappear before removing the profile.
const KILL_SETTLE: Duration = Duration::from_secs(2);

/// How a browser is started and how long its calls may take.
#[derive(Debug, Clone)]
pub struct LaunchOptions {
    /// The Chromium executable; `None` means [`DEFAULT_BINARY`], else `chromium` on `PATH`.
    pub binary: Option<PathBuf>,
    /// Flags appended after the defaults (a later flag overrides an earlier one).
    pub extra_args: Vec<String>,
    /// How long to wait for the `DevTools listening on` line and the websocket handshake.
    pub launch_timeout: Duration,
    /// The bound on every CDP call, and on each wait for a page to load.
    pub call_timeout: Duration,
}

impl Default for LaunchOptions {
    fn default() -> Self {
        Self {
            binary: None,
            extra_args: Vec::new(),
            launch_timeout: Duration::from_secs(30),
            call_timeout: Duration::from_secs(30),
        }
    }
}

/// A running headless Chromium and the DevTools connection to it.
///
/// Dropping it kills the whole process tree and removes the temporary profile;
/// [`Chromium::close`] does the same after asking the browser to exit cleanly.
pub struct Chromium {
    conn: Arc<Connection>,
    process: Process,
    ws_url: String,
    tasks: Vec<JoinHandle<()>>,
}

impl fmt::Debug for Chromium {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Chromium")
            .field("pid", &self.process.pid)
            .field("ws_url", &self.ws_url)
            .finish_non_exhaustive()
    }
}

impl Chromium {
    /// Starts Chromium with a fresh temporary profile and connects to its browser target.
    pub async fn launch(opts: LaunchOptions) -> Result<Self> {
        let binary = resolve_binary(opts.binary.as_deref())?;
        let scratch_dir = make_scratch_dir()?;
        let mut command = Command::new(&binary);
        command
            .args(FLAGS)
            .arg(format!(
                "--user-data-dir={}",
                scratch_dir.join("profile").display()
            ))
            // Chromium's crash handler keeps its database under the XDG config home and
            // double-forks away from the browser; pointing it into the scratch dir keeps
            // it out of the user's ~/.config and makes it findable by that path.
            .env("XDG_CONFIG_HOME", scratch_dir.join("config"))
            .args(&opts.extra_args)
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = match command.spawn() {
            Ok(child) => child,
            Err(err) => {
                let _ = std::fs::remove_dir_all(&scratch_dir);
                return Err(anyhow!(err).context(format!(
                    "starting {} (install Chromium with `apt-get install chromium`)",
                    binary.display()
                )));
            }
        };
        let stderr = child.stderr.take();
        let pid = child
            .id()
            .context("chromium exited as soon as it started")?;
        // From here on, dropping `process` on an early return kills what was started.
        let mut process = Process {
            child,
            pid,
            scratch_dir,
            cleaned: false,
        };
        let stderr = stderr.context("chromium's stderr was not captured")?;
        let (ws_url, stderr_task) =
            read_devtools_url(stderr, &mut process, &binary, opts.launch_timeout).await?;

        let config = WebSocketConfig::default()
            // A full-page screenshot arrives as one base64 message, far over the defaults.
            .max_message_size(Some(1 << 30))
            .max_frame_size(Some(1 << 30));
        // Nagle off: CDP is small request/response messages, and on loopback Nagle plus
        // delayed ACKs would add tens of milliseconds to calls being timed.
        let connect =
            tokio_tungstenite::connect_async_with_config(ws_url.as_str(), Some(config), true);
        let (socket, _response) = tokio::time::timeout(opts.launch_timeout, connect)
            .await
            .with_context(|| format!("timed out connecting to {ws_url}"))?
            .with_context(|| format!("connecting to {ws_url}"))?;
        let (sink, stream) = socket.split();
        let (outgoing, outgoing_rx) = mpsc::unbounded_channel();
        let conn = Arc::new(Connection {
            next_id: AtomicU64::new(1),
            outgoing,
            shared: Mutex::new(Shared::default()),
            call_timeout: opts.call_timeout,
        });
        let tasks = vec![
            stderr_task,
            tokio::spawn(read_loop(Arc::downgrade(&conn), stream)),
            tokio::spawn(write_loop(Arc::downgrade(&conn), sink, outgoing_rx)),
        ];
        let browser = Self {
            conn,
            process,
            ws_url,
            tasks,
        };
        // Target discovery is what reports `Target.targetCrashed`, without which a call
        // to a crashed page would only fail by timing out.
        browser
            .send("Target.setDiscoverTargets", json!({ "discover": true }))
            .await?;
        tracing::debug!(pid, ws_url = %browser.ws_url, "chromium launched");
        Ok(browser)
    }

    /// The browser process's id (the root of its process tree).
    pub fn pid(&self) -> Pid {
        self.process.pid
    }

    /// The browser process followed by all its descendants (zygotes, renderers, GPU and
    /// utility processes) and its crash handlers, read from `/proc` now.
    ///
    /// The crash handlers are not descendants (they double-fork to init), so they are
    /// found by the scratch directory on their command line.
    pub fn process_tree_pids(&self) -> Result<Vec<Pid>> {
        self.process.pids()
    }

    /// The summed PSS of the whole browser process tree, in bytes.
    pub fn tree_pss_bytes(&self) -> Result<u64> {
        Ok(procmem::sum_pss(&self.process_tree_pids()?))
    }

    /// The summed anonymous PSS of the browser's process tree, in bytes
    /// (see [`procmem::pss_anon_bytes`]).
    pub fn tree_pss_anon_bytes(&self) -> Result<u64> {
        Ok(procmem::sum_pss_anon(&self.process_tree_pids()?))
    }

    /// The browser-level DevTools websocket URL.
    pub fn ws_url(&self) -> &str {
        &self.ws_url
    }

    /// `Browser.getVersion`: product, revision, user agent and protocol version.
    pub async fn version(&self) -> Result<Value> {
        self.send("Browser.getVersion", json!({})).await
    }

    /// Sends any browser-level CDP command and returns its result.
    pub async fn send(&self, method: &str, params: Value) -> Result<Value> {
        self.conn.call(None, method, params).await
    }

    /// Creates an isolated browser context (its own cookies, storage and cache), the
    /// counterpart of one fleet session.
    pub async fn new_context(&self) -> Result<Context> {
        let created = self
            .send(
                "Target.createBrowserContext",
                // The context dies with the connection, so a crashed bench leaks nothing
                // into a browser that somehow outlives it.
                json!({ "disposeOnDetach": true }),
            )
            .await?;
        Ok(Context::new(
            Arc::clone(&self.conn),
            str_field(&created, "browserContextId")?,
        ))
    }

    /// Asks the browser to exit, waits for its process tree to go, and removes the
    /// profile; whatever has not exited in time is killed.
    pub async fn close(mut self) -> Result<()> {
        // The tree must be read before the browser exits: its children are reparented
        // away from it as soon as it does.
        let pids = self
            .process
            .pids()
            .unwrap_or_else(|_| vec![self.process.pid]);
        // The reply may never come, as the browser can exit before sending it.
        let _ = tokio::time::timeout(
            GRACEFUL_EXIT,
            self.conn.call(None, "Browser.close", json!({})),
        )
        .await;
        let exited = tokio::time::timeout(GRACEFUL_EXIT, self.process.child.wait()).await;
        if exited.is_err() {
            tracing::warn!(
                pid = self.process.pid,
                "chromium ignored Browser.close; killing it"
            );
        }
        let deadline = Instant::now() + GRACEFUL_EXIT;
        while pids.iter().any(|&pid| procmem::is_alive(pid)) && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        kill_all(&pids);
        let _ = self.process.child.start_kill();
        let _ = tokio::time::timeout(KILL_SETTLE, self.process.child.wait()).await;
        let deadline = Instant::now() + KILL_SETTLE;
        while pids.iter().any(|&pid| procmem::is_alive(pid)) && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        for task in &self.tasks {
            task.abort();
        }
        self.process.cleaned = true;
        let survivors: Vec<Pid> = pids
            .iter()
            .copied()
            .filter(|&pid| procmem::is_alive(pid))
            .collect();
        std::fs::remove_dir_all(&self.process.scratch_dir)
            .with_context(|| format!("removing {}", self.process.scratch_dir.display()))?;
        if !survivors.is_empty() {
            bail!("chromium processes {survivors:?} survived SIGKILL");
        }
        Ok(())
    }
}

impl Drop for Chromium {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
        // `self.process` is dropped next and kills the tree.
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[tokio::test]
    async fn a_missing_binary_is_a_clear_error() {
        let opts = LaunchOptions {
            binary: Some(PathBuf::from("/nonexistent/chromium")),
            ..LaunchOptions::default()
        };
        let err = format!("{:#}", Chromium::launch(opts).await.unwrap_err());
        assert!(err.contains("/nonexistent/chromium"), "{err}");
        assert!(err.contains("apt-get install chromium"), "{err}");
    }
}
