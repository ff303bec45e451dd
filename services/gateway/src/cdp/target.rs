//! The `Browser` and `Target` domains: the browser has one context and one
//! page, the session. Discovery announces it, auto-attach (or
//! `attachToTarget`) attaches it with a flattened CDP session, and closing
//! the page target closes the fleet session.

use fleet_proto::v1::{self as pb, action::Kind};
use serde_json::{Value, json};

use super::conn::{CdpError, Conn, Reply, new_id};

impl Conn {
    pub(super) async fn target(&mut self, method: &str, p: &Value) -> Reply {
        match method {
            "Browser.getVersion" => Ok(json!({
                "protocolVersion": "1.3",
                "product": format!("ServoFleet/{}", env!("CARGO_PKG_VERSION")),
                "revision": env!("CARGO_PKG_VERSION"),
                "userAgent": "Mozilla/5.0 (X11; Linux x86_64) ServoFleet",
                "jsVersion": "QuickJS",
            })),
            // The session outlives the connection: closing the "browser"
            // ends this socket only (close the session to end it).
            "Browser.close" => {
                self.closing = true;
                Ok(json!({}))
            }
            "Browser.setDownloadBehavior"
            | "Browser.grantPermissions"
            | "Browser.resetPermissions" => Ok(json!({})),
            "Target.getBrowserContexts" => Ok(json!({
                "browserContextIds": [],
                "defaultBrowserContextId": self.id,
            })),
            "Target.setDiscoverTargets" => {
                let discover = p.get("discover").and_then(Value::as_bool).unwrap_or(false);
                if discover && !self.discover {
                    let info = self.target_info().await?;
                    self.browser_event("Target.targetCreated", json!({"targetInfo": info}));
                }
                self.discover = discover;
                Ok(json!({}))
            }
            "Target.getTargets" => Ok(json!({"targetInfos": [self.target_info().await?]})),
            "Target.getTargetInfo" => {
                match p.get("targetId").and_then(Value::as_str) {
                    Some(t) if t != self.id => Err(no_target()),
                    Some(_) => Ok(json!({"targetInfo": self.target_info().await?})),
                    // No target: the browser's own.
                    None => Ok(json!({"targetInfo": {
                        "targetId": "browser", "type": "browser", "title": "", "url": "",
                        "attached": true, "canAccessOpener": false,
                    }})),
                }
            }
            "Target.setAutoAttach" => {
                // On the page's own session: it has no child targets.
                let auto = p
                    .get("autoAttach")
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                if auto && self.session.is_none() {
                    self.attach().await?;
                }
                Ok(json!({}))
            }
            "Target.attachToTarget" => {
                self.own_target(p)?;
                let session = match &self.session {
                    Some(s) => s.clone(),
                    None => self.attach().await?,
                };
                Ok(json!({"sessionId": session}))
            }
            "Target.detachFromTarget" | "Target.activateTarget" => Ok(json!({})),
            "Target.closeTarget" => {
                self.own_target(p)?;
                self.act(Kind::Close(pb::CloseSession {})).await?;
                Ok(json!({"success": true}))
            }
            "Target.createTarget" | "Target.createBrowserContext" => Err(CdpError::failed(
                "this browser is one fleet session with one page: open another session (servo_session_status) and its own endpoint",
            )),
            _ => Err(CdpError::unknown(method)),
        }
    }

    /// Refuses a command on a target other than the page.
    fn own_target(&self, p: &Value) -> Result<(), CdpError> {
        match p.get("targetId").and_then(Value::as_str) {
            Some(t) if t == self.id => Ok(()),
            _ => Err(no_target()),
        }
    }

    /// Attaches the page, telling the client; the new CDP session's ID.
    async fn attach(&mut self) -> Result<String, CdpError> {
        let session = new_id();
        self.session = Some(session.clone());
        let mut info = self.target_info().await?;
        info["attached"] = json!(true);
        self.browser_event(
            "Target.attachedToTarget",
            json!({"sessionId": session, "targetInfo": info, "waitingForDebugger": false}),
        );
        Ok(session)
    }

    /// The page target, as the client sees it.
    pub(super) async fn target_info(&mut self) -> Result<Value, CdpError> {
        if self.doc.url.is_empty() {
            self.refresh_document().await?;
        }
        Ok(json!({
            "targetId": self.id,
            "type": "page",
            "title": self.doc.title,
            "url": self.doc.url,
            "attached": self.session.is_some(),
            "canAccessOpener": false,
            "browserContextId": self.id,
        }))
    }

    /// Reads the document's URL and title from the page.
    pub(super) async fn refresh_document(&mut self) -> Result<(), CdpError> {
        let page = self.page("page", &json!({})).await?;
        self.doc.url = page["url"].as_str().unwrap_or("about:blank").to_owned();
        self.doc.title = page["title"].as_str().unwrap_or_default().to_owned();
        Ok(())
    }
}

fn no_target() -> CdpError {
    CdpError::failed("No target with given id found")
}
