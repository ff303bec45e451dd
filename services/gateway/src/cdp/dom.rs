//! The `DOM` domain: nodes by remote object or node ID (`runtime.js` gives
//! both; a node's `nodeId` is its `backendNodeId`), their descriptions,
//! queries, HTML, focus, scrolling and boxes.

use serde_json::{Value, json};

use super::conn::{CdpError, Conn, Reply};

impl Conn {
    pub(super) async fn dom(&mut self, method: &str, p: &Value) -> Reply {
        let op = match method {
            "DOM.enable" | "DOM.disable" => return Ok(json!({})),
            "DOM.getDocument" => "document",
            "DOM.describeNode" => "describeNode",
            "DOM.resolveNode" => "resolveNode",
            "DOM.requestNode" => "requestNode",
            "DOM.querySelector" => "querySelector",
            "DOM.querySelectorAll" => "querySelectorAll",
            "DOM.getOuterHTML" => "outerHTML",
            "DOM.focus" => "focus",
            "DOM.scrollIntoViewIfNeeded" => "scrollIntoView",
            "DOM.getContentQuads" => "contentQuads",
            "DOM.getBoxModel" => "boxModel",
            "DOM.getFrameOwner" => {
                return Err(CdpError::failed(
                    "Frame with the given id does not belong to the target.",
                ));
            }
            "DOM.setFileInputFiles" => {
                return Err(CdpError::failed(
                    "setting a file input's files is not supported by this engine",
                ));
            }
            _ => return Err(CdpError::unknown(method)),
        };
        self.in_page(op, p).await
    }
}
