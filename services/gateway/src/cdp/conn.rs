//! One DevTools connection's state — the page target it attached, the
//! execution contexts it announced, the document's loader — and how its
//! commands become fleet actions: [`Conn::act`] runs one action on the
//! session, [`Conn::page`] runs one operation of `runtime.js` in the page.
//! Events a command causes are queued to go out before or after its reply,
//! in the order Chrome sends them.

use fleet_proto::v1::{self as pb, BrowserAction, action::Kind, action_output, action_response};
use fleet_store::Tenant;
use serde_json::{Value, json};

use crate::Dispatcher;

/// The page side of the endpoint: a function expression applied to one
/// request (see the file).
const RUNTIME: &str = include_str!("runtime.js");

/// A protocol error, as the reply's `error`.
#[derive(Debug)]
pub(super) struct CdpError {
    pub(super) code: i64,
    pub(super) message: String,
}

impl CdpError {
    /// A command that failed (Chrome's "server error").
    pub(super) fn failed(message: impl Into<String>) -> Self {
        Self {
            code: -32000,
            message: message.into(),
        }
    }

    /// Parameters that do not fit the method.
    pub(super) fn invalid(message: impl Into<String>) -> Self {
        Self {
            code: -32602,
            message: message.into(),
        }
    }

    /// A method this endpoint does not implement.
    pub(super) fn unknown(method: &str) -> Self {
        Self {
            code: -32601,
            message: format!("'{method}' wasn't found"),
        }
    }
}

pub(super) type Reply = Result<Value, CdpError>;

/// The execution contexts announced for the current document: the page's
/// main world and each isolated world a client created. Every one of them
/// is the page's one realm — this engine has no isolated worlds — so a
/// client's utility scripts share the page's globals.
#[derive(Debug, Default)]
pub(super) struct Contexts {
    next: i64,
    pub(super) main: i64,
    /// Isolated worlds by name, with their context IDs.
    pub(super) worlds: Vec<(String, i64)>,
}

impl Contexts {
    /// New IDs for a new document's contexts.
    pub(super) fn renew(&mut self) {
        self.next += 1;
        self.main = self.next;
        for (_, id) in &mut self.worlds {
            self.next += 1;
            *id = self.next;
        }
    }

    /// The context of a new isolated world named `name`.
    pub(super) fn world(&mut self, name: &str) -> i64 {
        self.next += 1;
        let id = self.next;
        self.worlds.retain(|(n, _)| n != name);
        self.worlds.push((name.to_owned(), id));
        id
    }
}

/// The document the page shows, as the client was told.
#[derive(Debug, Default)]
pub(super) struct Document {
    pub(super) url: String,
    pub(super) title: String,
    pub(super) loader: String,
}

pub(super) struct Conn {
    dispatcher: Dispatcher,
    tenant: Tenant,
    /// The fleet session: also the page's target, frame and browser context ID.
    pub(super) id: String,
    /// The page target's CDP session, once attached.
    pub(super) session: Option<String>,
    pub(super) runtime_enabled: bool,
    pub(super) page_enabled: bool,
    pub(super) lifecycle_enabled: bool,
    pub(super) discover: bool,
    pub(super) contexts: Contexts,
    pub(super) doc: Document,
    /// The URL a navigation this connection ran reached: its `navigated`
    /// event is already told and is not told again.
    pub(super) own_navigation: Option<String>,
    /// A pressed mouse button's point, clicked on release.
    pub(super) pressed: Option<(f64, f64)>,
    /// Remote objects and groups released since the last command that ran
    /// in the page.
    pub(super) releases: Vec<Value>,
    /// Scripts to run in each new document, by identifier.
    pub(super) new_document_scripts: Vec<(String, String)>,
    pub(super) next_script: u64,
    /// Events to send before the reply, then after it.
    pub(super) before: Vec<Value>,
    pub(super) after: Vec<Value>,
    /// The epoch of the page realm's table of remote objects, once seen;
    /// `None` after a new document was announced, until the next answer.
    pub(super) epoch: Option<String>,
    /// The realm was replaced without a navigation the client was told of:
    /// the session was restored (on another worker, after a drain or a
    /// crash), which a client sees as a new document.
    pub(super) replaced: bool,
    /// The URL of a document announced because its realm was replaced: the
    /// navigation event that brought it, arriving later, is not told again.
    pub(super) announced: Option<String>,
    /// Close the socket after this reply (`Browser.close`).
    pub(super) closing: bool,
}

impl Conn {
    pub(super) fn new(dispatcher: Dispatcher, tenant: Tenant, id: String) -> Self {
        Self {
            dispatcher,
            tenant,
            id,
            session: None,
            runtime_enabled: false,
            page_enabled: false,
            lifecycle_enabled: false,
            discover: false,
            contexts: Contexts::default(),
            doc: Document {
                loader: new_id(),
                ..Document::default()
            },
            own_navigation: None,
            pressed: None,
            releases: Vec::new(),
            new_document_scripts: Vec::new(),
            next_script: 0,
            before: Vec::new(),
            after: Vec::new(),
            epoch: None,
            replaced: false,
            announced: None,
            closing: false,
        }
    }

    /// Runs one command.
    pub(super) async fn handle(&mut self, method: &str, params: Value) -> Reply {
        let reply = self.route(method, params).await;
        if std::mem::take(&mut self.replaced) {
            // What the reply holds belongs to the new document: its events
            // go first.
            self.refresh_document().await.ok();
            self.announced = Some(self.doc.url.clone());
            self.new_document(new_id(), false).await;
        }
        reply
    }

    async fn route(&mut self, method: &str, params: Value) -> Reply {
        let (domain, _) = method.split_once('.').unwrap_or((method, ""));
        match domain {
            "Browser" | "Target" => self.target(method, &params).await,
            "Page" => self.page_method(method, &params).await,
            "Runtime" => self.runtime(method, &params).await,
            "DOM" => self.dom(method, &params).await,
            "Input" => self.input(method, &params).await,
            _ => Self::accepted(method),
        }
    }

    /// The methods a client may send that change nothing here: enabling
    /// domains whose events this endpoint does not send, and emulation this
    /// engine does not do (a session's viewport is fixed when it is
    /// created).
    pub(super) fn accepted(method: &str) -> Reply {
        const ACCEPTED: &[&str] = &[
            "Network.enable",
            "Network.disable",
            "Network.setCacheDisabled",
            "Network.setBypassServiceWorker",
            "Log.enable",
            "Log.disable",
            "Performance.enable",
            "Performance.disable",
            "Audits.enable",
            "Security.enable",
            "Inspector.enable",
            "ServiceWorker.enable",
            "Fetch.disable",
            "Emulation.setDeviceMetricsOverride",
            "Emulation.clearDeviceMetricsOverride",
            "Emulation.setTouchEmulationEnabled",
            "Emulation.setFocusEmulationEnabled",
            "Emulation.setEmulatedMedia",
            "Emulation.setDefaultBackgroundColorOverride",
            "Emulation.setScrollbarsHidden",
            "Emulation.setAutoDarkModeOverride",
            "Debugger.enable",
            "Debugger.disable",
            "Debugger.setAsyncCallStackDepth",
            "CSS.enable",
            "Overlay.enable",
        ];
        if ACCEPTED.contains(&method) {
            Ok(json!({}))
        } else {
            Err(CdpError::unknown(method))
        }
    }

    /// Runs `kind` on the session, as an agent's call would.
    pub(super) async fn act(&self, kind: Kind) -> Result<action_output::Kind, CdpError> {
        let call = vec![BrowserAction {
            session_id: self.id.clone(),
            viewport: None,
            action: Some(pb::Action {
                kind: Some(kind),
                max_duration_ms: 0,
            }),
        }];
        let mut answer = self
            .dispatcher
            .execute_devtools(&self.tenant, call)
            .await
            .map_err(|e| CdpError::failed(e.to_cdp_message()))?;
        let outcome = answer.responses.pop().and_then(|r| r.outcome);
        match outcome {
            Some(action_response::Outcome::Output(pb::ActionOutput { kind: Some(out) })) => Ok(out),
            Some(action_response::Outcome::Error(e)) => Err(CdpError::failed(format!(
                "{}: {}",
                crate::error::code_name(e.code()),
                e.message
            ))),
            _ => Err(CdpError::failed("the session gave no answer")),
        }
    }

    /// Runs operation `op` of `runtime.js` in the page with `params`; a
    /// protocol error it reports (an unknown object) is the reply's error.
    pub(super) async fn page(&mut self, op: &str, params: &Value) -> Reply {
        let request = json!({"op": op, "params": params});
        let script = format!("{}({request})", RUNTIME.trim_end());
        let out = self.act(Kind::Evaluate(pb::Evaluate { script })).await?;
        let action_output::Kind::Evaluate(ev) = out else {
            return Err(CdpError::failed("the session gave no answer"));
        };
        let mut answer: Value = serde_json::from_str(&ev.value_json)
            .map_err(|_| CdpError::failed("the page's answer was not JSON"))?;
        if let Some(epoch) = answer.get("epoch").and_then(Value::as_str) {
            match &self.epoch {
                Some(known) if known != epoch => self.replaced = true,
                _ => {}
            }
            self.epoch = Some(epoch.to_owned());
        }
        let value = answer["out"].take();
        if let Some(message) = value.get("error").and_then(Value::as_str) {
            return Err(CdpError::failed(message));
        }
        Ok(value)
    }

    /// Queues `method` with `params` for the page's session, before the reply.
    pub(super) fn event(&mut self, method: &str, params: Value) {
        let e = self.page_event(method, params);
        self.before.push(e);
    }

    /// Queues `method` with `params` for the page's session, after the reply.
    pub(super) fn event_after(&mut self, method: &str, params: Value) {
        let e = self.page_event(method, params);
        self.after.push(e);
    }

    /// Queues a browser-level event, before the reply.
    pub(super) fn browser_event(&mut self, method: &str, params: Value) {
        self.before
            .push(json!({"method": method, "params": params}));
    }

    fn page_event(&self, method: &str, params: Value) -> Value {
        match &self.session {
            Some(s) => json!({"method": method, "params": params, "sessionId": s}),
            None => json!({"method": method, "params": params}),
        }
    }
}

/// A fresh ID in Chrome's style (32 uppercase hex digits).
pub(super) fn new_id() -> String {
    uuid::Uuid::new_v4().simple().to_string().to_uppercase()
}

/// Seconds, as CDP's monotonic timestamps.
pub(super) fn timestamp() -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let ms = fleet_store::now_millis() as f64;
    ms / 1000.0
}
