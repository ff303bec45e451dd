//! One action on a tab: the proto action in, the engine call, the proto output
//! back (`execute`), with the limits an action's arguments are held to. The
//! conversions between the two sides' types are in [`crate::convert`].
//! Sessions decide *whether* and *where* a call runs; this module only *runs* it.

use std::time::Duration;

use fleet_proto::v1::{self as pb, ActionOutput, ErrorCode, action::Kind, action_output};
use fleet_proto::{MAX_FONT_BYTES, MAX_FONTS_PER_SESSION, MAX_FRAME_HTML_CHARS};

use crate::failure::Failure;
use crate::host::{
    DialogPolicy, Scroll, SelectOption, Source, Tab, Target, Traversal, TypeText, UserInput,
    WaitFor,
};

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
    let page = page_ref(output)?;
    Some((page.url.clone(), page.title.clone()))
}

/// The page an action's output carries, if any.
pub(crate) fn page_ref(output: &ActionOutput) -> Option<&pb::Page> {
    Some(match output.kind.as_ref()? {
        action_output::Kind::Page(p) => p,
        action_output::Kind::Evaluate(e) => e.page.as_ref()?,
        action_output::Kind::Screenshot(s) => s.page.as_ref()?,
        action_output::Kind::Accessibility(a) => a.page.as_ref()?,
        action_output::Kind::Frames(f) => f.page.as_ref()?,
        action_output::Kind::Status(_)
        | action_output::Kind::Closed(_)
        | action_output::Kind::Font(_)
        | action_output::Kind::Capabilities(_)
        | action_output::Kind::Http(_)
        | action_output::Kind::WebSearch(_)
        | action_output::Kind::Cookies(_)
        | action_output::Kind::Storage(_)
        | action_output::Kind::NetworkLog(_)
        | action_output::Kind::ConsoleMessages(_)
        | action_output::Kind::Found(_)
        | action_output::Kind::Recording(_)
        | action_output::Kind::Downloads(_)
        | action_output::Kind::LiveView(_)
        | action_output::Kind::CdpEndpoint(_) => return None,
    })
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
        Ok(summary) => Ok(action_output::Kind::Page(summary.into())),
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
            let src = Source::try_from(nav)?;
            action_output::Kind::Page(tab.load(src, budget).await?.into())
        }
        Kind::Inspect(_) => action_output::Kind::Page(tab.inspect(budget).await?.into()),
        Kind::Evaluate(ev) => {
            // The outer error is the engine's (a trap, the deadline), the inner
            // one the script's.
            let value_json = tab.evaluate(&ev.script, budget).await??;
            action_output::Kind::Evaluate(pb::EvaluateResult {
                value_json,
                page: Some(tab.inspect(budget).await?.into()),
            })
        }
        Kind::Screenshot(shot) => match tab.screenshot(shot.full_page, budget).await? {
            Ok(png) => {
                let (width, height) = png_size(&png);
                action_output::Kind::Screenshot(pb::ScreenshotResult {
                    png,
                    width,
                    height,
                    page: Some(tab.inspect(budget).await?.into()),
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
                    font_id: format!("font:{:06}", tab.fonts().len()),
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
            let action = UserInput::Click(Target::try_from(click.target)?);
            input(tab, &action, budget).await?
        }
        Kind::Type(typing) => {
            let action = UserInput::TypeText(TypeText::try_from(typing)?);
            input(tab, &action, budget).await?
        }
        Kind::Find(find) => {
            let target = Target::try_from(find.target)?;
            let f = tab
                .find(&target, budget)
                .await?
                .map_err(|reason| Failure::new(ErrorCode::InvalidArgument, reason))?;
            action_output::Kind::Found(pb::FoundElement {
                r#ref: f.reference,
                selector: f.selector,
                tag: f.tag,
                text: f.text,
                x: f.x,
                y: f.y,
                width: f.width,
                height: f.height,
            })
        }
        Kind::Frames(frames) => action_output::Kind::Frames(run_frames(tab, frames, budget).await?),
        Kind::Hover(hover) => {
            let action = UserInput::Hover(Target::try_from(hover.target)?);
            input(tab, &action, budget).await?
        }
        Kind::PressKey(press) => input(tab, &UserInput::Press(press.key), budget).await?,
        Kind::Scroll(scroll) => {
            let action = UserInput::Scroll(Scroll::try_from(scroll)?);
            input(tab, &action, budget).await?
        }
        Kind::SelectOption(select) => {
            let action = UserInput::Select(SelectOption::try_from(select)?);
            input(tab, &action, budget).await?
        }
        Kind::History(history) => {
            let step = Traversal::try_from(history)?;
            action_output::Kind::Page(tab.traverse(step, budget).await?.into())
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
                page: Some(tab.inspect(budget).await?.into()),
            })
        }
        Kind::Capabilities(_) => {
            let report = tab.capabilities(budget).await?;
            action_output::Kind::Capabilities(pb::CapabilitiesResult {
                capabilities: report.into_iter().map(Into::into).collect(),
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
            // The outer error is the engine's, the inner one why the wait
            // ended without its condition.
            action_output::Kind::Page(tab.wait(&until, budget).await??.into())
        }
        Kind::DialogPolicy(policy) => {
            let policy = DialogPolicy::from(policy);
            tab.set_dialog_policy(&policy, budget).await?;
            action_output::Kind::Page(tab.inspect(budget).await?.into())
        }
        Kind::Status(_) | Kind::Close(_) => {
            return Err(Failure::new(
                ErrorCode::InvalidArgument,
                "session status and close are answered by the gateway, not a worker",
            ));
        }
        Kind::Cookies(c) => {
            let op = c.op.ok_or_else(|| {
                Failure::new(
                    ErrorCode::InvalidArgument,
                    "the cookie action names no operation",
                )
            })?;
            action_output::Kind::Cookies(crate::cookies::run(tab.cookies_mut(), op)?)
        }
        Kind::Storage(s) => {
            let op = s.op.ok_or_else(|| {
                Failure::new(
                    ErrorCode::InvalidArgument,
                    "the storage action names no operation",
                )
            })?;
            action_output::Kind::Storage(crate::web_storage::run(tab, op, budget).await?)
        }
        Kind::ConsoleMessages(c) => action_output::Kind::ConsoleMessages(
            tab.console_log()
                .read(usize::try_from(c.limit).unwrap_or(usize::MAX)),
        ),
        Kind::NetworkLog(n) => action_output::Kind::NetworkLog(
            tab.network_log()
                .read(usize::try_from(n.limit).unwrap_or(usize::MAX)),
        ),
        Kind::Http(_) | Kind::WebSearch(_) => {
            return Err(Failure::new(
                ErrorCode::InvalidArgument,
                "HTTP requests and web searches belong to no session; they are sent with Worker/Http",
            ));
        }
        Kind::Recording(_) => {
            return Err(Failure::new(
                ErrorCode::Internal,
                "a recording action reached the engine's actions",
            ));
        }
        Kind::Downloads(_) => {
            return Err(Failure::new(
                ErrorCode::InvalidArgument,
                "downloaded files belong to no worker; the gateway answers for them",
            ));
        }
        Kind::LiveView(_) | Kind::CdpEndpoint(_) => {
            return Err(Failure::new(
                ErrorCode::InvalidArgument,
                "live views and DevTools endpoints are the gateway's; it answers for them",
            ));
        }
    };
    let output = ActionOutput { kind: Some(output) };
    if let Some(page) = page_ref(&output) {
        tab.console_log().extend(&page.console);
    }
    Ok(output)
}

/// A frames action: the list, an evaluation in a frame's realm, or a frame's
/// HTML.
async fn run_frames(
    tab: &mut Tab,
    frames: pb::Frames,
    budget: Duration,
) -> Result<pb::FramesResult, Failure> {
    let op = frames.op.ok_or_else(|| {
        Failure::new(
            ErrorCode::InvalidArgument,
            "the frames action names no operation",
        )
    })?;
    Ok(match op {
        pb::frames::Op::List(_) => pb::FramesResult {
            frames: tab
                .frames(budget)
                .await?
                .into_iter()
                .map(Into::into)
                .collect(),
            ..Default::default()
        },
        pb::frames::Op::Evaluate(e) => {
            // The outer error is the engine's, the inner one the script's
            // (or no such frame).
            let value_json = tab.frame_evaluate(&e.frame_id, &e.script, budget).await??;
            pb::FramesResult {
                frame_id: e.frame_id,
                value_json,
                page: Some(tab.inspect(budget).await?.into()),
                ..Default::default()
            }
        }
        pb::frames::Op::Html(h) => {
            let max_chars = match h.max_chars {
                0 => MAX_FRAME_HTML_CHARS,
                n => n.min(MAX_FRAME_HTML_CHARS),
            };
            let markup = tab
                .frame_html(&h.frame_id, max_chars, budget)
                .await?
                .map_err(|reason| Failure::new(ErrorCode::InvalidArgument, reason))?;
            pb::FramesResult {
                frame_id: h.frame_id,
                url: markup.url,
                html: markup.html,
                truncated: markup.truncated,
                ..Default::default()
            }
        }
    })
}

/// Adds the entries the worker answers for itself (recordings, downloads:
/// they need the object store, not the engine) to a capability report the
/// engine made.
pub(crate) fn with_capabilities(
    mut out: Result<ActionOutput, Failure>,
    entries: impl IntoIterator<Item = pb::Capability>,
) -> Result<ActionOutput, Failure> {
    if let Ok(ActionOutput {
        kind: Some(action_output::Kind::Capabilities(report)),
    }) = &mut out
    {
        report.capabilities.extend(entries);
    }
    out
}
