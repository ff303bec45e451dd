//! What the bench drives inside a browser: isolated browser contexts (one per
//! fleet session it is measured against) and the pages (tabs) opened in them,
//! each with its own flat-mode CDP session on the browser's one websocket.

use std::fmt;
use std::sync::Arc;

use anyhow::{Context as _, Result, bail};
use base64::Engine as _;
use serde_json::{Value, json};
use tokio::sync::OnceCell;

use super::cdp::{Connection, abbreviate, remote_value, str_field};

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
    /// A context the browser just created as `id`.
    pub(super) fn new(conn: Arc<Connection>, id: String) -> Self {
        Self {
            conn,
            id,
            closed: false,
        }
    }

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
