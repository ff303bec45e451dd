//! The `Runtime` domain: evaluating expressions and calling functions in the
//! page, with results by value or as remote objects (`runtime.js` keeps
//! them), and the execution contexts clients see. Releases are batched:
//! they travel with the next command that runs in the page.

use serde_json::{Value, json};

use super::conn::{CdpError, Conn, Reply};

impl Conn {
    pub(super) async fn runtime(&mut self, method: &str, p: &Value) -> Reply {
        match method {
            "Runtime.enable" => {
                self.runtime_enabled = true;
                if self.contexts.main == 0 {
                    self.contexts.renew();
                }
                if self.doc.url.is_empty() {
                    self.refresh_document().await?;
                }
                self.context_created(self.contexts.main, "", true);
                for (name, id) in self.contexts.worlds.clone() {
                    self.context_created(id, &name, false);
                }
                Ok(json!({}))
            }
            "Runtime.disable" => {
                self.runtime_enabled = false;
                Ok(json!({}))
            }
            "Runtime.evaluate" => {
                if p.get("expression").and_then(Value::as_str).is_none() {
                    return Err(CdpError::invalid("expression: string value expected"));
                }
                self.check_context(p.get("contextId"))?;
                self.in_page("evaluate", p).await
            }
            "Runtime.callFunctionOn" => {
                if p.get("functionDeclaration")
                    .and_then(Value::as_str)
                    .is_none()
                {
                    return Err(CdpError::invalid(
                        "functionDeclaration: string value expected",
                    ));
                }
                if p.get("objectId").is_none() && p.get("executionContextId").is_none() {
                    return Err(CdpError::failed(
                        "Either objectId or executionContextId must be specified",
                    ));
                }
                self.check_context(p.get("executionContextId"))?;
                self.in_page("call", p).await
            }
            "Runtime.getProperties" => self.in_page("properties", p).await,
            "Runtime.releaseObject" => {
                if let Some(id) = p.get("objectId").and_then(Value::as_str) {
                    self.releases.push(json!({"objectId": id}));
                }
                Ok(json!({}))
            }
            "Runtime.releaseObjectGroup" => {
                if let Some(group) = p.get("objectGroup").and_then(Value::as_str) {
                    self.releases.push(json!({"objectGroup": group}));
                }
                Ok(json!({}))
            }
            // Page code runs only inside commands, so a binding could never
            // call back: it is accepted and stays silent.
            "Runtime.addBinding"
            | "Runtime.removeBinding"
            | "Runtime.runIfWaitingForDebugger"
            | "Runtime.setAsyncCallStackDepth"
            | "Runtime.discardConsoleEntries"
            | "Runtime.setCustomObjectFormatterEnabled" => Ok(json!({})),
            _ => Err(CdpError::unknown(method)),
        }
    }

    /// Refuses a context of a document the page no longer shows.
    fn check_context(&self, id: Option<&Value>) -> Result<(), CdpError> {
        let Some(id) = id.and_then(Value::as_i64) else {
            return Ok(());
        };
        let current =
            id == self.contexts.main || self.contexts.worlds.iter().any(|(_, w)| *w == id);
        if current {
            Ok(())
        } else {
            Err(CdpError::failed("Cannot find context with specified id"))
        }
    }

    /// Runs `op` of `runtime.js` with the releases queued so far.
    pub(super) async fn in_page(&mut self, op: &str, p: &Value) -> Reply {
        let mut params = p.clone();
        if !self.releases.is_empty()
            && let Some(o) = params.as_object_mut()
        {
            o.insert(
                "release".into(),
                Value::Array(std::mem::take(&mut self.releases)),
            );
        }
        self.page(op, &params).await
    }
}
