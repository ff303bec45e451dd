//! One action on a tab: the proto action in, the engine call, the proto output
//! back (`execute`), and the conversions between the two. Sessions decide
//! *whether* and *where* a call runs; this module only *runs* it.

use std::time::Duration;

use fleet_proto::v1::{self as pb, ActionOutput, ErrorCode, action::Kind, action_output};
use fleet_proto::{MAX_FONT_BYTES, MAX_FONTS_PER_SESSION};

use crate::failure::Failure;
use crate::host::{
    DialogPolicy, EvalError, Link, Scroll, SelectOption, Settle, Source, Summary, Support, Tab,
    Target, Traversal, TypeText, UserInput, WaitError, WaitFor,
};

fn links(links: Vec<Link>) -> Vec<pb::Link> {
    links
        .into_iter()
        .map(|l| pb::Link {
            text: l.text,
            href: l.href,
        })
        .collect()
}

fn page(s: Summary) -> pb::Page {
    pb::Page {
        url: s.url,
        title: s.title,
        text: s.text,
        links: links(s.links),
        load_error: s.load_error,
        fields: s
            .fields
            .into_iter()
            .map(|f| pb::Field {
                r#ref: f.ref_,
                kind: f.kind,
                name: f.name,
                label: f.label,
                value: f.value,
                checked: f.checked,
            })
            .collect(),
        settle: match s.settle {
            Settle::Settled => "settled",
            Settle::Quiet => "quiet",
            Settle::Budget => "budget",
        }
        .to_owned(),
        dialogs: s
            .dialogs
            .into_iter()
            .map(|d| pb::Dialog {
                kind: d.kind,
                message: d.message,
                accepted: d.accepted,
                answer: d.answer,
            })
            .collect(),
        console: s
            .console
            .into_iter()
            .map(|c| pb::ConsoleEntry {
                level: c.level,
                text: c.text,
            })
            .collect(),
        frames: s
            .frames
            .into_iter()
            .map(|f| pb::Frame {
                url: f.url,
                title: f.title,
                text: f.text,
                links: links(f.links),
            })
            .collect(),
        readable: Some(pb::Readable {
            title: s.readable.title,
            byline: s.readable.byline,
            published: s.readable.published,
            site_name: s.readable.site_name,
            excerpt: s.readable.excerpt,
            content: s.readable.content,
        }),
    }
}

/// The engine's form of an input target.
fn target(t: Option<pb::Target>) -> Result<Target, Failure> {
    match t.and_then(|t| t.kind) {
        Some(pb::target::Kind::Selector(s)) => Ok(Target::Selector(s)),
        Some(pb::target::Kind::Text(s)) => Ok(Target::Text(s)),
        Some(pb::target::Kind::Ref(s)) => Ok(Target::Ref(s)),
        Some(pb::target::Kind::Point(p)) => Ok(Target::Point((p.x, p.y))),
        None => Err(Failure::new(
            ErrorCode::InvalidArgument,
            "the action needs a target: selector, text, ref or point",
        )),
    }
}

/// Width and height from a PNG's IHDR chunk.
fn png_size(png: &[u8]) -> (u32, u32) {
    let be = |r: std::ops::Range<usize>| {
        png.get(r)
            .and_then(|b| <[u8; 4]>::try_from(b).ok())
            .map_or(0, u32::from_be_bytes)
    };
    (be(16..20), be(20..24))
}

/// The URL and title of the page an action's output carries.
pub(crate) fn page_of(output: &ActionOutput) -> Option<(String, String)> {
    let page = match output.kind.as_ref()? {
        action_output::Kind::Page(p) => p,
        action_output::Kind::Evaluate(e) => e.page.as_ref()?,
        action_output::Kind::Screenshot(s) => s.page.as_ref()?,
        action_output::Kind::Accessibility(a) => a.page.as_ref()?,
        action_output::Kind::Status(_)
        | action_output::Kind::Closed(_)
        | action_output::Kind::Font(_)
        | action_output::Kind::Capabilities(_) => return None,
    };
    Some((page.url.clone(), page.title.clone()))
}

/// Accessibility tree nodes listed when the action names no cap.
const DEFAULT_A11Y_NODES: u32 = 500;
/// Page time a wait for a selector or text allows when the action sets none, ms.
const DEFAULT_WAIT_MS: u32 = 10_000;
/// Most page time one wait may take, ms.
const MAX_WAIT_MS: u32 = 60_000;
/// Most accessibility tree nodes one action may ask for.
const MAX_A11Y_NODES: u32 = 5_000;

/// An input action; a target that matched nothing is the caller's mistake.
async fn input(
    tab: &mut Tab,
    action: &UserInput,
    budget: Duration,
) -> Result<action_output::Kind, Failure> {
    match tab.input(action, budget).await? {
        Ok(summary) => Ok(action_output::Kind::Page(page(summary))),
        Err(reason) => Err(Failure::new(ErrorCode::InvalidArgument, reason)),
    }
}

/// Runs one action on `tab` within `budget`.
pub(crate) async fn execute(
    tab: &mut Tab,
    kind: Kind,
    budget: Duration,
) -> Result<ActionOutput, Failure> {
    let output = match kind {
        Kind::Navigate(nav) => {
            let src = match nav.target {
                Some(pb::navigate::Target::Url(u)) => Source::Url(u),
                Some(pb::navigate::Target::Html(h)) => Source::Html(h),
                None => {
                    return Err(Failure::new(
                        ErrorCode::InvalidArgument,
                        "navigate needs url or html",
                    ));
                }
            };
            action_output::Kind::Page(page(tab.load(src, budget).await?))
        }
        Kind::Inspect(_) => action_output::Kind::Page(page(tab.inspect(budget).await?)),
        Kind::Evaluate(ev) => match tab.evaluate(&ev.script, budget).await? {
            Ok(value_json) => action_output::Kind::Evaluate(pb::EvaluateResult {
                value_json,
                page: Some(page(tab.inspect(budget).await?)),
            }),
            Err(EvalError::Exception(m)) => {
                return Err(Failure::new(
                    ErrorCode::ScriptError,
                    format!("the script threw: {m}"),
                ));
            }
            Err(EvalError::Timeout(m)) => return Err(Failure::new(ErrorCode::Timeout, m)),
            Err(EvalError::Unserializable(m)) => {
                return Err(Failure::new(
                    ErrorCode::ScriptError,
                    format!("the script's value cannot be returned as JSON: {m}"),
                ));
            }
        },
        Kind::Screenshot(shot) => match tab.screenshot(shot.full_page, budget).await? {
            Ok(png) => {
                let (width, height) = png_size(&png);
                action_output::Kind::Screenshot(pb::ScreenshotResult {
                    png,
                    width,
                    height,
                    page: Some(page(tab.inspect(budget).await?)),
                })
            }
            Err(reason) => {
                return Err(Failure::new(
                    ErrorCode::EngineFailed,
                    format!("the screenshot failed: {reason}"),
                ));
            }
        },
        Kind::RegisterFont(font) => {
            if tab.fonts().len() >= MAX_FONTS_PER_SESSION {
                return Err(Failure::new(
                    ErrorCode::InvalidArgument,
                    format!(
                        "the session already has {MAX_FONTS_PER_SESSION} registered fonts, the most one session may have"
                    ),
                ));
            }
            if font.data.is_empty() || font.data.len() > MAX_FONT_BYTES {
                return Err(Failure::new(
                    ErrorCode::InvalidArgument,
                    format!(
                        "the font is {} bytes; it must be 1 to {MAX_FONT_BYTES} bytes",
                        font.data.len()
                    ),
                ));
            }
            match tab.register_font(font.data, budget).await? {
                Ok(families) => action_output::Kind::Font(pb::FontRegistered {
                    families,
                    font_count: u32::try_from(tab.fonts().len()).unwrap_or(u32::MAX),
                }),
                Err(reason) => {
                    return Err(Failure::new(
                        ErrorCode::InvalidArgument,
                        format!("the font was refused: {reason}"),
                    ));
                }
            }
        }
        Kind::Click(click) => {
            let action = UserInput::Click(target(click.target)?);
            input(tab, &action, budget).await?
        }
        Kind::Type(typing) => {
            let action = UserInput::TypeText(TypeText {
                target: typing.target.map(|t| target(Some(t))).transpose()?,
                text: typing.text,
                clear: typing.clear,
            });
            input(tab, &action, budget).await?
        }
        Kind::PressKey(press) => input(tab, &UserInput::Press(press.key), budget).await?,
        Kind::Scroll(scroll) => {
            let action = UserInput::Scroll(Scroll {
                target: scroll.target.map(|t| target(Some(t))).transpose()?,
                dx: scroll.dx,
                dy: scroll.dy,
            });
            input(tab, &action, budget).await?
        }
        Kind::SelectOption(select) => {
            let action = UserInput::Select(SelectOption {
                target: target(select.target)?,
                value: select.value,
            });
            input(tab, &action, budget).await?
        }
        Kind::History(history) => {
            let step = match pb::history::Step::try_from(history.step) {
                Ok(pb::history::Step::Back) => Traversal::Back,
                Ok(pb::history::Step::Forward) => Traversal::Forward,
                Ok(pb::history::Step::Reload) => Traversal::Reload,
                _ => {
                    return Err(Failure::new(
                        ErrorCode::InvalidArgument,
                        "history needs a step: back, forward or reload",
                    ));
                }
            };
            action_output::Kind::Page(page(tab.traverse(step, budget).await?))
        }
        Kind::Accessibility(a11y) => {
            let max_nodes = if a11y.max_nodes == 0 {
                DEFAULT_A11Y_NODES
            } else {
                a11y.max_nodes.min(MAX_A11Y_NODES)
            };
            let tree = tab.accessibility(max_nodes, budget).await?;
            action_output::Kind::Accessibility(pb::AccessibilityResult {
                tree: tree.text,
                nodes: tree.nodes,
                truncated: tree.truncated,
                page: Some(page(tab.inspect(budget).await?)),
            })
        }
        Kind::Capabilities(_) => {
            let report = tab.capabilities(budget).await?;
            action_output::Kind::Capabilities(pb::CapabilitiesResult {
                capabilities: report
                    .into_iter()
                    .map(|c| pb::Capability {
                        name: c.name,
                        support: match c.support {
                            Support::Supported => "supported",
                            Support::Partial => "partial",
                            Support::Unsupported => "unsupported",
                            Support::Unverified => "unverified",
                        }
                        .to_owned(),
                        reason: c.reason,
                    })
                    .collect(),
            })
        }
        Kind::Wait(wait) => {
            let has_condition = wait.selector.is_some() || wait.text.is_some();
            let page_ms = match wait.time_ms {
                0 if has_condition => DEFAULT_WAIT_MS,
                0 => {
                    return Err(Failure::new(
                        ErrorCode::InvalidArgument,
                        "wait needs a selector, a text or a timeMs",
                    ));
                }
                ms => ms.min(MAX_WAIT_MS),
            };
            let until = WaitFor {
                selector: wait.selector,
                text: wait.text,
                page_ms,
            };
            match tab.wait(&until, budget).await? {
                Ok(summary) => action_output::Kind::Page(page(summary)),
                Err(WaitError::InvalidSelector(reason)) => {
                    return Err(Failure::new(ErrorCode::InvalidArgument, reason));
                }
                Err(WaitError::Unmet(reason)) => {
                    return Err(Failure::new(ErrorCode::Timeout, reason));
                }
            }
        }
        Kind::DialogPolicy(policy) => {
            let policy = DialogPolicy {
                accept: policy.accept,
                prompt_text: policy.prompt_text,
            };
            tab.set_dialog_policy(&policy, budget).await?;
            action_output::Kind::Page(page(tab.inspect(budget).await?))
        }
        Kind::Status(_) | Kind::Close(_) => {
            return Err(Failure::new(
                ErrorCode::InvalidArgument,
                "session status and close are answered by the gateway, not a worker",
            ));
        }
    };
    Ok(ActionOutput { kind: Some(output) })
}
