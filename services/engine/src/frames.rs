//! The tab's frames: the documents Blitz loads for `<iframe>` and `<frame>`
//! elements (each element holds its document), the ids agents name them by,
//! and the way from the tab's document down to a frame's.
//!
//! A frame's id is its position among the frame elements of its parent
//! document, in document order and from 1, after its parent frame's id and a
//! dot (`2`, `2.1`). Positions rather than node ids, so that an id read
//! before a restore (which parses the page again) still names the same frame.
//! The frame realms (`js/frames.rs`) are keyed by [`Path`], the frame
//! elements' node ids, which a new document never reuses.

use blitz_dom::{BaseDocument, NodeId};
use url::Url;

use crate::bindings::exports::fleet::engine::page::{FrameInfo, FrameMarkup};
use crate::{inspect, serialize, state};

/// Most frames `frames` lists.
const MAX_LISTED: usize = 50;

/// Deepest nesting an id may name (Blitz loads frames a few levels deep).
const MAX_DEPTH: usize = 8;

/// The way from the tab's document to a frame's: the frame elements, the
/// outermost first. The empty path is the tab's document.
pub(crate) type Path = Vec<NodeId>;

/// The frame elements of `doc` in document order (not those in templates).
pub(crate) fn frame_elements(doc: &BaseDocument) -> Vec<NodeId> {
    let mut found = Vec::new();
    let mut stack = vec![doc.root_node().id];
    while let Some(id) = stack.pop() {
        let Some(node) = doc.get_node(id) else {
            continue;
        };
        if let Some(el) = node.element_data() {
            match &*el.name.local {
                "template" => continue,
                "iframe" | "frame" => {
                    found.push(id);
                    continue;
                }
                _ => {}
            }
        }
        stack.extend(node.children.iter().rev().copied());
    }
    found
}

/// Run `f` on the document at `path` under `doc`; `None` when a step has no
/// document (an element gone, or a frame that loaded none).
pub(crate) fn with_doc_at<R>(
    doc: &mut BaseDocument,
    path: &[NodeId],
    f: impl FnOnce(&mut BaseDocument) -> R,
) -> Option<R> {
    let Some((first, rest)) = path.split_first() else {
        return Some(f(doc));
    };
    let sub = doc.get_node_mut(*first)?.subdoc_mut()?;
    let mut sub = sub.inner_mut();
    with_doc_at(&mut sub, rest, f)
}

/// [`with_doc_at`] for reading.
pub(crate) fn read_doc_at<R>(
    doc: &BaseDocument,
    path: &[NodeId],
    f: impl FnOnce(&BaseDocument) -> R,
) -> Option<R> {
    let Some((first, rest)) = path.split_first() else {
        return Some(f(doc));
    };
    let sub = doc.get_node(*first)?.subdoc()?;
    let sub = sub.inner();
    read_doc_at(&sub, rest, f)
}

/// Run `f` on the document at `path` in the tab; `None` when there is none
/// or the tab is busy (JavaScript bindings call this).
pub(crate) fn with_frame_doc<R>(
    path: &[NodeId],
    f: impl FnOnce(&mut BaseDocument) -> R,
) -> Option<R> {
    state::try_with_tab(|tab| with_doc_at(tab.document(), path, f)).flatten()
}

/// The positions an id names (`2.1` → `[2, 1]`), or why it names none.
fn parse_id(id: &str) -> Result<Vec<usize>, String> {
    let steps: Option<Vec<usize>> = id
        .trim()
        .split('.')
        .map(|step| step.parse::<usize>().ok().filter(|n| *n > 0))
        .collect();
    match steps {
        Some(steps) if !steps.is_empty() && steps.len() <= MAX_DEPTH => Ok(steps),
        _ => Err(format!(
            "{id:?} is not a frame id: frame ids are positions from 1 joined by dots, at most {MAX_DEPTH} deep, as servo_frame_list lists them (2, 2.1)"
        )),
    }
}

/// The path of the frame an id names, or why there is none.
pub(crate) fn path_of(doc: &BaseDocument, id: &str) -> Result<Path, String> {
    let steps = parse_id(id)?;
    let missing = || format!("no frame has the id {id} (servo_frame_list lists the page's frames)");
    let mut path = Vec::with_capacity(steps.len());
    for step in steps {
        let element = read_doc_at(doc, &path, |d| frame_elements(d).get(step - 1).copied())
            .flatten()
            .ok_or_else(missing)?;
        path.push(element);
    }
    Ok(path)
}

/// Whether a frame showing `child` has the origin of its parent showing
/// `parent`: the same scheme, host and port; `about:blank` and `srcdoc`
/// documents take their parent's.
pub(crate) fn same_origin(parent: &Url, child: &Url) -> bool {
    if child.scheme() == "about" {
        return true;
    }
    let origin = parent.origin();
    origin.is_tuple() && origin == child.origin()
}

/// Export `frames`.
pub(crate) fn list() -> Vec<FrameInfo> {
    state::with_document(|doc| {
        let mut out = Vec::new();
        collect(doc, None, 1, &mut out);
        out
    })
}

fn collect(doc: &BaseDocument, parent: Option<&str>, depth: usize, out: &mut Vec<FrameInfo>) {
    let parent_url = doc.url().clone();
    for (index, element) in frame_elements(doc).into_iter().enumerate() {
        if out.len() >= MAX_LISTED {
            return;
        }
        let Some(node) = doc.get_node(element) else {
            continue;
        };
        let id = match parent {
            Some(parent) => format!("{parent}.{}", index + 1),
            None => (index + 1).to_string(),
        };
        let name = inspect::attr(node, "name").unwrap_or_default().to_owned();
        match node.subdoc() {
            Some(sub) => {
                let sub = sub.inner();
                out.push(FrameInfo {
                    id: id.clone(),
                    parent: parent.map(str::to_owned),
                    url: sub.url().to_string(),
                    name,
                    title: inspect::title(&sub),
                    loaded: true,
                    same_origin: same_origin(&parent_url, sub.url()),
                });
                if depth < MAX_DEPTH {
                    collect(&sub, Some(&id), depth + 1, out);
                }
            }
            None => {
                let src = inspect::attr(node, "src")
                    .and_then(|src| inspect::base_url(doc).join(src.trim()).ok());
                let same = src.as_ref().is_none_or(|src| same_origin(&parent_url, src));
                out.push(FrameInfo {
                    id,
                    parent: parent.map(str::to_owned),
                    url: src.map_or_else(|| "about:blank".to_owned(), String::from),
                    name,
                    title: String::new(),
                    loaded: false,
                    same_origin: same,
                });
            }
        }
    }
}

/// Export `frame-html`.
pub(crate) fn html(id: &str, max_chars: u32) -> Result<FrameMarkup, String> {
    state::with_document(|doc| {
        // No id: the page's own document.
        let path = if id.is_empty() {
            Vec::new()
        } else {
            path_of(doc, id)?
        };
        read_doc_at(doc, &path, |frame| {
            let html = frame
                .try_root_element()
                .map(|root| serialize::outer_html(frame, root.id))
                .unwrap_or_default();
            let max = usize::try_from(max_chars).unwrap_or(usize::MAX);
            let truncated = html.chars().count() > max;
            FrameMarkup {
                url: frame.url().to_string(),
                html: if truncated {
                    html.chars().take(max).collect()
                } else {
                    html
                },
                truncated,
            }
        })
        .ok_or_else(|| format!("frame {id} has no document (it loaded none)"))
    })
}
