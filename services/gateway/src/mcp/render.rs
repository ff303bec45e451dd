//! Tool results: a call's answer as MCP content — the `{responses, metadata}`
//! object as structured content and as text, one PNG image block per
//! screenshot — and the session list's `{sessions}`. Failed actions keep the
//! code, HTTP status and retry hint the gRPC face gives them.

use base64::Engine as _;
use fleet_proto::v1::{
    self as pb, ActionResponse, ExecuteResponse, action_output, action_response::Outcome,
};
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Value, json};

use super::tools::ToolKind;
use crate::error::{code_name, http_status, retry_after_ms};

/// Longest page text returned, characters.
const MAX_TEXT_CHARS: usize = 20_000;

/// Renders a call's answer: the `{responses, metadata}` object as structured
/// content and text, plus one PNG image block per screenshot in action order.
pub(super) fn answer(tool: ToolKind, resp: ExecuteResponse) -> CallToolResult {
    let mut images = Vec::new();
    let responses: Vec<Value> = resp
        .responses
        .iter()
        .map(|r| response_json(tool, r, &mut images))
        .collect();
    let meta = resp.metadata.unwrap_or_default();
    let body = json!({
        "responses": responses,
        "metadata": {
            "responseCount": meta.response_count,
            "successfulCount": meta.successful_count,
            "failedCount": meta.failed_count,
        }
    });
    let mut content = vec![ContentBlock::text(body.to_string())];
    content.extend(images);
    let mut result = CallToolResult::success(content);
    result.structured_content = Some(body);
    result.is_error = Some(meta.failed_count > 0);
    result
}

fn response_json(tool: ToolKind, r: &ActionResponse, images: &mut Vec<ContentBlock>) -> Value {
    let head =
        |ok: bool| json!({"actionIndex": r.action_index, "sessionID": r.session_id, "ok": ok});
    match &r.outcome {
        Some(Outcome::Output(out)) => {
            let response = match &out.kind {
                Some(action_output::Kind::Page(p)) => match tool {
                    ToolKind::Navigate => {
                        json!({"action": "navigate", "page": page_json(p), "results": results_json(p)})
                    }
                    _ => json!({"page": page_json(p), "results": results_json(p)}),
                },
                Some(action_output::Kind::Evaluate(e)) => {
                    let value: Value = serde_json::from_str(&e.value_json).unwrap_or(Value::Null);
                    json!({"value": value, "page": e.page.as_ref().map(page_json)})
                }
                Some(action_output::Kind::Screenshot(s)) => {
                    let index = images.len();
                    images.push(ContentBlock::image(
                        base64::engine::general_purpose::STANDARD.encode(&s.png),
                        "image/png",
                    ));
                    json!({
                        "imageIndex": index,
                        "mimeType": "image/png",
                        "width": s.width,
                        "height": s.height,
                        "page": s.page.as_ref().map(page_json),
                    })
                }
                Some(action_output::Kind::Status(s)) => json!({
                    "status": s.status,
                    "updatedAt": s.updated_at,
                    "expiresAt": s.expires_at,
                    "runtimeAvailable": s.runtime_available,
                    "resumable": s.resumable,
                    "failure": s.failure,
                    "notRestored": s.not_restored,
                }),
                Some(action_output::Kind::Closed(c)) => json!({"closed": c.closed}),
                Some(action_output::Kind::Font(f)) => {
                    json!({"families": f.families, "fontCount": f.font_count})
                }
                Some(action_output::Kind::Accessibility(a)) => json!({
                    "tree": a.tree,
                    "nodes": a.nodes,
                    "truncated": a.truncated,
                    "page": a.page.as_ref().map(page_json),
                }),
                Some(action_output::Kind::Capabilities(c)) => json!({
                    "capabilities": c.capabilities.iter().map(|c| json!({"name": c.name, "support": c.support, "reason": c.reason})).collect::<Vec<_>>(),
                }),
                None => Value::Null,
            };
            let mut v = head(true);
            if let Some(o) = v.as_object_mut() {
                o.insert("response".into(), response);
            }
            v
        }
        Some(Outcome::Error(e)) => {
            let code = e.code();
            let mut v = head(false);
            if let Some(o) = v.as_object_mut() {
                o.insert(
                    "error".into(),
                    json!(e.message.chars().take(2048).collect::<String>()),
                );
                o.insert("code".into(), json!(code_name(code)));
                o.insert("status".into(), json!(http_status(code)));
                if code == pb::ErrorCode::Unavailable {
                    o.insert("retryAfterMs".into(), json!(retry_after_ms()));
                }
            }
            v
        }
        None => head(false),
    }
}

/// Renders the session list: `{sessions: [...]}` as structured content and text.
pub(super) fn sessions(list: &pb::ListSessionsResponse) -> CallToolResult {
    let sessions: Vec<Value> = list
        .sessions
        .iter()
        .map(|s| {
            json!({
                "sessionID": s.session_id,
                "url": s.url,
                "title": s.title,
                "status": s.status,
                "updatedAt": s.updated_at,
                "expiresAt": s.expires_at,
            })
        })
        .collect();
    let body = json!({"sessions": sessions});
    let mut r = CallToolResult::success(vec![ContentBlock::text(body.to_string())]);
    r.structured_content = Some(body);
    r
}

fn page_json(p: &pb::Page) -> Value {
    let text: String = p.text.chars().take(MAX_TEXT_CHARS).collect();
    let mut page = json!({
        "url": p.url,
        "title": p.title,
        "text": text,
        "links": links_json(&p.links),
        "settle": p.settle,
    });
    let Some(obj) = page.as_object_mut() else {
        return page;
    };
    if let Some(e) = &p.load_error {
        obj.insert("loadError".into(), json!(e));
    }
    // Lists an agent rarely needs empty are left out when they are.
    if !p.fields.is_empty() {
        obj.insert(
            "fields".into(),
            p.fields
                .iter()
                .map(|f| {
                    json!({"ref": f.r#ref, "kind": f.kind, "name": f.name, "label": f.label, "value": f.value, "checked": f.checked})
                })
                .collect(),
        );
    }
    if !p.frames.is_empty() {
        obj.insert(
            "frames".into(),
            p.frames
                .iter()
                .map(|f| {
                    json!({
                        "url": f.url,
                        "title": f.title,
                        "text": f.text,
                        "links": links_json(&f.links),
                    })
                })
                .collect(),
        );
    }
    if !p.dialogs.is_empty() {
        obj.insert(
            "dialogs".into(),
            p.dialogs
                .iter()
                .map(|d| json!({"kind": d.kind, "message": d.message, "accepted": d.accepted, "answer": d.answer}))
                .collect(),
        );
    }
    if !p.console.is_empty() {
        obj.insert(
            "console".into(),
            p.console
                .iter()
                .map(|c| json!({"level": c.level, "text": c.text}))
                .collect(),
        );
    }
    page
}

fn links_json(links: &[pb::Link]) -> Vec<Value> {
    links
        .iter()
        .map(|l| json!({"text": l.text, "href": l.href}))
        .collect()
}

/// The page as a reader sees it: its headline, URL, a snippet (the page's
/// description or the start of its first paragraph) and the main content
/// with the boilerplate removed, plus byline, date and site when known.
fn results_json(p: &pb::Page) -> Value {
    let readable = p.readable.clone().unwrap_or_default();
    let title = [&readable.title, &p.title, &p.url]
        .into_iter()
        .find(|t| !t.is_empty())
        .cloned()
        .unwrap_or_default();
    let mut entry = json!({
        "title": title,
        "url": p.url,
        "snippet": readable.excerpt,
        "content": readable.content,
    });
    if let Some(obj) = entry.as_object_mut() {
        for (key, value) in [
            ("byline", readable.byline),
            ("published", readable.published),
            ("siteName", readable.site_name),
        ] {
            if let Some(v) = value {
                obj.insert(key.into(), json!(v));
            }
        }
    }
    json!([entry])
}
