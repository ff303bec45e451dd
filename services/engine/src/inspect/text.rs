//! `innerText`: the walk over the styled tree and the writer that applies
//! its line-break, white-space and `text-transform` rules.

use blitz_dom::node::{ElementData, Node, NodeData};
use blitz_dom::{BaseDocument, NodeId, ns};
use style::computed_values::visibility::T as Visibility;
use style::computed_values::white_space_collapse::T as WhiteSpaceCollapse;
use style::values::computed::Display;
use style::values::specified::box_::DisplayOutside;

use super::transform::{Transform, is_word_char};
use super::{BLOCK_TAGS, attr, collapse_whitespace, element, is_hidden};

/// How white space in text nodes is handled (from CSS `white-space-collapse`).
#[derive(Clone, Copy, PartialEq)]
enum Space {
    /// Runs of white space become one space.
    Collapse,
    /// Everything is kept (`pre`, `pre-wrap`, `break-spaces`).
    Preserve,
    /// Newlines are kept, other runs collapse (`pre-line`).
    PreserveBreaks,
}

/// What an element passes down to its children.
#[derive(Clone, Copy)]
struct Inherited {
    visible: bool,
    space: Space,
    transform: Transform,
}

impl Inherited {
    /// What the element an `innerText` walk starts at has above it.
    const ROOT: Inherited = Inherited {
        visible: true,
        space: Space::Collapse,
        transform: Transform::None,
    };
}

/// Accumulates text with `innerText`'s line-break and white-space rules.
struct TextWriter {
    out: String,
    chars: usize,
    cap: usize,
    pending_space: bool,
    pending_breaks: usize,
    line_has_content: bool,
}

impl TextWriter {
    fn new(cap: usize) -> Self {
        TextWriter {
            out: String::new(),
            chars: 0,
            cap,
            pending_space: false,
            pending_breaks: 0,
            line_has_content: false,
        }
    }

    fn full(&self) -> bool {
        self.chars >= self.cap
    }

    fn push(&mut self, c: char) {
        if self.chars < self.cap {
            self.out.push(c);
            self.chars += 1;
        }
    }

    /// Emit the breaks or space that were waiting for more content.
    fn flush_pending(&mut self) {
        if self.pending_breaks > 0 {
            if !self.out.is_empty() {
                for _ in 0..self.pending_breaks {
                    self.push('\n');
                }
            }
            self.pending_breaks = 0;
            self.line_has_content = false;
        } else if self.pending_space && self.line_has_content {
            self.push(' ');
        }
        self.pending_space = false;
    }

    /// Push a character of content through the `text-transform`.
    fn push_content(&mut self, c: char, transform: Transform) {
        if transform == Transform::None {
            self.push(c);
            return;
        }
        let word_start = !self.out.chars().next_back().is_some_and(is_word_char);
        transform.push(c, word_start, &mut |c| self.push(c));
    }

    /// Push `s` whole, or as much of it as the cap leaves room for.
    fn push_str(&mut self, s: &str) {
        let room = self.cap.saturating_sub(self.chars);
        if room == 0 {
            return;
        }
        // A string of at most `room` bytes has at most `room` characters.
        let taken = if s.len() <= room {
            s
        } else {
            &s[..s.char_indices().nth(room).map_or(s.len(), |(i, _)| i)]
        };
        self.out.push_str(taken);
        self.chars += taken.chars().count();
    }

    /// Collapsed text with no transform, the common case, a word at a time:
    /// the same steps as [`TextWriter::each_char`] takes a character at a
    /// time (a word's later characters find nothing pending), without them.
    fn collapsed_words(&mut self, text: &str) {
        let blank = |c: char| c.is_ascii_whitespace();
        for (i, word) in text.split_ascii_whitespace().enumerate() {
            if i > 0 || text.starts_with(blank) {
                self.pending_space = true;
            }
            self.flush_pending();
            self.push_str(word);
            self.line_has_content = true;
        }
        if text.ends_with(blank) {
            self.pending_space = true;
        }
    }

    fn text(&mut self, text: &str, space: Space, transform: Transform) {
        let transform = transform.for_text(text);
        if space == Space::Collapse && transform == Transform::None {
            self.collapsed_words(text);
        } else {
            self.each_char(text, space, transform);
        }
    }

    /// Text under any white-space rule and transform, a character at a time.
    fn each_char(&mut self, text: &str, space: Space, transform: Transform) {
        for c in text.chars() {
            let blank = c.is_ascii_whitespace();
            match space {
                Space::Preserve if c == '\r' => {}
                Space::Preserve | Space::PreserveBreaks if c == '\n' => {
                    self.pending_space = false;
                    self.flush_pending();
                    self.push('\n');
                    self.line_has_content = false;
                }
                Space::Preserve => {
                    self.flush_pending();
                    self.push_content(c, transform);
                    self.line_has_content = true;
                }
                _ if blank => self.pending_space = true,
                _ => {
                    self.flush_pending();
                    self.push_content(c, transform);
                    self.line_has_content = true;
                }
            }
        }
    }

    /// A block boundary: at least `n` newlines before any following content.
    fn breaks(&mut self, n: usize) {
        self.pending_breaks = self.pending_breaks.max(n);
        self.pending_space = false;
    }

    /// A `<br>`: a newline that does not merge with block boundaries.
    fn line_break(&mut self) {
        self.pending_space = false;
        self.flush_pending();
        self.push('\n');
        self.line_has_content = false;
    }

    /// Between table cells of a row.
    fn cell_separator(&mut self) {
        if self.pending_breaks == 0 && self.line_has_content {
            self.pending_space = false;
            self.push('\t');
        }
    }

    fn finish(self) -> String {
        let trimmed = self.out.trim();
        if trimmed.len() == self.out.len() {
            self.out
        } else {
            trimmed.to_owned()
        }
    }
}

/// A `<select>`'s text as Chromium's `innerText` reads it: each option's
/// label on a line of its own (a closed list box still names its options).
fn select_text(doc: &BaseDocument, select: &Node, w: &mut TextWriter) {
    let mut stack: Vec<NodeId> = select.children.iter().rev().copied().collect();
    while let Some(id) = stack.pop() {
        let Some(node) = doc.get_node(id) else {
            continue;
        };
        match element(node) {
            Some((_, "option")) => {
                let label = attr(node, "label")
                    .map(collapse_whitespace)
                    .filter(|l| !l.is_empty())
                    .unwrap_or_else(|| collapse_whitespace(&node.text_content()));
                w.breaks(1);
                w.text(&label, Space::Collapse, Transform::None);
                w.breaks(1);
            }
            Some((_, "optgroup")) => stack.extend(node.children.iter().rev().copied()),
            _ => {}
        }
    }
}

/// Whether `el` is a MathML element inside another MathML element.
fn is_math_child(doc: &BaseDocument, node: &Node, el: &ElementData) -> bool {
    el.name.ns == ns!(mathml)
        && node
            .parent
            .and_then(|p| doc.get_node(p))
            .and_then(|p| p.element_data())
            .is_some_and(|p| p.name.ns == ns!(mathml))
}

/// `innerText` of the subtree at `root`, capped at `cap` characters.
pub(crate) fn inner_text(doc: &BaseDocument, root: NodeId, cap: usize) -> String {
    let mut writer = TextWriter::new(cap);
    let inherited = Inherited::ROOT;
    walk_text(doc, root, inherited, &mut writer, true, &|_| false);
    writer.finish()
}

/// `innerText` of the (visible) subtrees at `roots`, one block after the
/// other, leaving out every element for which `skip` is true.
pub(crate) fn inner_text_skipping(
    doc: &BaseDocument,
    roots: &[NodeId],
    cap: usize,
    skip: &dyn Fn(&Node) -> bool,
) -> String {
    let mut writer = TextWriter::new(cap);
    let inherited = Inherited::ROOT;
    for root in roots {
        writer.breaks(1);
        walk_text(doc, *root, inherited, &mut writer, false, skip);
    }
    writer.finish()
}

fn walk_text(
    doc: &BaseDocument,
    id: NodeId,
    inherited: Inherited,
    w: &mut TextWriter,
    is_root: bool,
    skip: &dyn Fn(&Node) -> bool,
) {
    if w.full() {
        return;
    }
    let Some(node) = doc.get_node(id) else {
        return;
    };
    match &node.data {
        NodeData::Text(text) if inherited.visible => {
            w.text(&text.content, inherited.space, inherited.transform)
        }
        NodeData::Document(_) => {
            for child in node.children.iter() {
                walk_text(doc, *child, inherited, w, false, skip);
            }
        }
        NodeData::Element(el) => {
            let tag: &str = &el.name.local;
            // The element asked about is read even if it is itself a skipped
            // kind (e.g. `head.innerText`), like `innerText` on a non-rendered node.
            if !is_root && (is_hidden(node, tag) || skip(node)) {
                return;
            }
            if tag == "br" {
                if inherited.visible {
                    w.line_break();
                }
                return;
            }
            if tag == "select" {
                if inherited.visible {
                    select_text(doc, node, w);
                }
                return;
            }
            // Its children are Blitz's painted label (see `anonymous`).
            if tag == "input" {
                return;
            }
            let styles = node.primary_styles();
            let display = styles.as_ref().map(|s| s.clone_display());
            let visible = styles.as_ref().map_or(inherited.visible, |s| {
                s.clone_visibility() == Visibility::Visible
            });
            let space =
                styles
                    .as_ref()
                    .map_or(inherited.space, |s| match s.clone_white_space_collapse() {
                        WhiteSpaceCollapse::Collapse => Space::Collapse,
                        WhiteSpaceCollapse::PreserveBreaks => Space::PreserveBreaks,
                        WhiteSpaceCollapse::Preserve | WhiteSpaceCollapse::BreakSpaces => {
                            Space::Preserve
                        }
                    });
            let transform = styles
                .as_ref()
                .map_or(inherited.transform, |s| Transform::of(s));
            drop(styles);
            let breaks = match display {
                _ if tag == "p" => 2,
                // MathML Core blockifies the children of MathML elements
                // (`block math`): each token is a line of its own, as
                // Chromium reads it; rows and cells of `mtable` stay such.
                Some(d)
                    if is_math_child(doc, node, el)
                        && d != Display::TableCell
                        && d != Display::TableRow =>
                {
                    1
                }
                Some(d) if d == Display::TableCell => {
                    w.cell_separator();
                    0
                }
                Some(d)
                    if d == Display::TableRow
                        || d == Display::TableCaption
                        || d.outside() == DisplayOutside::Block =>
                {
                    1
                }
                Some(_) => 0,
                None if BLOCK_TAGS.contains(&tag) => 1,
                None if tag == "td" || tag == "th" => {
                    w.cell_separator();
                    0
                }
                None => 0,
            };
            if breaks > 0 {
                w.breaks(breaks);
            }
            let inherited = Inherited {
                visible,
                space,
                transform,
            };
            for child in node.children.iter() {
                walk_text(doc, *child, inherited, w, false, skip);
            }
            if breaks > 0 {
                w.breaks(breaks);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Texts as pages have them: runs of every kind of white space, words
    /// of several bytes a character, and texts that are only white space.
    const TEXTS: [&str; 8] = [
        "  Hello,\t wörld \n",
        "naïve café",
        "\u{c}\r\n ",
        "",
        "日本語 のテキスト  end",
        "a",
        " b c ",
        "🙂x 🙂",
    ];

    /// Writes every text, with a block boundary after every third, through
    /// `write` into a writer capped at `cap`.
    fn written(cap: usize, write: fn(&mut TextWriter, &str)) -> String {
        let mut w = TextWriter::new(cap);
        for (i, text) in TEXTS.iter().enumerate() {
            write(&mut w, text);
            if i % 3 == 2 {
                w.breaks(1);
            }
        }
        w.finish()
    }

    #[test]
    fn collapsed_text_read_a_word_at_a_time_is_what_a_character_at_a_time_reads() {
        let whole = written(usize::MAX, |w, t| {
            w.each_char(t, Space::Collapse, Transform::None)
        });
        assert_eq!(
            whole,
            "Hello, wörld naïve café\n日本語 のテキスト enda\nb c 🙂x 🙂"
        );
        for cap in 0..=whole.chars().count() + 1 {
            let slow = written(cap, |w, t| w.each_char(t, Space::Collapse, Transform::None));
            let fast = written(cap, TextWriter::collapsed_words);
            assert_eq!(fast, slow, "capped at {cap} characters");
        }
    }
}
