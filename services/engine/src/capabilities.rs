//! The capabilities report (export `capabilities`).
//!
//! Each feature names what implements it and the checks that cover it: pages
//! of the Chromium-golden corpus (`tests/corpus/pages/<name>.html`) and
//! end-to-end tests (`tests/e2e/*.rs`, by function name). The level is derived
//! from those, not declared: a feature without checks is `unverified`, one with
//! checks and known gaps is `partial`, one with checks and no known gaps is
//! `supported`. An end-to-end test
//! (`capabilities_cite_checks_that_exist_are_tagged_and_exercise_them`) fails
//! if a named check does not exist, does not carry a `covers: <feature>` tag,
//! or does not load what exercising the feature takes, so the report cannot
//! claim coverage that is not there.

use crate::bindings::exports::fleet::engine::page::{Capability, Support};

/// One row of the report.
struct Feature {
    name: &'static str,
    /// Whether it is implemented at all.
    implemented: bool,
    /// What does not work (empty: nothing known).
    gaps: &'static str,
    /// What it is, when there are no gaps to report.
    what: &'static str,
    /// Corpus pages and e2e tests that check it.
    checks: &'static [&'static str],
}

const FEATURES: &[Feature] = &[
    Feature {
        name: "dom.traversal-and-mutation",
        implemented: true,
        gaps: "",
        what: "querySelector[All], getElementById, getElementsBy*, children, closest, matches, createElement(NS), append/insertBefore/remove/replaceChildren, cloneNode, importNode/adoptNode, DocumentFragment, templates, innerHTML/outerHTML (html5ever), attributes, classList, dataset, TreeWalker, NodeIterator, Range, named access on window by id, interface objects for instanceof (SVGElement, NodeList, DOMRect, ...)",
        checks: &["dom", "platform"],
    },
    Feature {
        name: "dom.custom-elements",
        implemented: true,
        gaps: "the :defined selector never matches (Blitz), so styles keyed on it do not apply; customized built-ins (`extends`) are not upgraded",
        what: "",
        checks: &["platform"],
    },
    Feature {
        name: "dom.shadow-dom",
        implemented: false,
        gaps: "attachShadow throws NotSupportedError: Blitz has no shadow trees (ShadowRoot exists only for instanceof checks)",
        what: "",
        checks: &[],
    },
    Feature {
        name: "dom.parsing",
        implemented: true,
        gaps: "",
        what: "DOMParser for HTML and XML (parsererror on malformed XML), document.implementation.createHTMLDocument, XMLSerializer, XMLHttpRequest responseXML",
        checks: &["platform"],
    },
    Feature {
        name: "compat.frameworks",
        implemented: true,
        gaps: "",
        what: "published libraries as sites ship them: jQuery 3, React 18, Vue 3 (runtime template compiler), Alpine 3 and Preact 10 with htm over import maps",
        checks: &["frameworks"],
    },
    Feature {
        name: "dom.forms",
        implemented: true,
        gaps: "an option's selectedness is its `selected` attribute, so `defaultSelected` follows it",
        what: "",
        checks: &[
            "forms",
            "editing",
            "forms_submit_by_get_and_post_with_typed_values",
        ],
    },
    Feature {
        name: "dom.style-and-layout",
        implemented: true,
        gaps: "getComputedStyle resolves sizes, margins and paddings from layout and gives Stylo's computed values for the rest; of transforms, only translations move boxes; stylesheets follow the media of their <link>/<style> (a print sheet stays off screen); CSS animations and transitions do not run, but an element with an animationstart listener gets the event once it is rendered with an animation-name; document.styleSheets and element.sheet list each sheet's rules as parsed (read-only: no insertRule or deleteRule)",
        what: "",
        checks: &["layout", "stylesheets", "compat"],
    },
    Feature {
        name: "dom.mutation-observer",
        implemented: true,
        gaps: "records mutations made through script APIs only, without previousSibling",
        what: "",
        checks: &["dom"],
    },
    Feature {
        name: "events.dispatch",
        implemented: true,
        gaps: "",
        what: "capture and bubble phases, once, passive, signal, preventDefault, stopPropagation, on* properties and attributes, Event/CustomEvent/MouseEvent/KeyboardEvent/InputEvent/FocusEvent/SubmitEvent",
        checks: &["events"],
    },
    Feature {
        name: "events.lifecycle",
        implemented: true,
        gaps: "",
        what: "readystatechange, DOMContentLoaded, load, hashchange, popstate, focus/blur",
        checks: &["events", "history"],
    },
    Feature {
        name: "event-loop",
        implemented: true,
        gaps: "the pump does not wait in real time: after an action it runs the timers due within a 1 s quiet period by moving the page's clock (Date, performance.now) ahead to each; timers due later run on a later action or a wait (servo_wait, up to 60 s of page time)",
        what: "",
        checks: &[
            "event-loop",
            "the_event_loop_reports_how_it_settled",
            "timers_an_action_starts_run_in_its_quiet_period_on_the_page_clock",
            "waits_run_the_page_clock_until_an_element_or_text_appears",
        ],
    },
    Feature {
        name: "scripts.classic",
        implemented: true,
        gaps: "the document is parsed whole before its scripts run: a blocking script sees only what precedes it (the rest is detached while it runs); document.write during parsing writes at the script, but after the load it appends to <body> instead of replacing the document; RegExp's legacy statics ($1-$9, lastMatch, ...) are kept as in browsers",
        what: "",
        checks: &["scripts", "compat"],
    },
    Feature {
        name: "scripts.modules",
        implemented: true,
        gaps: "",
        what: "type=module scripts (deferred, async, inline, inserted), static and dynamic import, import maps, import.meta.url, top-level await, JSON modules, CORS and MIME checks, nomodule",
        checks: &["modules", "scripts"],
    },
    Feature {
        name: "net.fetch",
        implemented: true,
        gaps: "bodies arrive whole (no streaming)",
        what: "",
        checks: &["network", "fetch_follows_same_origin_and_cors_rules"],
    },
    Feature {
        name: "net.xhr",
        implemented: true,
        gaps: "responseXML and document response types are null",
        what: "",
        checks: &["network"],
    },
    Feature {
        name: "net.cookies",
        implemented: true,
        gaps: "",
        what: "host-side cookie jar per session; HttpOnly cookies sent with requests and never visible to scripts; document.cookie read and write",
        checks: &[
            "network",
            "document_cookie_sees_script_cookies_but_never_httponly_ones",
            "an_httponly_login_cookie_is_kept_by_the_host_and_survives_a_restore",
        ],
    },
    Feature {
        name: "storage.web-storage",
        implemented: true,
        gaps: "",
        what: "localStorage and sessionStorage per origin, kept in snapshots",
        checks: &[
            "storage",
            "a_session_whose_route_is_lost_restores_its_storage_from_postgres",
        ],
    },
    Feature {
        name: "storage.indexeddb",
        implemented: true,
        gaps: "",
        what: "open, upgrade, versionchange and blocked; object stores (keyPath, autoIncrement, renames) and indexes (unique, multiEntry, renames); readwrite and readonly transactions with complete, error and abort; add, put, get, getAll, count, delete, clear, key ranges, cursors; kept in snapshots",
        checks: &[
            "storage",
            "indexeddb_scroll_and_snapshot_parts_behave_in_one_engine_and_survive_restore",
        ],
    },
    Feature {
        name: "navigation.location-and-history",
        implemented: true,
        gaps: "going back to a POST result loads it with GET",
        what: "",
        checks: &["history", "links_forms_and_history_navigate_the_tab"],
    },
    Feature {
        name: "navigation.forms",
        implemented: true,
        gaps: "",
        what: "GET and POST submission, application/x-www-form-urlencoded, multipart/form-data and text/plain, implicit submission with Enter, validation of required fields",
        checks: &["forms_submit_by_get_and_post_with_typed_values"],
    },
    Feature {
        name: "navigation.new-windows",
        implemented: true,
        gaps: "one tab per session: target=_blank links and window.open load in the same tab; window.open returns null",
        what: "",
        checks: &["links_forms_and_history_navigate_the_tab"],
    },
    Feature {
        name: "dialogs",
        implemented: true,
        gaps: "",
        what: "alert/confirm/prompt answered by the session's dialog policy and reported",
        checks: &["dialogs_follow_the_session_policy_and_are_reported"],
    },
    Feature {
        name: "input.click",
        implemented: true,
        gaps: "",
        what: "by viewport point (hit testing), CSS selector, visible text or accessibility ref; mousedown/mouseup/click, focus, default actions",
        checks: &["clicks_types_and_presses_keys_like_a_user"],
    },
    Feature {
        name: "input.hover",
        implemented: true,
        gaps: "CSS :hover does not match the hovered element",
        what: "by point, selector, visible text or ref: pointer and mouse over, enter and move events, and out and leave on the element hovered before",
        checks: &["hovering_opens_a_hover_menu_and_fires_enter_and_leave_in_order"],
    },
    Feature {
        name: "input.keyboard",
        implemented: true,
        gaps: "a click puts the caret at the end of a field's text, not where the click lands; contenteditable elements have no caret (typing appends)",
        what: "",
        checks: &[
            "clicks_types_and_presses_keys_like_a_user",
            "typing_edits_at_the_caret_like_a_user",
        ],
    },
    Feature {
        name: "input.scroll",
        implemented: true,
        gaps: "",
        what: "wheel event (a cancelled wheel scrolls nothing), then the element's box, its nearest scrollable ancestor or the page, clamped at their ends, with scroll events",
        checks: &["scrolling_moves_the_page_or_the_targeted_box_and_fires_wheel_then_scroll"],
    },
    Feature {
        name: "output.accessibility-tree",
        implemented: true,
        gaps: "",
        what: "roles, names and states with element refs accepted by input actions, capped with a truncation marker",
        checks: &["accessibility_tree_refs_drive_input"],
    },
    Feature {
        name: "output.readable",
        implemented: true,
        gaps: "",
        what: "the main content with navigation, sidebars, footers, comments, link lists and banners left out (reader-mode scoring), with headline, byline, date, site name and excerpt",
        checks: &["navigate_results_carry_the_main_content_without_the_page_chrome"],
    },
    Feature {
        name: "output.text",
        implemented: true,
        gaps: "",
        what: "title, innerText-like visible text (text-transform and MathML's italic identifiers applied), links, form fields",
        checks: &[
            "layout",
            "text",
            "loads_a_fixture_page_evaluates_javascript_and_screenshots_its_text",
        ],
    },
    Feature {
        name: "render.screenshot",
        implemented: true,
        gaps: "an open <select>'s list is never drawn; full-page captures stop at 16,384 px; form controls are drawn with the page's font size and Blitz's sizes (Chromium's are 13.333px controls), a number field as a flat box, a disabled field not greyed",
        what: "",
        checks: &[
            "corpus_page_screenshots_match_chromiums_block_by_block",
            "a_password_is_painted_as_bullets_and_keeps_its_value_and_caret",
            "loads_a_fixture_page_evaluates_javascript_and_screenshots_its_text",
            "a_closed_select_paints_its_selected_option_as_wide_as_its_widest",
            "indexeddb_scroll_and_snapshot_parts_behave_in_one_engine_and_survive_restore",
            "links_forms_and_history_navigate_the_tab",
        ],
    },
    Feature {
        name: "render.images",
        implemented: true,
        gaps: "SVG <text> has no fonts to draw with: usvg reads only system fonts, and the sandbox has none",
        what: "",
        checks: &["images_in_every_format_are_decoded_and_painted"],
    },
    Feature {
        name: "render.fonts",
        implemented: true,
        gaps: "",
        what: "bundled Liberation fonts, web fonts (@font-face in WOFF, WOFF2, TrueType; a font that fails to load falls back) and fonts registered per session",
        checks: &[
            "web_fonts_in_woff_and_woff2_are_fetched_and_used",
            "a_registered_font_is_used_and_survives_a_restore",
        ],
    },
    Feature {
        name: "apis.encoding-crypto-url",
        implemented: true,
        gaps: "",
        what: "URL, URLSearchParams, TextEncoder/TextDecoder, atob/btoa, structuredClone, crypto.getRandomValues/randomUUID, performance.now",
        checks: &["encoding"],
    },
    Feature {
        name: "apis.intl",
        implemented: true,
        gaps: "English (en-US) data for every locale, but for NumberFormat's separators; dates and times in UTC (the guest has no time zone database)",
        what: "",
        checks: &["platform"],
    },
    Feature {
        name: "apis.messaging-files-streams",
        implemented: true,
        gaps: "",
        what: "MessageChannel, BroadcastChannel, FileReader, ReadableStream (response bodies, readers, async iteration), CSS.supports (parsed by Stylo)",
        checks: &["platform"],
    },
    Feature {
        name: "net.websocket-eventsource",
        implemented: false,
        gaps: "WebSocket and EventSource are not defined: the host's network import makes whole request/response exchanges only",
        what: "",
        checks: &[],
    },
    Feature {
        name: "workers",
        implemented: true,
        gaps: "dedicated workers run classic scripts in a realm of their own but on the tab's one thread: their tasks take turns with the page's, within the same time budgets; messages cross as JSON (no Map, Set, typed arrays or transfer lists); module workers, SharedWorker and service workers are not defined",
        what: "",
        checks: &[
            "workers",
            "a_worker_runs_in_its_own_realm_and_loads_relative_to_its_script",
        ],
    },
    Feature {
        name: "frames",
        implemented: true,
        gaps: "iframes (src and srcdoc) load, paint and are read into the summary's frames. A same-origin frame's classic scripts run at load in a realm of its own, before the page's load event; the page reaches its window (contentWindow, frames[i]) and live document, and its parent, top and frameElement lead back. Its module scripts do not run; its timers run while it loads, while an evaluation in it awaits, within the quiet period after each of the page's input actions and traversals, and through the time a wait lets pass (a wait for a selector or text watches the page only); its navigations and history entries are ignored; input goes to the page, not into frames; a restore loads the page and its frames again (their scripts run again), so what was done in a frame since its load is not restored. Frames of another origin are static documents, which an agent can still evaluate in (servo_frame_evaluate)",
        what: "",
        checks: &[
            "frames_are_read_as_their_own_documents",
            "a_srcdoc_frames_scripts_run_and_its_message_reaches_the_page",
            "same_origin_frames_run_their_scripts_before_the_pages_load",
            "frame_tools_list_frames_by_id_and_evaluate_and_read_one",
            "frame_tools_refuse_ids_that_name_no_frame",
            "natives",
        ],
    },
    Feature {
        name: "canvas",
        implemented: true,
        gaps: "getContext('2d') keeps the context's state (styles, transforms stack, line dash, text metrics from the font size) but draws nothing: a screenshot shows the canvas empty and getImageData reads transparent pixels; no WebGL",
        what: "",
        checks: &["natives"],
    },
    Feature {
        name: "media",
        implemented: false,
        gaps: "no audio or video playback (the elements exist, with their attributes)",
        what: "",
        checks: &[],
    },
    Feature {
        name: "compat.feature-detection",
        implemented: true,
        gaps: "built-ins look as in Chromium (Function.prototype.toString prints [native code]; WebIDL names, lengths and property descriptors; members on their interfaces' prototypes; Symbol.toStringTag), except that NodeList and HTMLCollection are Array subclasses (Array.isArray is true, length is an array's own property)",
        what: "",
        checks: &["natives"],
    },
];

/// The report, one entry per feature.
pub(crate) fn report() -> Vec<Capability> {
    FEATURES
        .iter()
        .map(|f| {
            let (support, reason) = if !f.implemented {
                (Support::Unsupported, f.gaps.to_owned())
            } else if f.checks.is_empty() {
                (
                    Support::Unverified,
                    format!("implemented, not covered by tests: {}", f.what),
                )
            } else if !f.gaps.is_empty() {
                (
                    Support::Partial,
                    format!("{} (checked by: {})", f.gaps, f.checks.join(", ")),
                )
            } else {
                (
                    Support::Supported,
                    format!("{} (checked by: {})", f.what, f.checks.join(", ")),
                )
            };
            Capability {
                name: f.name.to_owned(),
                support,
                reason,
            }
        })
        .collect()
}
