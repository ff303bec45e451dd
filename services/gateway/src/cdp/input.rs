//! The `Input` domain, as the fleet's actions: a left button pressed and
//! released is one click at that point, a move is a hover, the wheel
//! scrolls; a key that types text types it, other keys are pressed by name
//! with their modifiers, and inserted text is typed.

use fleet_proto::v1::{self as pb, action::Kind};
use serde_json::{Value, json};

use super::conn::{CdpError, Conn, Reply};

/// Keys that only modify others: pressing one alone does nothing here.
const MODIFIERS: [&str; 5] = ["Shift", "Control", "Alt", "Meta", "CapsLock"];

impl Conn {
    pub(super) async fn input(&mut self, method: &str, p: &Value) -> Reply {
        match method {
            "Input.dispatchMouseEvent" => self.mouse(p).await,
            "Input.dispatchKeyEvent" => self.key(p).await,
            "Input.insertText" => {
                let text = p.get("text").and_then(Value::as_str).unwrap_or_default();
                if !text.is_empty() {
                    self.type_text(text).await?;
                }
                Ok(json!({}))
            }
            "Input.setIgnoreInputEvents" => Ok(json!({})),
            _ => Err(CdpError::unknown(method)),
        }
    }

    async fn mouse(&mut self, p: &Value) -> Reply {
        let kind = p.get("type").and_then(Value::as_str).unwrap_or_default();
        let (Some(x), Some(y)) = (
            p.get("x").and_then(Value::as_f64),
            p.get("y").and_then(Value::as_f64),
        ) else {
            return Err(CdpError::invalid("x and y: numbers expected"));
        };
        let button = p.get("button").and_then(Value::as_str).unwrap_or("none");
        match kind {
            "mouseMoved" => {
                self.act(Kind::Hover(pb::Hover {
                    target: Some(point(x, y)),
                }))
                .await?;
            }
            "mousePressed" if button == "left" => self.pressed = Some((x, y)),
            "mousePressed" | "mouseReleased" if button != "left" => {
                return Err(CdpError::invalid(format!(
                    "only the left button clicks in this engine; got {button:?}"
                )));
            }
            "mouseReleased" => {
                // A release without a press (a client that sends only the
                // release) still clicks where it happened.
                let (x, y) = self.pressed.take().unwrap_or((x, y));
                self.act(Kind::Click(pb::Click {
                    target: Some(point(x, y)),
                }))
                .await?;
            }
            "mouseWheel" => {
                let dx = p.get("deltaX").and_then(Value::as_f64).unwrap_or(0.0);
                let dy = p.get("deltaY").and_then(Value::as_f64).unwrap_or(0.0);
                self.act(Kind::Scroll(pb::Scroll {
                    target: None,
                    dx,
                    dy,
                }))
                .await?;
            }
            other => {
                return Err(CdpError::invalid(format!(
                    "unknown mouse event type {other:?}"
                )));
            }
        }
        Ok(json!({}))
    }

    async fn key(&mut self, p: &Value) -> Reply {
        let kind = p.get("type").and_then(Value::as_str).unwrap_or_default();
        if !matches!(kind, "keyDown" | "rawKeyDown") {
            // keyUp and char: the action that typed or pressed did both.
            return Ok(json!({}));
        }
        let key = p.get("key").and_then(Value::as_str).unwrap_or_default();
        let text = p.get("text").and_then(Value::as_str).unwrap_or_default();
        let modifiers = p.get("modifiers").and_then(Value::as_i64).unwrap_or(0);
        // Alt, Control and Meta make a shortcut of a key, not text.
        let shortcut = modifiers & 0b0111 != 0;
        if !text.is_empty() && !shortcut && !text.chars().any(char::is_control) {
            self.type_text(text).await?;
            return Ok(json!({}));
        }
        if key.is_empty() || MODIFIERS.contains(&key) {
            return Ok(json!({}));
        }
        let mut combo = String::new();
        for (bit, name) in [(2, "Control"), (1, "Alt"), (4, "Meta"), (8, "Shift")] {
            if modifiers & bit != 0 {
                combo.push_str(name);
                combo.push('+');
            }
        }
        combo.push_str(key);
        self.act(Kind::PressKey(pb::PressKey { key: combo }))
            .await?;
        Ok(json!({}))
    }

    async fn type_text(&mut self, text: &str) -> Result<(), CdpError> {
        self.act(Kind::Type(pb::Type {
            target: None,
            text: text.to_owned(),
            clear: false,
        }))
        .await
        .map(|_| ())
    }
}

fn point(x: f64, y: f64) -> pb::Target {
    pb::Target {
        kind: Some(pb::target::Kind::Point(pb::Point { x, y })),
    }
}
