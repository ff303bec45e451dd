//! A small async driver for headless Chromium over the Chrome DevTools Protocol: it owns
//! the browser process (and its temporary profile), the one websocket to it, and the
//! browser contexts and pages the bench opens through that websocket.
//!
//! One reader task routes every incoming message: replies go to the call waiting on
//! their `id`, events go to whoever subscribed to their `sessionId`. Pages are attached
//! in flat mode, so every page shares the browser's websocket and is addressed by its
//! session id. Every call is bounded by [`LaunchOptions::call_timeout`].
//!
//! This file is the public face (launch, contexts, pages); `chromium/process.rs` owns the
//! browser process and `chromium/cdp.rs` the websocket connection.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context as _, Result, anyhow, bail};
use base64::Engine as _;
use futures::stream::{SplitSink, SplitStream};
use futures::{SinkExt as _, StreamExt as _};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt as _, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, ChildStderr, Command};
use tokio::sync::{OnceCell, mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use crate::procmem::{self, Pid};

mod cdp;
mod process;

use cdp::*;
use process::*;

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
        Ok(Context {
            conn: Arc::clone(&self.conn),
            id: str_field(&created, "browserContextId")?,
            closed: false,
        })
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

/// An isolated browser context: pages opened in it share cookies and storage with each
/// other and with nothing else.
///
/// Dropping it disposes of it in the background; [`Context::close`] waits for that.
pub struct Context {
    conn: Arc<Connection>,
    id: String,
    closed: bool,
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl Context {
    /// The CDP `browserContextId`.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Opens an `about:blank` page in this context and attaches a session to it.
    pub async fn new_page(&self) -> Result<Page> {
        let created = self
            .conn
            .call(
                None,
                "Target.createTarget",
                json!({ "url": "about:blank", "browserContextId": self.id }),
            )
            .await?;
        let target_id = str_field(&created, "targetId")?;
        let attached = self
            .conn
            .call(
                None,
                "Target.attachToTarget",
                json!({ "targetId": target_id, "flatten": true }),
            )
            .await
            .and_then(|attached| str_field(&attached, "sessionId"));
        let session_id = match attached {
            Ok(session_id) => session_id,
            Err(err) => {
                self.conn.send_detached(
                    None,
                    "Target.closeTarget",
                    json!({ "targetId": target_id }),
                );
                return Err(err);
            }
        };
        self.conn.register_session(&session_id, &target_id);
        Ok(Page {
            conn: Arc::clone(&self.conn),
            target_id,
            session_id,
            main_frame: OnceCell::new(),
            events_enabled: OnceCell::new(),
            closed: false,
        })
    }

    /// Disposes of the context and every page in it.
    pub async fn close(mut self) -> Result<()> {
        self.closed = true;
        self.conn
            .call(
                None,
                "Target.disposeBrowserContext",
                json!({ "browserContextId": self.id }),
            )
            .await?;
        Ok(())
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        if !self.closed {
            self.conn.send_detached(
                None,
                "Target.disposeBrowserContext",
                json!({ "browserContextId": self.id }),
            );
        }
    }
}

/// One page (tab) with a flat-mode session attached to it.
///
/// Dropping it closes the target in the background; [`Page::close`] waits for that.
pub struct Page {
    conn: Arc<Connection>,
    target_id: String,
    session_id: String,
    main_frame: OnceCell<String>,
    events_enabled: OnceCell<()>,
    closed: bool,
}

impl fmt::Debug for Page {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Page")
            .field("target_id", &self.target_id)
            .field("session_id", &self.session_id)
            .finish_non_exhaustive()
    }
}

/// Resolves once the current document has fired `load`, whether or not it already had.
const WAIT_FOR_LOAD_JS: &str = "document.readyState === 'complete' || \
     new Promise(resolve => addEventListener('load', () => resolve(true), { once: true }))";

impl Page {
    /// The CDP `targetId`.
    pub fn target_id(&self) -> &str {
        &self.target_id
    }

    /// The CDP `sessionId` this page's commands are sent on.
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// Sends any CDP command on this page's session and returns its result.
    pub async fn send(&self, method: &str, params: Value) -> Result<Value> {
        self.conn.call(Some(&self.session_id), method, params).await
    }

    /// Sets the viewport to `width`×`height` CSS pixels at a device scale factor of 1.
    pub async fn set_viewport(&self, width: u32, height: u32) -> Result<()> {
        self.send(
            "Emulation.setDeviceMetricsOverride",
            json!({
                "width": width,
                "height": height,
                "deviceScaleFactor": 1,
                "mobile": false,
            }),
        )
        .await?;
        Ok(())
    }

    /// Replaces the main frame's document with `html` and waits for its `load` event.
    ///
    /// Uses `Page.setDocumentContent` rather than a `data:` URL: it keeps the page's
    /// origin and process (as a fleet session's `set_content` does), has no URL length
    /// limit, and skips a navigation whose cost would be charged to Chromium unfairly.
    pub async fn set_content(&self, html: &str) -> Result<()> {
        let frame_id = self.main_frame_id().await?;
        // Both commands go out back to back: CDP runs a session's commands in order, so
        // the load wait starts on the new document, and one round trip is saved.
        let set = self.send(
            "Page.setDocumentContent",
            json!({ "frameId": frame_id, "html": html }),
        );
        let loaded = self.evaluate(WAIT_FOR_LOAD_JS);
        tokio::try_join!(set, loaded).context("setting page content")?;
        Ok(())
    }

    /// Navigates the main frame to `url` and waits for the new document's `load` event.
    ///
    /// Fails on a network-level error (`errorText`, e.g. `net::ERR_CONNECTION_REFUSED`);
    /// an HTTP error status still loads and succeeds, as in a browser. A same-document
    /// navigation (fragment change) returns as soon as it is committed.
    pub async fn navigate(&self, url: &str) -> Result<()> {
        self.enable_page_events().await?;
        // Subscribing before navigating, so the `load` event cannot be missed however
        // soon it follows the reply.
        let mut events = self.conn.subscribe(Some(&self.session_id));
        let nav = self
            .send("Page.navigate", json!({ "url": url }))
            .await
            .with_context(|| format!("navigating to {url}"))?;
        if let Some(error) = nav
            .get("errorText")
            .and_then(Value::as_str)
            .filter(|e| !e.is_empty())
        {
            bail!("navigating to {url} failed: {error}");
        }
        let Some(loader_id) = nav.get("loaderId").and_then(Value::as_str) else {
            return Ok(());
        };
        let frame_id = nav.get("frameId").and_then(Value::as_str).unwrap_or("");
        events
            .wait_for(self.conn.call_timeout, |event| {
                event.method == "Page.lifecycleEvent"
                    && event.params["name"] == "load"
                    && event.params["loaderId"] == loader_id
                    && event.params["frameId"] == frame_id
            })
            .await
            .with_context(|| format!("waiting for {url} to load"))?;
        Ok(())
    }

    /// Evaluates `expression` in the page's main world, awaiting it if it is a promise,
    /// and returns its value as JSON.
    ///
    /// `undefined` and values JSON cannot carry by value (DOM nodes, functions) come
    /// back as `null` or `{}`; `NaN`, `Infinity`, `-0` and bigints as their string
    /// spelling. A thrown exception or rejected promise is an error with its message.
    pub async fn evaluate(&self, expression: &str) -> Result<Value> {
        let result = self
            .send(
                "Runtime.evaluate",
                json!({
                    "expression": expression,
                    "returnByValue": true,
                    "awaitPromise": true,
                }),
            )
            .await?;
        remote_value(result).with_context(|| format!("evaluating `{}`", abbreviate(expression)))
    }

    /// A PNG screenshot of the viewport.
    pub async fn screenshot_png(&self) -> Result<Vec<u8>> {
        let shot = self
            .send("Page.captureScreenshot", json!({ "format": "png" }))
            .await?;
        let data = shot
            .get("data")
            .and_then(Value::as_str)
            .context("Page.captureScreenshot returned no data")?;
        base64::engine::general_purpose::STANDARD
            .decode(data)
            .context("decoding the screenshot's base64")
    }

    /// Closes the page's target.
    pub async fn close(mut self) -> Result<()> {
        self.closed = true;
        self.conn
            .call(
                None,
                "Target.closeTarget",
                json!({ "targetId": self.target_id }),
            )
            .await?;
        Ok(())
    }

    /// The main frame's id, asked for once: it stays the same for the target's life,
    /// across navigations.
    async fn main_frame_id(&self) -> Result<&str> {
        let id = self
            .main_frame
            .get_or_try_init(|| async {
                let tree = self.send("Page.getFrameTree", json!({})).await?;
                tree.pointer("/frameTree/frame/id")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .context("Page.getFrameTree returned no main frame id")
            })
            .await?;
        Ok(id)
    }

    /// Turns on the events `navigate` waits for, once per page and only for pages that
    /// navigate, so that `set_content` benches do not pay for them.
    async fn enable_page_events(&self) -> Result<()> {
        self.events_enabled
            .get_or_try_init(|| async {
                tokio::try_join!(
                    self.send("Page.enable", json!({})),
                    self.send("Page.setLifecycleEventsEnabled", json!({ "enabled": true })),
                )?;
                Ok::<(), anyhow::Error>(())
            })
            .await?;
        Ok(())
    }
}

impl Drop for Page {
    fn drop(&mut self) {
        if !self.closed {
            self.conn.send_detached(
                None,
                "Target.closeTarget",
                json!({ "targetId": self.target_id }),
            );
        }
    }
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

    #[test]
    fn a_thrown_error_reports_its_description() {
        let result = json!({
            "result": { "type": "object", "subtype": "error" },
            "exceptionDetails": {
                "text": "Uncaught",
                "exception": { "description": "Error: boom\n    at <anonymous>:1:7" }
            }
        });
        let err = remote_value(result).unwrap_err().to_string();
        assert!(err.starts_with("Error: boom"), "{err}");
    }

    #[test]
    fn a_thrown_primitive_reports_its_value() {
        let result = json!({
            "result": {},
            "exceptionDetails": { "text": "Uncaught", "exception": { "type": "string", "value": "nope" } }
        });
        assert_eq!(
            remote_value(result).unwrap_err().to_string(),
            "Uncaught nope"
        );
    }

    #[test]
    fn by_value_results_unwrap_and_undefined_is_null() {
        let value = remote_value(json!({ "result": { "type": "string", "value": "t" } }));
        assert_eq!(value.unwrap(), json!("t"));
        let undefined = remote_value(json!({ "result": { "type": "undefined" } }));
        assert_eq!(undefined.unwrap(), Value::Null);
        let nan =
            remote_value(json!({ "result": { "type": "number", "unserializableValue": "NaN" } }));
        assert_eq!(nan.unwrap(), json!("NaN"));
    }

    #[test]
    fn session_requests_carry_their_session_id() {
        let text = request(7, Some("S1"), "Page.enable", json!({}));
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["id"], 7);
        assert_eq!(value["sessionId"], "S1");
        let browser: Value =
            serde_json::from_str(&request(8, None, "Browser.close", json!({}))).unwrap();
        assert!(browser.get("sessionId").is_none());
    }

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
