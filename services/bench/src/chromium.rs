//! A small async driver for headless Chromium over the Chrome DevTools Protocol: it owns
//! the browser process (and its temporary profile), the one websocket to it, and the
//! browser contexts and pages the bench opens through that websocket.
//!
//! One reader task routes every incoming message: replies go to the call waiting on
//! their `id`, events go to whoever subscribed to their `sessionId`. Pages are attached
//! in flat mode, so every page shares the browser's websocket and is addressed by its
//! session id. Every call is bounded by [`LaunchOptions::call_timeout`].

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

/// The started browser process and its scratch directory (profile and crash database),
/// killed and removed on drop unless [`Chromium::close`] already did so.
struct Process {
    child: Child,
    pid: Pid,
    scratch_dir: PathBuf,
    cleaned: bool,
}

impl Process {
    /// The browser's descendants plus the processes started with its scratch directory.
    fn pids(&self) -> Result<Vec<Pid>> {
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
fn kill_all(pids: &[Pid]) {
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
async fn read_devtools_url(
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
fn devtools_url(line: &str) -> Option<&str> {
    let rest = line.split("DevTools listening on ").nth(1)?;
    let url = rest.trim();
    url.starts_with("ws://").then_some(url)
}

/// The executable to launch: the one asked for, else Debian's, else one on `PATH`.
fn resolve_binary(explicit: Option<&Path>) -> Result<PathBuf> {
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
fn make_scratch_dir() -> Result<PathBuf> {
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

/// A string field of a CDP result, or an error naming it.
fn str_field(result: &Value, name: &str) -> Result<String> {
    result
        .get(name)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .with_context(|| format!("CDP result has no string `{name}`: {result}"))
}

/// The by-value result of `Runtime.evaluate`, or its exception as an error.
fn remote_value(mut result: Value) -> Result<Value> {
    if let Some(details) = result.get("exceptionDetails") {
        bail!("{}", exception_text(details));
    }
    let remote = result
        .get_mut("result")
        .context("Runtime.evaluate returned no result")?;
    if let Some(value) = remote.get_mut("value") {
        return Ok(value.take());
    }
    if let Some(spelled) = remote.get("unserializableValue").and_then(Value::as_str) {
        return Ok(Value::String(spelled.to_owned()));
    }
    Ok(Value::Null)
}

/// The most useful text CDP gives for a thrown exception: an `Error`'s description
/// (message and stack), else the thrown primitive, else the bare `Uncaught`.
fn exception_text(details: &Value) -> String {
    if let Some(description) = details
        .pointer("/exception/description")
        .and_then(Value::as_str)
    {
        return description.to_owned();
    }
    if let Some(value) = details.pointer("/exception/value") {
        let shown = value
            .as_str()
            .map_or_else(|| value.to_string(), str::to_owned);
        return format!("Uncaught {shown}");
    }
    details
        .get("text")
        .and_then(Value::as_str)
        .unwrap_or("JavaScript exception")
        .to_owned()
}

/// The first line of `text`, cut to 80 chars, for error contexts.
fn abbreviate(text: &str) -> String {
    let line = text.lines().next().unwrap_or("");
    let mut short: String = line.chars().take(80).collect();
    if short.len() < text.len() {
        short.push('…');
    }
    short
}

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A CDP error reply.
#[derive(Debug)]
struct CdpError {
    code: i64,
    message: String,
    data: Option<String>,
}

impl CdpError {
    fn from_json(error: &Value) -> Self {
        Self {
            code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
            message: error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("unknown error")
                .to_owned(),
            data: error.get("data").and_then(Value::as_str).map(str::to_owned),
        }
    }
}

impl fmt::Display for CdpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (code {})", self.message, self.code)?;
        if let Some(data) = &self.data {
            write!(f, ": {data}")?;
        }
        Ok(())
    }
}

/// A call's outcome: its result, or why it failed, ready to show.
type Reply = std::result::Result<Value, String>;

/// One CDP event.
#[derive(Debug, Clone)]
struct Event {
    method: String,
    params: Value,
    session_id: Option<String>,
}

/// The websocket's two halves as the rest of the driver sees them: a queue of outgoing
/// messages and the tables the reader task routes incoming ones through.
struct Connection {
    next_id: AtomicU64,
    outgoing: mpsc::UnboundedSender<String>,
    shared: Mutex<Shared>,
    call_timeout: Duration,
}

#[derive(Default)]
struct Shared {
    /// Calls awaiting their reply, by id, with the session they were sent on.
    pending: HashMap<u64, (Option<String>, oneshot::Sender<Reply>)>,
    /// The target each attached session talks to.
    session_targets: HashMap<String, String>,
    /// Sessions whose target crashed or went away, with why: Chromium never answers
    /// their calls, so they fail at once instead of waiting out the timeout.
    dead_sessions: HashMap<String, String>,
    /// Event subscribers, by subscription id, with the session they listen to.
    subscribers: HashMap<u64, (Option<String>, mpsc::UnboundedSender<Event>)>,
    next_subscriber: u64,
    /// Why the connection is gone, once it is.
    closed: Option<String>,
}

impl Connection {
    fn lock(&self) -> MutexGuard<'_, Shared> {
        // Nothing panics while holding the lock, and the tables stay consistent if
        // something did, so a poisoned lock is still usable.
        self.shared.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Sends `method` on `session` (the browser target when `None`) and waits for the
    /// reply, up to the call timeout.
    async fn call(&self, session: Option<&str>, method: &str, params: Value) -> Result<Value> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        {
            let mut shared = self.lock();
            if let Some(reason) = &shared.closed {
                bail!("CDP {method}: {reason}");
            }
            if let Some(reason) = session.and_then(|s| shared.dead_sessions.get(s)) {
                bail!("CDP {method}: {reason}");
            }
            shared.pending.insert(id, (session.map(str::to_owned), tx));
        }
        // Removes the pending entry however this call ends, including by being dropped.
        let _pending = PendingGuard { conn: self, id };
        self.outgoing
            .send(request(id, session, method, params))
            .map_err(|_| anyhow!("CDP {method}: the DevTools connection is closed"))?;
        match tokio::time::timeout(self.call_timeout, rx).await {
            Err(_) => bail!("CDP {method} timed out after {:?}", self.call_timeout),
            Ok(Err(_)) => {
                let reason = self.lock().closed.clone();
                bail!(
                    "CDP {method}: {}",
                    reason
                        .as_deref()
                        .unwrap_or("the DevTools connection is closed")
                )
            }
            Ok(Ok(Err(error))) => bail!("CDP {method} failed: {error}"),
            Ok(Ok(Ok(result))) => Ok(result),
        }
    }

    /// Sends `method` without waiting for (or routing) its reply: for `Drop`, which
    /// cannot await.
    fn send_detached(&self, session: Option<&str>, method: &str, params: Value) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let _ = self.outgoing.send(request(id, session, method, params));
    }

    /// Starts buffering the events of `session` (browser-level events when `None`).
    fn subscribe(self: &Arc<Self>, session: Option<&str>) -> Subscription {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut shared = self.lock();
        let id = shared.next_subscriber;
        shared.next_subscriber += 1;
        // A subscriber added after the connection closed is never fed, so dropping its
        // sender here makes its first `recv` report the closure instead of hanging.
        if shared.closed.is_none() {
            shared
                .subscribers
                .insert(id, (session.map(str::to_owned), tx));
        }
        Subscription {
            conn: Arc::clone(self),
            id,
            events: rx,
        }
    }

    /// Routes one incoming message.
    fn dispatch(&self, text: &str) {
        let mut message: Map<String, Value> = match serde_json::from_str(text) {
            Ok(message) => message,
            Err(err) => {
                tracing::warn!(%err, "ignoring a CDP message that is not a JSON object");
                return;
            }
        };
        if let Some(id) = message.get("id").and_then(Value::as_u64) {
            let reply = match message.get("error") {
                Some(error) => Err(CdpError::from_json(error).to_string()),
                None => Ok(message.remove("result").unwrap_or(Value::Null)),
            };
            // No entry means the caller gave up (timeout, drop) or never waited.
            if let Some((_, tx)) = self.lock().pending.remove(&id) {
                let _ = tx.send(reply);
            }
            return;
        }
        let Some(Value::String(method)) = message.remove("method") else {
            return;
        };
        let event = Event {
            method,
            params: message.remove("params").unwrap_or(Value::Null),
            session_id: match message.remove("sessionId") {
                Some(Value::String(session)) => Some(session),
                _ => None,
            },
        };
        if event.session_id.is_none() {
            self.track_target_loss(&event);
        }
        self.lock().subscribers.retain(|_, (session, tx)| {
            *session != event.session_id || tx.send(event.clone()).is_ok()
        });
    }

    /// Remembers which target a page session talks to, so that its loss can be told.
    fn register_session(&self, session: &str, target: &str) {
        self.lock()
            .session_targets
            .insert(session.to_owned(), target.to_owned());
    }

    /// Fails the sessions of a crashed or vanished target: their pending calls, their
    /// event waiters, and every later call on them.
    fn track_target_loss(&self, event: &Event) {
        let params = &event.params;
        let mut shared = self.lock();
        let (sessions, reason): (Vec<String>, String) = match event.method.as_str() {
            "Target.targetCrashed" => {
                let target = params["targetId"].as_str().unwrap_or_default();
                let sessions = shared
                    .session_targets
                    .iter()
                    .filter(|(_, t)| *t == target)
                    .map(|(s, _)| s.clone())
                    .collect();
                let status = params["status"].as_str().unwrap_or("unknown status");
                let code = &params["errorCode"];
                (
                    sessions,
                    format!("the page crashed ({status}, code {code})"),
                )
            }
            "Target.detachedFromTarget" => match params["sessionId"].as_str() {
                Some(session) => (
                    vec![session.to_owned()],
                    "the page was closed or detached".to_owned(),
                ),
                None => return,
            },
            _ => return,
        };
        let Shared {
            pending,
            subscribers,
            session_targets,
            dead_sessions,
            ..
        } = &mut *shared;
        for session in sessions {
            let calls: Vec<u64> = pending
                .iter()
                .filter(|(_, (on, _))| on.as_deref() == Some(session.as_str()))
                .map(|(&id, _)| id)
                .collect();
            for id in calls {
                if let Some((_, tx)) = pending.remove(&id) {
                    let _ = tx.send(Err(reason.clone()));
                }
            }
            // Waiters see the loss as the crash event they already stop on.
            let crashed = Event {
                method: "Inspector.targetCrashed".to_owned(),
                params: json!({ "reason": reason }),
                session_id: Some(session.clone()),
            };
            for (on, tx) in subscribers.values() {
                if on.as_deref() == Some(session.as_str()) {
                    let _ = tx.send(crashed.clone());
                }
            }
            session_targets.remove(&session);
            dead_sessions.insert(session, reason.clone());
        }
    }

    /// Marks the connection gone and wakes every waiter with that news.
    fn shut(&self, reason: String) {
        let mut shared = self.lock();
        if shared.closed.is_none() {
            tracing::debug!(%reason, "CDP connection closed");
            shared.closed = Some(reason);
        }
        // Dropping the senders makes every waiting call and subscriber return at once.
        shared.pending.clear();
        shared.subscribers.clear();
    }
}

/// Removes a call's pending entry when the call ends.
struct PendingGuard<'a> {
    conn: &'a Connection,
    id: u64,
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        self.conn.lock().pending.remove(&self.id);
    }
}

/// Buffered events of one session, unsubscribed on drop.
struct Subscription {
    conn: Arc<Connection>,
    id: u64,
    events: mpsc::UnboundedReceiver<Event>,
}

impl Subscription {
    /// Waits up to `limit` for the first event matching `matches`, discarding others.
    async fn wait_for(
        &mut self,
        limit: Duration,
        mut matches: impl FnMut(&Event) -> bool,
    ) -> Result<Event> {
        let wait = async {
            while let Some(event) = self.events.recv().await {
                if event.method == "Inspector.targetCrashed" {
                    let reason = event.params["reason"]
                        .as_str()
                        .unwrap_or("the page crashed");
                    bail!("{reason}");
                }
                if matches(&event) {
                    return Ok(event);
                }
            }
            let reason = self.conn.lock().closed.clone();
            bail!(
                "{}",
                reason
                    .as_deref()
                    .unwrap_or("the DevTools connection is closed")
            )
        };
        tokio::time::timeout(limit, wait)
            .await
            .with_context(|| format!("no matching event within {limit:?}"))?
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.conn.lock().subscribers.remove(&self.id);
    }
}

/// A CDP request as sent on the wire.
fn request(id: u64, session: Option<&str>, method: &str, params: Value) -> String {
    let mut message = json!({ "id": id, "method": method, "params": params });
    if let (Some(session), Some(object)) = (session, message.as_object_mut()) {
        object.insert("sessionId".to_owned(), Value::String(session.to_owned()));
    }
    message.to_string()
}

/// Routes incoming messages until the websocket ends, then fails everything waiting.
///
/// Holds the connection weakly so that dropping the last handle ends the driver.
async fn read_loop(conn: Weak<Connection>, mut stream: SplitStream<Socket>) {
    let reason = loop {
        let message = stream.next().await;
        let Some(strong) = conn.upgrade() else { return };
        match message {
            Some(Ok(Message::Text(text))) => strong.dispatch(text.as_str()),
            Some(Ok(Message::Binary(bytes))) => match std::str::from_utf8(&bytes) {
                Ok(text) => strong.dispatch(text),
                Err(_) => tracing::warn!("ignoring a binary CDP message that is not UTF-8"),
            },
            Some(Ok(Message::Close(_))) | None => {
                break "Chromium closed the DevTools connection".to_owned();
            }
            Some(Ok(_)) => {}
            Some(Err(err)) => break format!("the DevTools connection failed: {err}"),
        }
    };
    if let Some(conn) = conn.upgrade() {
        conn.shut(reason);
    }
}

/// Writes queued requests to the websocket in order until the queue or socket closes.
async fn write_loop(
    conn: Weak<Connection>,
    mut sink: SplitSink<Socket, Message>,
    mut outgoing: mpsc::UnboundedReceiver<String>,
) {
    while let Some(text) = outgoing.recv().await {
        if let Err(err) = sink.send(Message::text(text)).await {
            if let Some(conn) = conn.upgrade() {
                conn.shut(format!("writing to the DevTools connection failed: {err}"));
            }
            return;
        }
    }
    let _ = sink.close().await;
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
