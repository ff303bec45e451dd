//! The `Page` domain: the frame tree (one frame, the page), navigation and
//! the events a new document brings — in Chrome's order: loading starts,
//! contexts are cleared, the frame navigates, its contexts are created,
//! DOMContentLoaded and load fire, loading stops, the network idles — and
//! screenshots and layout metrics.

use base64::Engine as _;
use fleet_proto::v1::{self as pb, action::Kind, action_output};
use serde_json::{Value, json};

use super::conn::{CdpError, Conn, Reply, new_id, timestamp};

/// Lifecycle events of a document that has finished loading, in order.
const LOADED: [&str; 4] = [
    "DOMContentLoaded",
    "load",
    "networkAlmostIdle",
    "networkIdle",
];

impl Conn {
    pub(super) async fn page_method(&mut self, method: &str, p: &Value) -> Reply {
        match method {
            "Page.enable" => {
                self.page_enabled = true;
                Ok(json!({}))
            }
            "Page.disable" => {
                self.page_enabled = false;
                Ok(json!({}))
            }
            "Page.getFrameTree" => {
                if self.doc.url.is_empty() {
                    self.refresh_document().await?;
                }
                Ok(json!({"frameTree": {"frame": self.frame(), "childFrames": []}}))
            }
            "Page.setLifecycleEventsEnabled" => {
                self.lifecycle_enabled = p.get("enabled").and_then(Value::as_bool).unwrap_or(false);
                if self.lifecycle_enabled {
                    // The document is loaded already: say so.
                    for name in ["commit"].into_iter().chain(LOADED) {
                        let params = self.lifecycle_params(name);
                        self.event("Page.lifecycleEvent", params);
                    }
                }
                Ok(json!({}))
            }
            "Page.addScriptToEvaluateOnNewDocument" => {
                let source = p.get("source").and_then(Value::as_str).unwrap_or_default();
                self.next_script += 1;
                let id = self.next_script.to_string();
                self.new_document_scripts
                    .push((id.clone(), source.to_owned()));
                Ok(json!({"identifier": id}))
            }
            "Page.removeScriptToEvaluateOnNewDocument" => {
                let id = p
                    .get("identifier")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                self.new_document_scripts.retain(|(i, _)| i != id);
                Ok(json!({}))
            }
            "Page.createIsolatedWorld" => {
                let name = p
                    .get("worldName")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                if self.contexts.main == 0 {
                    self.contexts.renew();
                }
                let id = self.contexts.world(name);
                if self.runtime_enabled {
                    self.context_created(id, name, false);
                }
                Ok(json!({"executionContextId": id}))
            }
            "Page.navigate" => {
                let url = p.get("url").and_then(Value::as_str).unwrap_or_default();
                self.navigate(url).await
            }
            "Page.reload" => {
                let step = pb::history::Step::Reload as i32;
                self.load(Kind::History(pb::History { step })).await
            }
            "Page.captureScreenshot" => self.screenshot(p).await,
            "Page.getLayoutMetrics" => self.page("layout", &json!({})).await,
            // The session's dialog policy has answered the dialog already.
            "Page.handleJavaScriptDialog"
            | "Page.bringToFront"
            | "Page.stopLoading"
            | "Page.setBypassCSP"
            | "Page.setInterceptFileChooserDialog"
            | "Page.setAdBlockingEnabled"
            | "Page.setWebLifecycleState"
            | "Page.setFontFamilies"
            | "Page.setDownloadBehavior"
            | "Page.setPrerenderingAllowed" => Ok(json!({})),
            _ => Err(CdpError::unknown(method)),
        }
    }

    /// Loads `url` (`about:blank` is an empty document).
    async fn navigate(&mut self, url: &str) -> Reply {
        let target = if url == "about:blank" {
            pb::navigate::Target::Html(String::new())
        } else {
            pb::navigate::Target::Url(url.to_owned())
        };
        self.load(Kind::Navigate(pb::Navigate {
            target: Some(target),
        }))
        .await
    }

    /// Runs `kind`, which loads a new document, and tells the client.
    async fn load(&mut self, kind: Kind) -> Reply {
        let loader = new_id();
        if self.page_enabled {
            self.event("Page.frameStartedLoading", json!({"frameId": self.id}));
        }
        let page = match self.act(kind).await {
            Ok(action_output::Kind::Page(page)) => page,
            Ok(_) => return Err(CdpError::failed("the session gave no page")),
            // Chrome answers a failed load with its error text; clients
            // throw it with the URL.
            Err(e) => {
                if self.page_enabled {
                    self.event_after("Page.frameStoppedLoading", json!({"frameId": self.id}));
                }
                return Ok(json!({"frameId": self.id, "loaderId": loader, "errorText": e.message}));
            }
        };
        self.own_navigation = Some(page.url.clone());
        self.doc.url = page.url;
        self.doc.title = page.title;
        self.new_document(loader.clone(), true).await;
        Ok(json!({"frameId": self.id, "loaderId": loader}))
    }

    /// Tells the client the page shows a new document, loaded by `loader`:
    /// after the reply when a command of this connection loaded it.
    pub(super) async fn new_document(&mut self, loader: String, after: bool) {
        self.doc.loader = loader;
        // The new document's realm is adopted at its first answer.
        self.epoch = None;
        let mut events: Vec<(&str, Value)> = Vec::new();
        if self.runtime_enabled {
            events.push(("Runtime.executionContextsCleared", json!({})));
        }
        self.contexts.renew();
        if self.lifecycle_enabled {
            events.push(("Page.lifecycleEvent", self.lifecycle_params("init")));
        }
        if self.page_enabled {
            events.push((
                "Page.frameNavigated",
                json!({"frame": self.frame(), "type": "Navigation"}),
            ));
        }
        if self.runtime_enabled {
            events.push((
                "Runtime.executionContextCreated",
                self.context_params(self.contexts.main, "", true),
            ));
            for (name, id) in self.contexts.worlds.clone() {
                events.push((
                    "Runtime.executionContextCreated",
                    self.context_params(id, &name, false),
                ));
            }
        }
        if self.page_enabled {
            events.push((
                "Page.domContentEventFired",
                json!({"timestamp": timestamp()}),
            ));
        }
        if self.lifecycle_enabled {
            events.push((
                "Page.lifecycleEvent",
                self.lifecycle_params("DOMContentLoaded"),
            ));
        }
        if self.page_enabled {
            events.push(("Page.loadEventFired", json!({"timestamp": timestamp()})));
        }
        if self.lifecycle_enabled {
            events.push(("Page.lifecycleEvent", self.lifecycle_params("load")));
        }
        if self.page_enabled {
            events.push(("Page.frameStoppedLoading", json!({"frameId": self.id})));
        }
        if self.lifecycle_enabled {
            for name in ["networkAlmostIdle", "networkIdle"] {
                events.push(("Page.lifecycleEvent", self.lifecycle_params(name)));
            }
        }
        for (method, params) in events {
            if after {
                self.event_after(method, params);
            } else {
                self.event(method, params);
            }
        }
        if self.discover
            && let Ok(info) = self.target_info().await
        {
            self.browser_event("Target.targetInfoChanged", json!({"targetInfo": info}));
        }
        self.run_new_document_scripts().await;
    }

    /// Runs the scripts clients asked to run in each new document. This
    /// engine runs them once the document has loaded, not before its own
    /// scripts; one that throws is reported on the console, as Chrome does.
    async fn run_new_document_scripts(&mut self) {
        for (_, source) in self.new_document_scripts.clone() {
            // A script that is only a comment (Puppeteer registers one to
            // name its utility world) has nothing to run.
            if source
                .lines()
                .all(|l| l.trim().is_empty() || l.trim_start().starts_with("//"))
            {
                continue;
            }
            let params = json!({"expression": source, "returnByValue": true});
            if let Err(e) = self.page("evaluate", &params).await {
                tracing::debug!(error = %e.message, "a new-document script failed");
            }
        }
    }

    fn lifecycle_params(&self, name: &str) -> Value {
        json!({"frameId": self.id, "loaderId": self.doc.loader, "name": name, "timestamp": timestamp()})
    }

    /// Announces execution context `id` (the main world's when `default`).
    pub(super) fn context_created(&mut self, id: i64, name: &str, default: bool) {
        let params = self.context_params(id, name, default);
        self.event("Runtime.executionContextCreated", params);
    }

    fn context_params(&self, id: i64, name: &str, default: bool) -> Value {
        json!({"context": {
            "id": id,
            "origin": origin(&self.doc.url),
            "name": name,
            "uniqueId": format!("{}.{id}", self.doc.loader),
            "auxData": {
                "isDefault": default,
                "type": if default { "default" } else { "isolated" },
                "frameId": self.id,
            },
        }})
    }

    /// The page's frame, as `Page.getFrameTree` and `frameNavigated` give it.
    fn frame(&self) -> Value {
        let secure =
            self.doc.url.starts_with("https:") || origin(&self.doc.url).contains("://localhost");
        json!({
            "id": self.id,
            "loaderId": self.doc.loader,
            "url": self.doc.url,
            "domainAndRegistry": "",
            "securityOrigin": origin(&self.doc.url),
            "mimeType": "text/html",
            "secureContextType": if secure { "Secure" } else { "InsecureScheme" },
            "crossOriginIsolatedContextType": "NotIsolated",
            "gatedAPIFeatures": [],
        })
    }

    /// `Page.captureScreenshot`: PNG of the viewport, or of the whole page
    /// when the client asks beyond the viewport from its top-left corner
    /// (Puppeteer's `fullPage`). Other clips and formats are refused.
    async fn screenshot(&mut self, p: &Value) -> Reply {
        let format = p.get("format").and_then(Value::as_str).unwrap_or("png");
        if format != "png" {
            return Err(CdpError::invalid(format!(
                "screenshots are PNG; format {format:?} is not supported"
            )));
        }
        let beyond = p
            .get("captureBeyondViewport")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        if let Some(clip) = p.get("clip") {
            let at = |k: &str| clip.get(k).and_then(Value::as_f64).unwrap_or(0.0);
            let scale = clip.get("scale").and_then(Value::as_f64).unwrap_or(1.0);
            if at("x").abs() > 0.5 || at("y").abs() > 0.5 || (scale - 1.0).abs() > f64::EPSILON {
                return Err(CdpError::invalid(
                    "clip is supported only from the page's top-left corner at scale 1: screenshots are of the viewport or the whole page",
                ));
            }
        }
        let shot = self
            .act(Kind::Screenshot(pb::Screenshot { full_page: beyond }))
            .await?;
        let action_output::Kind::Screenshot(shot) = shot else {
            return Err(CdpError::failed("the session gave no screenshot"));
        };
        Ok(json!({"data": base64::engine::general_purpose::STANDARD.encode(&shot.png)}))
    }
}

/// `url`'s origin as CDP names it (`://` for none).
fn origin(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(u) if u.origin().is_tuple() => u.origin().ascii_serialization(),
        _ => "://".to_owned(),
    }
}
