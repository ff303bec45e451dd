//! The conversions between the worker protocol (`fleet_proto`) and the engine's
//! WIT types: what an action asks the engine for, and how the engine's answers
//! read to the agent. [`crate::actions`] runs actions; this module only says how
//! one side's types become the other's.
//!
//! The engine's types are generated into this crate by wasmtime's bindgen
//! ([`crate::host`]), so each conversion can be a `From` or `TryFrom` impl on
//! one side or the other. A proto message the engine cannot use is refused with
//! the [`Failure`] the agent sees, never passed on half-read.

use fleet_proto::v1::{self as pb, ErrorCode};

use crate::failure::Failure;
use crate::host::{
    Capability, ConsoleEntry, Dialog, DialogPolicy, Field, Frame, FrameInfo, Link, Readable,
    Scroll, SelectOption, Settle, Source, Summary, Support, Target, Traversal, TypeText, Viewport,
};

impl From<Link> for pb::Link {
    fn from(l: Link) -> Self {
        Self {
            text: l.text,
            href: l.href,
        }
    }
}

impl From<Field> for pb::Field {
    fn from(f: Field) -> Self {
        Self {
            r#ref: f.ref_,
            kind: f.kind,
            name: f.name,
            label: f.label,
            value: f.value,
            checked: f.checked,
        }
    }
}

impl From<Dialog> for pb::Dialog {
    fn from(d: Dialog) -> Self {
        Self {
            kind: d.kind,
            message: d.message,
            accepted: d.accepted,
            answer: d.answer,
        }
    }
}

impl From<ConsoleEntry> for pb::ConsoleEntry {
    fn from(c: ConsoleEntry) -> Self {
        Self {
            level: c.level,
            text: c.text,
        }
    }
}

impl From<Frame> for pb::Frame {
    fn from(f: Frame) -> Self {
        Self {
            url: f.url,
            title: f.title,
            text: f.text,
            links: f.links.into_iter().map(Into::into).collect(),
        }
    }
}

impl From<FrameInfo> for pb::FrameInfo {
    fn from(f: FrameInfo) -> Self {
        Self {
            id: f.id,
            parent_id: f.parent.unwrap_or_default(),
            url: f.url,
            name: f.name,
            title: f.title,
            loaded: f.loaded,
            same_origin: f.same_origin,
        }
    }
}

impl From<Readable> for pb::Readable {
    fn from(r: Readable) -> Self {
        Self {
            title: r.title,
            byline: r.byline,
            published: r.published,
            site_name: r.site_name,
            excerpt: r.excerpt,
            content: r.content,
        }
    }
}

/// The protocol carries how a page settled as a word, so that a new way of
/// settling is not a breaking change to the message.
impl From<Settle> for String {
    fn from(s: Settle) -> Self {
        match s {
            Settle::Settled => "settled",
            Settle::Quiet => "quiet",
            Settle::Budget => "budget",
        }
        .to_owned()
    }
}

impl From<Summary> for pb::Page {
    fn from(s: Summary) -> Self {
        Self {
            url: s.url,
            title: s.title,
            text: s.text,
            links: s.links.into_iter().map(Into::into).collect(),
            load_error: s.load_error,
            fields: s.fields.into_iter().map(Into::into).collect(),
            settle: s.settle.into(),
            dialogs: s.dialogs.into_iter().map(Into::into).collect(),
            console: s.console.into_iter().map(Into::into).collect(),
            frames: s.frames.into_iter().map(Into::into).collect(),
            readable: Some(s.readable.into()),
        }
    }
}

/// Support is a word in the protocol, as settling is (see `From<Settle>`).
impl From<Support> for String {
    fn from(s: Support) -> Self {
        match s {
            Support::Supported => "supported",
            Support::Partial => "partial",
            Support::Unsupported => "unsupported",
            Support::Unverified => "unverified",
        }
        .to_owned()
    }
}

impl From<Capability> for pb::Capability {
    fn from(c: Capability) -> Self {
        Self {
            name: c.name,
            support: c.support.into(),
            reason: c.reason,
        }
    }
}

/// An input target; the target an action must have and lacks is the caller's
/// mistake.
impl TryFrom<Option<pb::Target>> for Target {
    type Error = Failure;

    fn try_from(t: Option<pb::Target>) -> Result<Self, Failure> {
        match t.and_then(|t| t.kind) {
            Some(pb::target::Kind::Selector(s)) => Ok(Self::Selector(s)),
            Some(pb::target::Kind::Text(s)) => Ok(Self::Text(s)),
            Some(pb::target::Kind::Ref(s)) => Ok(Self::Ref(s)),
            Some(pb::target::Kind::Point(p)) => Ok(Self::Point((p.x, p.y))),
            None => Err(Failure::new(
                ErrorCode::InvalidArgument,
                "the action needs a target: selector, text, ref or point",
            )),
        }
    }
}

/// A target that is present but names nothing is refused as a missing one is.
impl TryFrom<pb::Target> for Target {
    type Error = Failure;

    fn try_from(t: pb::Target) -> Result<Self, Failure> {
        Self::try_from(Some(t))
    }
}

impl TryFrom<pb::Type> for TypeText {
    type Error = Failure;

    fn try_from(typing: pb::Type) -> Result<Self, Failure> {
        Ok(Self {
            target: typing.target.map(Target::try_from).transpose()?,
            text: typing.text,
            clear: typing.clear,
        })
    }
}

impl TryFrom<pb::Scroll> for Scroll {
    type Error = Failure;

    fn try_from(scroll: pb::Scroll) -> Result<Self, Failure> {
        Ok(Self {
            target: scroll.target.map(Target::try_from).transpose()?,
            dx: scroll.dx,
            dy: scroll.dy,
        })
    }
}

impl TryFrom<pb::SelectOption> for SelectOption {
    type Error = Failure;

    fn try_from(select: pb::SelectOption) -> Result<Self, Failure> {
        Ok(Self {
            target: Target::try_from(select.target)?,
            value: select.value,
        })
    }
}

impl TryFrom<pb::Navigate> for Source {
    type Error = Failure;

    fn try_from(nav: pb::Navigate) -> Result<Self, Failure> {
        match nav.target {
            Some(pb::navigate::Target::Url(u)) => Ok(Self::Url(u)),
            Some(pb::navigate::Target::Html(h)) => Ok(Self::Html(h)),
            None => Err(Failure::new(
                ErrorCode::InvalidArgument,
                "navigate needs url or html",
            )),
        }
    }
}

/// A step the protocol does not know (or left unspecified) is refused: the
/// engine has no default direction to move in.
impl TryFrom<pb::History> for Traversal {
    type Error = Failure;

    fn try_from(history: pb::History) -> Result<Self, Failure> {
        match pb::history::Step::try_from(history.step) {
            Ok(pb::history::Step::Back) => Ok(Self::Back),
            Ok(pb::history::Step::Forward) => Ok(Self::Forward),
            Ok(pb::history::Step::Reload) => Ok(Self::Reload),
            _ => Err(Failure::new(
                ErrorCode::InvalidArgument,
                "history needs a step: back, forward or reload",
            )),
        }
    }
}

impl From<pb::DialogPolicy> for DialogPolicy {
    fn from(policy: pb::DialogPolicy) -> Self {
        Self {
            accept: policy.accept,
            prompt_text: policy.prompt_text,
        }
    }
}

impl From<pb::Viewport> for Viewport {
    fn from(v: pb::Viewport) -> Self {
        Self {
            width: v.width,
            height: v.height,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(text: &str, href: &str) -> Link {
        Link {
            text: text.into(),
            href: href.into(),
        }
    }

    fn summary() -> Summary {
        Summary {
            url: "https://a.example/".into(),
            title: "A".into(),
            text: "Hello".into(),
            links: vec![link("next", "https://a.example/2")],
            load_error: None,
            fields: vec![Field {
                ref_: "e1".into(),
                kind: "text".into(),
                name: "q".into(),
                label: "Search".into(),
                value: "cats".into(),
                checked: false,
            }],
            settle: Settle::Quiet,
            dialogs: vec![Dialog {
                kind: "prompt".into(),
                message: "Name?".into(),
                accepted: true,
                answer: Some("Ada".into()),
            }],
            console: vec![ConsoleEntry {
                level: "error".into(),
                text: "Uncaught boom".into(),
            }],
            readable: Readable {
                title: "A".into(),
                byline: Some("Ada".into()),
                published: None,
                site_name: Some("Example".into()),
                excerpt: "Hello".into(),
                content: "<p>Hello</p>".into(),
            },
            frames: vec![Frame {
                url: "https://b.example/".into(),
                title: "B".into(),
                text: "inner".into(),
                links: vec![link("up", "https://a.example/")],
            }],
        }
    }

    fn target(kind: pb::target::Kind) -> pb::Target {
        pb::Target { kind: Some(kind) }
    }

    fn invalid_argument(result: Result<impl std::fmt::Debug, Failure>) -> String {
        let failure = result.expect_err("the conversion should have been refused");
        assert_eq!(failure.code, ErrorCode::InvalidArgument);
        failure.message
    }

    #[test]
    fn a_summary_becomes_a_page_with_every_part_of_it() {
        let page = pb::Page::from(summary());
        assert_eq!(
            page,
            pb::Page {
                url: "https://a.example/".into(),
                title: "A".into(),
                text: "Hello".into(),
                links: vec![pb::Link {
                    text: "next".into(),
                    href: "https://a.example/2".into(),
                }],
                load_error: None,
                fields: vec![pb::Field {
                    r#ref: "e1".into(),
                    kind: "text".into(),
                    name: "q".into(),
                    label: "Search".into(),
                    value: "cats".into(),
                    checked: false,
                }],
                settle: "quiet".into(),
                dialogs: vec![pb::Dialog {
                    kind: "prompt".into(),
                    message: "Name?".into(),
                    accepted: true,
                    answer: Some("Ada".into()),
                }],
                console: vec![pb::ConsoleEntry {
                    level: "error".into(),
                    text: "Uncaught boom".into(),
                }],
                frames: vec![pb::Frame {
                    url: "https://b.example/".into(),
                    title: "B".into(),
                    text: "inner".into(),
                    links: vec![pb::Link {
                        text: "up".into(),
                        href: "https://a.example/".into(),
                    }],
                }],
                readable: Some(pb::Readable {
                    title: "A".into(),
                    byline: Some("Ada".into()),
                    published: None,
                    site_name: Some("Example".into()),
                    excerpt: "Hello".into(),
                    content: "<p>Hello</p>".into(),
                }),
            }
        );
    }

    #[test]
    fn each_way_of_settling_has_its_protocol_word() {
        let words: Vec<String> = [Settle::Settled, Settle::Quiet, Settle::Budget]
            .into_iter()
            .map(String::from)
            .collect();
        assert_eq!(words, ["settled", "quiet", "budget"]);
    }

    #[test]
    fn a_capability_carries_its_support_as_a_protocol_word() {
        let words: Vec<String> = [
            Support::Supported,
            Support::Partial,
            Support::Unsupported,
            Support::Unverified,
        ]
        .into_iter()
        .map(|support| {
            pb::Capability::from(Capability {
                name: "fetch".into(),
                support,
                reason: "why".into(),
            })
            .support
        })
        .collect();
        assert_eq!(words, ["supported", "partial", "unsupported", "unverified"]);
    }

    #[test]
    fn every_kind_of_target_reaches_the_engine_as_itself() {
        let cases = [
            (
                pb::target::Kind::Selector("#go".into()),
                Target::Selector("#go".into()),
            ),
            (
                pb::target::Kind::Text("Go".into()),
                Target::Text("Go".into()),
            ),
            (pb::target::Kind::Ref("e7".into()), Target::Ref("e7".into())),
            (
                pb::target::Kind::Point(pb::Point { x: 1.5, y: 2.0 }),
                Target::Point((1.5, 2.0)),
            ),
        ];
        for (kind, want) in cases {
            assert_eq!(Target::try_from(target(kind)).unwrap(), want);
        }
    }

    #[test]
    fn a_missing_target_is_an_invalid_argument() {
        let message = invalid_argument(Target::try_from(None));
        assert_eq!(
            message,
            "the action needs a target: selector, text, ref or point"
        );
        invalid_argument(Target::try_from(pb::Target { kind: None }));
    }

    #[test]
    fn typing_and_scrolling_may_go_without_a_target_but_not_with_an_empty_one() {
        let typed = TypeText::try_from(pb::Type {
            target: None,
            text: "hi".into(),
            clear: true,
        })
        .unwrap();
        assert_eq!(
            typed,
            TypeText {
                target: None,
                text: "hi".into(),
                clear: true,
            }
        );
        invalid_argument(TypeText::try_from(pb::Type {
            target: Some(pb::Target { kind: None }),
            text: "hi".into(),
            clear: false,
        }));

        let scrolled = Scroll::try_from(pb::Scroll {
            target: Some(target(pb::target::Kind::Ref("e2".into()))),
            dx: 0.0,
            dy: 40.0,
        })
        .unwrap();
        assert_eq!(
            scrolled,
            Scroll {
                target: Some(Target::Ref("e2".into())),
                dx: 0.0,
                dy: 40.0,
            }
        );
        invalid_argument(Scroll::try_from(pb::Scroll {
            target: Some(pb::Target { kind: None }),
            dx: 0.0,
            dy: 1.0,
        }));
    }

    #[test]
    fn selecting_an_option_needs_a_target() {
        let selected = SelectOption::try_from(pb::SelectOption {
            target: Some(target(pb::target::Kind::Selector("select".into()))),
            value: "b".into(),
        })
        .unwrap();
        assert_eq!(
            selected,
            SelectOption {
                target: Target::Selector("select".into()),
                value: "b".into(),
            }
        );
        invalid_argument(SelectOption::try_from(pb::SelectOption {
            target: None,
            value: "b".into(),
        }));
    }

    #[test]
    fn a_navigation_loads_a_url_or_html_and_needs_one_of_them() {
        let url = Source::try_from(pb::Navigate {
            target: Some(pb::navigate::Target::Url("https://a.example/".into())),
        });
        assert_eq!(url.unwrap(), Source::Url("https://a.example/".into()));
        let html = Source::try_from(pb::Navigate {
            target: Some(pb::navigate::Target::Html("<p>hi".into())),
        });
        assert_eq!(html.unwrap(), Source::Html("<p>hi".into()));
        let message = invalid_argument(Source::try_from(pb::Navigate { target: None }));
        assert_eq!(message, "navigate needs url or html");
    }

    #[test]
    fn a_history_step_must_be_back_forward_or_reload() {
        let step = |s: i32| Traversal::try_from(pb::History { step: s });
        assert_eq!(
            step(pb::history::Step::Back as i32).unwrap(),
            Traversal::Back
        );
        assert_eq!(
            step(pb::history::Step::Forward as i32).unwrap(),
            Traversal::Forward
        );
        assert_eq!(
            step(pb::history::Step::Reload as i32).unwrap(),
            Traversal::Reload
        );
        let message = invalid_argument(step(pb::history::Step::Unspecified as i32));
        assert_eq!(message, "history needs a step: back, forward or reload");
        invalid_argument(step(99));
    }

    #[test]
    fn a_dialog_policy_and_a_viewport_keep_their_values() {
        let policy = DialogPolicy::from(pb::DialogPolicy {
            accept: true,
            prompt_text: Some("yes".into()),
        });
        assert_eq!(
            policy,
            DialogPolicy {
                accept: true,
                prompt_text: Some("yes".into()),
            }
        );
        let viewport = Viewport::from(pb::Viewport {
            width: 800,
            height: 600,
        });
        assert_eq!(
            viewport,
            Viewport {
                width: 800,
                height: 600,
            }
        );
    }
}
