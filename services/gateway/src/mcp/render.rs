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

use super::tools::{Sessions, ToolKind};
use crate::error::{code_name, http_status, retry_after_ms};
use crate::markup::html_text;

/// Longest page text returned, characters.
const MAX_TEXT_CHARS: usize = 20_000;
/// Longest snippet of an HTTP response's text, characters.
const MAX_SNIPPET_CHARS: usize = 500;

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
    // An HTTP request belongs to no session, so its entry names none.
    let head = |ok: bool| {
        if tool.sessions() == Sessions::None {
            json!({"actionIndex": r.action_index, "ok": ok})
        } else {
            json!({"actionIndex": r.action_index, "sessionID": r.session_id, "ok": ok})
        }
    };
    match &r.outcome {
        Some(Outcome::Output(out)) => {
            let response = match &out.kind {
                Some(action_output::Kind::Page(p)) => {
                    let mut v = json!({"page": page_json(p), "results": results_json(p)});
                    // Servo MCP names what an input or load did.
                    let action = match tool {
                        ToolKind::Navigate => Some("navigate"),
                        ToolKind::Click => Some("click"),
                        ToolKind::Hover => Some("hover"),
                        ToolKind::Type => Some("type"),
                        ToolKind::PressKey => Some("key"),
                        ToolKind::Scroll => Some("scroll"),
                        ToolKind::Reload => Some("reload"),
                        _ => None,
                    };
                    if let (Some(a), Some(o)) = (action, v.as_object_mut()) {
                        o.insert("action".into(), json!(a));
                    }
                    v
                }
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
                Some(action_output::Kind::Font(f)) => json!({
                    "fontId": f.font_id,
                    "families": f.families,
                    "faces": f.families.iter().map(|family| json!({"family": family})).collect::<Vec<_>>(),
                    "fontCount": f.font_count,
                }),
                Some(action_output::Kind::Accessibility(a)) => json!({
                    "tree": a.tree,
                    "nodes": a.nodes,
                    "truncated": a.truncated,
                    "page": a.page.as_ref().map(page_json),
                }),
                Some(action_output::Kind::Capabilities(c)) => capabilities_json(c),
                Some(action_output::Kind::Http(h)) => http_json(h),
                Some(action_output::Kind::Cookies(c)) => json!({
                    "cookies": c.cookies.iter().map(cookie_json).collect::<Vec<_>>(),
                    "changed": c.changed,
                }),
                Some(action_output::Kind::Storage(st)) => storage_json(tool, st),
                Some(action_output::Kind::NetworkLog(n)) => json!({
                    "entries": n.entries.iter().map(|e| json!({
                        "method": e.method, "url": e.url, "status": e.status,
                        "mimeType": e.mime_type, "size": e.size, "startedMs": e.started_ms,
                        "durationMs": e.duration_ms, "finalUrl": e.final_url, "error": e.error,
                    })).collect::<Vec<_>>(),
                    "total": n.total,
                }),
                Some(action_output::Kind::Found(f)) => json!({
                    "ref": f.r#ref, "selector": f.selector, "tag": f.tag, "text": f.text,
                    "box": {"x": f.x, "y": f.y, "width": f.width, "height": f.height},
                }),
                Some(action_output::Kind::ConsoleMessages(c)) => json!({
                    "messages": c.messages.iter().map(|m| json!({"level": m.level, "text": m.text})).collect::<Vec<_>>(),
                    "total": c.total,
                }),
                Some(action_output::Kind::Frames(f)) => frames_json(tool, f),
                Some(action_output::Kind::Recording(rec)) => recording_json(rec),
                Some(action_output::Kind::Downloads(d)) => downloads_json(d),
                Some(action_output::Kind::CdpEndpoint(c)) => json!({
                    "webSocketDebuggerUrl": c.web_socket_debugger_url,
                    "expiresAt": chrono::DateTime::from_timestamp_millis(c.expires_at_ms)
                        .map(|t| t.to_rfc3339()),
                }),
                Some(action_output::Kind::LiveView(l)) => json!({
                    "url": l.url, "mode": l.mode,
                    "expiresAt": chrono::DateTime::from_timestamp_millis(l.expires_at_ms)
                        .map(|t| t.to_rfc3339()),
                }),
                // Search has its own tool and rendering; over the actions
                // envelope it is only reachable through gRPC.
                Some(action_output::Kind::WebSearch(_)) => Value::Null,
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

/// Renders a web search: Servo MCP's `{query, provider, results, providers,
/// failedProviders}` at the top level, or the search's error.
pub(super) fn search(resp: ExecuteResponse) -> CallToolResult {
    let out = resp.responses.into_iter().next().and_then(|r| r.outcome);
    let found = match out {
        Some(Outcome::Output(pb::ActionOutput {
            kind: Some(action_output::Kind::WebSearch(w)),
        })) => w,
        Some(Outcome::Error(e)) => {
            let body = json!({
                "error": e.message.chars().take(2048).collect::<String>(),
                "code": code_name(e.code()),
                "status": http_status(e.code()),
            });
            let mut r = CallToolResult::error(vec![ContentBlock::text(body.to_string())]);
            r.structured_content = Some(body);
            return r;
        }
        _ => pb::WebSearchResult::default(),
    };
    let body = json!({
        "query": found.query,
        "provider": found.provider,
        "results": found.results.iter().map(|h| json!({"title": h.title, "url": h.url, "snippet": h.snippet, "provider": h.provider})).collect::<Vec<_>>(),
        "providers": found.providers,
        "failedProviders": found.failed_providers.iter().map(|f| json!({"provider": f.provider, "error": f.error})).collect::<Vec<_>>(),
    });
    let mut r = CallToolResult::success(vec![ContentBlock::text(body.to_string())]);
    r.structured_content = Some(body);
    r
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

/// An HTTP response as Servo MCP gives it: the request, the response's
/// status and headers, the body as text (for text, JSON, XML, JavaScript and
/// form types) or base64, and for text a readable `results` entry (HTML is
/// reduced to its text).
fn http_json(h: &pb::HttpResult) -> Value {
    let mut headers = serde_json::Map::new();
    for pb::Header { name, value } in &h.headers {
        // Repeated headers join as the Fetch standard's Headers do.
        let joined = match headers.get(name).and_then(Value::as_str) {
            Some(prev) => format!("{prev}, {value}"),
            None => value.clone(),
        };
        headers.insert(name.clone(), json!(joined));
    }
    let content_type = h
        .headers
        .iter()
        .find(|x| x.name.eq_ignore_ascii_case("content-type"))
        .map(|x| x.value.clone());
    let mime = content_type
        .as_deref()
        .unwrap_or_default()
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    let textual = mime.starts_with("text/")
        || mime.ends_with("+json")
        || mime.ends_with("+xml")
        || matches!(
            mime.as_str(),
            "application/json"
                | "application/xml"
                | "application/javascript"
                | "application/x-www-form-urlencoded"
        );
    let decoded = textual.then(|| String::from_utf8_lossy(&h.body).into_owned());
    let (title, content) = match &decoded {
        Some(text) if mime.contains("html") => {
            let (title, text) = html_text(text);
            (title, Some(text))
        }
        Some(text) => (String::new(), Some(text.clone())),
        None => (String::new(), None),
    };
    let title = if title.is_empty() {
        h.headers
            .iter()
            .find(|x| x.name.eq_ignore_ascii_case("x-page-title"))
            .map(|x| x.value.clone())
            .or_else(|| Some(url::Url::parse(&h.url).ok()?.host_str()?.to_owned()))
            .unwrap_or_default()
    } else {
        title
    };
    let results = match &content {
        Some(c) => json!([{
            "title": title,
            "url": h.url,
            "snippet": c.chars().take(MAX_SNIPPET_CHARS).collect::<String>(),
            "content": c.chars().take(MAX_TEXT_CHARS).collect::<String>(),
        }]),
        None => json!([]),
    };
    json!({
        "request": {"method": h.method, "url": h.request_url},
        "response": {
            "status": h.status,
            "statusText": h.status_text,
            "ok": (200..300).contains(&h.status),
            "url": h.url,
            "redirected": h.redirected,
            "headers": headers,
            "contentType": content_type,
            "bodyBytes": h.body.len(),
            "truncated": h.truncated,
        },
        "results": results,
        "body": decoded,
        "bodyBase64": if textual { Value::Null } else { json!(base64::engine::general_purpose::STANDARD.encode(&h.body)) },
    })
}

/// A frames action's answer: the list, an evaluation's value, or the HTML.
fn frames_json(tool: ToolKind, f: &pb::FramesResult) -> Value {
    match tool {
        ToolKind::FrameEvaluate => {
            let value: Value = serde_json::from_str(&f.value_json).unwrap_or(Value::Null);
            json!({"frameId": f.frame_id, "value": value, "page": f.page.as_ref().map(page_json)})
        }
        ToolKind::FrameHtml => json!({
            "frameId": f.frame_id, "url": f.url, "html": f.html, "truncated": f.truncated,
        }),
        ToolKind::PageHtml => json!({"url": f.url, "html": f.html, "truncated": f.truncated}),
        _ => json!({
            "frames": f.frames.iter().map(|k| json!({
                "id": k.id,
                "parentId": (!k.parent_id.is_empty()).then_some(&k.parent_id),
                "url": k.url, "name": k.name, "title": k.title,
                "loaded": k.loaded, "sameOrigin": k.same_origin,
            })).collect::<Vec<_>>(),
        }),
    }
}

/// A session's downloads (`servo_downloads`), or a read of one with its
/// entry (`servo_download_read`).
fn downloads_json(d: &pb::DownloadsResult) -> Value {
    let info = |f: &pb::DownloadInfo| {
        let mut v = json!({
            "downloadId": f.download_id,
            "sessionID": f.session_id,
            "filename": f.filename,
            "mimeType": f.mime_type,
            "sizeBytes": f.size_bytes,
            "sourceUrl": f.source_url,
            "status": f.status,
            "createdAt": f.created_at,
            "expiresAt": f.expires_at,
        });
        if let Some(o) = v.as_object_mut() {
            for (k, val) in [("error", &f.error), ("downloadUrl", &f.download_url)] {
                if let Some(val) = val {
                    o.insert(k.into(), json!(val));
                }
            }
        }
        v
    };
    match &d.chunk {
        Some(c) => {
            let mut v = json!({
                "downloadId": c.download_id,
                "offset": c.offset,
                "length": c.length,
                "totalBytes": c.total_bytes,
                "encoding": c.encoding,
                "content": c.content,
                "eof": c.eof,
            });
            if let (Some(o), Some(f)) = (v.as_object_mut(), d.downloads.first()) {
                o.insert("file".into(), info(f));
            }
            v
        }
        None => json!({
            "downloads": d.downloads.iter().map(info).collect::<Vec<_>>(),
        }),
    }
}

/// A recording as Servo MCP's four recording tools answer, in one shape:
/// every field the seed's tools return (absent ones left out).
fn recording_json(r: &pb::RecordingResult) -> Value {
    let mut v = json!({
        "recordingId": r.recording_id,
        "sessionID": r.session_id,
        "status": r.status,
        "fps": r.fps,
        "maxDurationSeconds": r.max_duration_seconds,
        "capturedFrames": r.captured_frames,
        "targetFrames": r.target_frames,
        "width": r.width,
        "height": r.height,
        "sizeBytes": r.size_bytes,
        "segments": r.segments,
        "startedAt": r.started_at,
        "expiresAt": r.expires_at,
        "filename": r.filename,
        "mimeType": r.mime_type,
    });
    if let Some(o) = v.as_object_mut() {
        for (k, val) in [
            ("stoppedAt", &r.stopped_at),
            ("error", &r.error),
            ("downloadUrl", &r.download_url),
        ] {
            if let Some(val) = val {
                o.insert(k.into(), json!(val));
            }
        }
    }
    v
}

fn cookie_json(k: &pb::Cookie) -> Value {
    json!({
        "name": k.name, "value": k.value, "domain": k.domain, "path": k.path,
        "expires": k.expires, "httpOnly": k.http_only, "secure": k.secure,
        "sameSite": k.same_site,
    })
}

/// Storage: `{origins: [{origin, items}]}` for the area tools; Playwright's
/// `{storageState: {cookies, origins: [{origin, localStorage}]}}` for the state
/// tools.
fn storage_json(tool: ToolKind, st: &pb::StorageResult) -> Value {
    let items = |o: &pb::OriginStorage| -> Vec<Value> {
        o.items
            .iter()
            .map(|i| json!({"name": i.name, "value": i.value}))
            .collect()
    };
    if matches!(
        tool,
        ToolKind::StorageStateExport | ToolKind::StorageStateImport
    ) {
        json!({"storageState": {
            "cookies": st.cookies.iter().map(cookie_json).collect::<Vec<_>>(),
            "origins": st.origins.iter().map(|o| json!({"origin": o.origin, "localStorage": items(o)})).collect::<Vec<_>>(),
        }})
    } else {
        json!({"origins": st.origins.iter().map(|o| json!({"origin": o.origin, "items": items(o)})).collect::<Vec<_>>()})
    }
}

/// The capability report: our list, and Servo MCP's grouping of the same
/// entries (`supported`, `partial`, `unsupported` with `unsupportedReasons`,
/// `unverified`), so clients written for either read it.
fn capabilities_json(c: &pb::CapabilitiesResult) -> Value {
    let names = |support: &str| -> Vec<&str> {
        c.capabilities
            .iter()
            .filter(|c| c.support == support)
            .map(|c| c.name.as_str())
            .collect()
    };
    let reasons = |support: &str| -> serde_json::Map<String, Value> {
        c.capabilities
            .iter()
            .filter(|c| c.support == support)
            .map(|c| (c.name.clone(), json!(c.reason)))
            .collect()
    };
    json!({
        "capabilities": c.capabilities.iter().map(|c| json!({"name": c.name, "support": c.support, "reason": c.reason})).collect::<Vec<_>>(),
        "supported": names("supported"),
        "partial": reasons("partial"),
        "unsupported": names("unsupported"),
        "unsupportedReasons": reasons("unsupported"),
        "unverified": names("unverified"),
    })
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
