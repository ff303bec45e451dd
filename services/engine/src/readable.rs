//! The readable view of a page: its main content with the boilerplate around
//! it (navigation, sidebars, footers, comment threads, link lists, cookie
//! banners) left out, plus the metadata a reader wants first: title, byline,
//! publication date, site name and a short excerpt.
//!
//! The main content is found the way reader modes find it: every paragraph of
//! real prose (at least [`MIN_PARAGRAPH_CHARS`] of text) gives points to its
//! container and, halved, to the container's container; containers named like
//! content (`article`, `main`, `post`, `story`, ...) gain and those named like
//! chrome (`nav`, `sidebar`, `comment`, `footer`, `ad`, ...) lose; the score
//! is then scaled by how much of the container's text is not link text. The
//! best container wins, with those of its siblings that score close to it.
//! Its text is read with `innerText` rules, skipping chrome inside it.
//!
//! Everything here reads computed styles (what is hidden is not content), so
//! it runs after a style pass, like the rest of `inspect`.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use blitz_dom::node::{Node, NodeData};
use blitz_dom::{BaseDocument, NodeId};

use crate::bindings::exports::fleet::engine::page::Readable;
use crate::inspect::{self, attr, collapse_whitespace, walk_elements};

/// Shortest text that counts as a paragraph of prose, characters.
const MIN_PARAGRAPH_CHARS: usize = 25;
/// Longest excerpt, characters (cut at a word, with an ellipsis).
const MAX_EXCERPT_CHARS: usize = 300;
/// Shortest first paragraph used as the excerpt when the page has no
/// description of its own.
const MIN_EXCERPT_PARAGRAPH_CHARS: usize = 80;
/// Longest byline, characters: a longer "author" block is not a byline.
const MAX_BYLINE_CHARS: usize = 120;
/// A sibling of the best container is content too when it scores at least
/// this share of the best score (and at least [`MIN_SIBLING_SCORE`]).
const SIBLING_SHARE: f64 = 0.2;
const MIN_SIBLING_SCORE: f64 = 10.0;
/// Inside the content, a block whose text is mostly links (related stories,
/// tag clouds, share bars) is left out above this share of link text.
const MAX_LINK_DENSITY: f64 = 0.5;

/// Class and id words of containers of content.
const POSITIVE: &[&str] = &[
    "article", "body", "content", "entry", "main", "page", "post", "text", "blog", "story",
    "prose", "hentry",
];
/// Class and id words of page chrome.
const NEGATIVE: &[&str] = &[
    "ad",
    "ads",
    "advert",
    "advertisement",
    "banner",
    "breadcrumb",
    "breadcrumbs",
    "combx",
    "comment",
    "comments",
    "community",
    "cookie",
    "cookies",
    "consent",
    "disqus",
    "extra",
    "foot",
    "footer",
    "footnote",
    "masthead",
    "menu",
    "meta",
    "nav",
    "navbar",
    "newsletter",
    "outbrain",
    "pager",
    "pagination",
    "popup",
    "promo",
    "related",
    "remark",
    "rss",
    "share",
    "sharing",
    "shopping",
    "sidebar",
    "skyscraper",
    "social",
    "sponsor",
    "sponsored",
    "subscribe",
    "tags",
    "taboola",
    "tool",
    "toolbar",
    "widget",
];
/// Elements that are chrome wherever they are.
const CHROME_TAGS: &[&str] = &[
    "nav", "aside", "footer", "form", "button", "dialog", "menu", "select", "input", "textarea",
];
/// ARIA roles of chrome.
const CHROME_ROLES: &[&str] = &[
    "navigation",
    "complementary",
    "contentinfo",
    "banner",
    "search",
    "dialog",
    "alertdialog",
    "menu",
    "menubar",
    "toolbar",
];
/// Elements whose text makes a paragraph.
const PARAGRAPH_TAGS: &[&str] = &["p", "pre", "td", "blockquote", "li", "dd"];
/// Whether an element's own text makes a paragraph: a paragraph-like tag, or
/// a `div` with no block inside (pages built of plain `div`s).
fn is_paragraph(doc: &BaseDocument, node: &Node, tag: &str) -> bool {
    PARAGRAPH_TAGS.contains(&tag)
        || (tag == "div"
            && !node.children.iter().any(|c| {
                doc.get_node(*c)
                    .and_then(|c| c.element_data())
                    .is_some_and(|el| inspect::BLOCK_TAGS.contains(&&*el.name.local))
            }))
}

/// Text statistics of one element's visible subtree.
#[derive(Clone, Copy, Default)]
struct Counts {
    /// Characters of text (white space runs count once).
    text: usize,
    /// Of those, characters inside links.
    links: usize,
    /// Commas (a sign of sentences).
    commas: usize,
    /// Paragraph elements, the element itself included.
    paragraphs: usize,
}

impl Counts {
    fn add(&mut self, other: Counts) {
        self.text += other.text;
        self.links += other.links;
        self.commas += other.commas;
        self.paragraphs += other.paragraphs;
    }

    fn link_density(&self) -> f64 {
        if self.text == 0 {
            0.0
        } else {
            self.links as f64 / self.text as f64
        }
    }
}

/// The local name of an element.
fn tag(node: &Node) -> Option<&str> {
    node.element_data().map(|el| &*el.name.local)
}

/// The words of an element's `class` and `id`, as written: callers compare
/// them ignoring ASCII case, which spares a lower-cased copy of each.
fn name_words(node: &Node) -> impl Iterator<Item = &str> + '_ {
    ["class", "id"]
        .into_iter()
        .filter_map(|a| attr(node, a))
        .flat_map(|v| v.split(|c: char| !c.is_ascii_alphanumeric()))
        .filter(|w| !w.is_empty())
}

/// Whether `word` is one of `list` (lower case), ignoring ASCII case.
fn one_of(list: &[&str], word: &str) -> bool {
    list.iter().any(|w| w.eq_ignore_ascii_case(word))
}

/// +25 for a name of content, -25 for a name of chrome (both can apply).
fn name_weight(node: &Node) -> f64 {
    let (mut positive, mut negative) = (false, false);
    for word in name_words(node) {
        positive |= one_of(POSITIVE, word);
        negative |= one_of(NEGATIVE, word);
    }
    let role = attr(node, "role").unwrap_or_default();
    positive |= role == "main" || role == "article";
    positive |= attr(node, "itemprop").is_some_and(|p| p == "articleBody");
    positive |= matches!(tag(node), Some("article" | "main"));
    f64::from(i8::from(positive) - i8::from(negative)) * 25.0
}

/// Whether an element is chrome by its tag, role or ARIA state, whatever
/// its text.
fn is_chrome(node: &Node) -> bool {
    let Some(t) = tag(node) else {
        return false;
    };
    CHROME_TAGS.contains(&t)
        || attr(node, "role").is_some_and(|r| CHROME_ROLES.contains(&r.trim()))
        || attr(node, "aria-hidden").is_some_and(|v| v.trim() == "true")
        || attr(node, "aria-modal").is_some_and(|v| v.trim() == "true")
}

/// The base score of a container by its tag.
fn tag_score(node: &Node) -> f64 {
    match tag(node) {
        Some("div" | "article" | "main" | "section") => 5.0,
        Some("pre" | "td" | "blockquote") => 3.0,
        Some("address" | "ol" | "ul" | "dl" | "dd" | "dt" | "li" | "form") => -3.0,
        Some("h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "th") => -5.0,
        _ => 0.0,
    }
}

/// Hashes a node id by one multiplication. The survey keeps an entry for
/// every visible element of the page, and the standard SipHash (built to
/// resist keys chosen by an attacker, which slot indexes are not) was a third
/// of the survey's time.
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(u64::from(*b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        // An odd constant near 2^64 / φ spreads the slot index over every bit.
        self.0 = (self.0 ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// A map keyed by node id.
type NodeMap<V> = HashMap<NodeId, V, BuildHasherDefault<IdHasher>>;

/// Counts of every visible element, and the paragraphs found on the way.
struct Survey {
    counts: NodeMap<Counts>,
    /// Paragraph elements in document order, with their own counts.
    paragraphs: Vec<(NodeId, Counts)>,
}

fn survey(doc: &BaseDocument) -> Survey {
    let mut survey = Survey {
        counts: NodeMap::default(),
        paragraphs: Vec::new(),
    };
    count(doc, doc.root_node().id, false, &mut survey);
    survey
}

/// Counts the visible text under `id` (recursion depth is bounded by the
/// document's depth cap, see `document::limit_depth`).
fn count(doc: &BaseDocument, id: NodeId, in_link: bool, survey: &mut Survey) -> Counts {
    let Some(node) = doc.get_node(id) else {
        return Counts::default();
    };
    if let NodeData::Text(text) = &node.data {
        let (chars, commas) = collapsed_counts(&text.content);
        return Counts {
            text: chars,
            links: if in_link { chars } else { 0 },
            commas,
            paragraphs: 0,
        };
    }
    let element = tag(node);
    if let Some(t) = element
        && inspect::is_hidden(node, t)
    {
        return Counts::default();
    }
    let in_link = in_link || element == Some("a");
    let mut total = Counts::default();
    for child in &node.children {
        total.add(count(doc, *child, in_link, survey));
    }
    if let Some(t) = element {
        // Only the innermost paragraph scores: a `<li><p>` or a quote's
        // paragraphs count once.
        if total.text >= MIN_PARAGRAPH_CHARS && total.paragraphs == 0 && is_paragraph(doc, node, t)
        {
            survey.paragraphs.push((id, total));
            total.paragraphs = 1;
        }
        survey.counts.insert(id, total);
    }
    total
}

/// The characters and commas of `text` once its white space is collapsed
/// (what `collapse_whitespace` would give), without building that string:
/// the survey reads every text node of the page.
fn collapsed_counts(text: &str) -> (usize, usize) {
    let (mut chars, mut commas, mut words) = (0usize, 0usize, 0usize);
    for word in text.split_ascii_whitespace() {
        words += 1;
        chars += word.chars().count();
        commas += word.bytes().filter(|b| *b == b',').count();
    }
    // One space between each two words.
    (chars + words.saturating_sub(1), commas)
}

/// The main content's containers, in document order: the best scoring one
/// and its siblings that score close to it. `None` when the page has no
/// paragraph of prose at all.
fn main_content(doc: &BaseDocument, survey: &Survey) -> Option<Vec<NodeId>> {
    let mut scores: NodeMap<f64> = NodeMap::default();
    let initial = |id: NodeId| {
        doc.get_node(id)
            .map_or(0.0, |n| tag_score(n) + name_weight(n))
    };
    for (id, counts) in &survey.paragraphs {
        let points = 1.0 + counts.commas as f64 + (counts.text as f64 / 100.0).floor().min(3.0);
        let mut ancestor = doc.get_node(*id).and_then(|n| n.parent);
        for level in 0..3 {
            let Some(a) = ancestor else {
                break;
            };
            let Some(node) = doc.get_node(a) else {
                break;
            };
            if tag(node).is_none() || matches!(tag(node), Some("body" | "html")) {
                break;
            }
            let share = match level {
                0 => 1.0,
                1 => 0.5,
                _ => 1.0 / (f64::from(level) * 3.0),
            };
            *scores.entry(a).or_insert_with(|| initial(a)) += points * share;
            ancestor = node.parent;
        }
    }
    let scaled = |id: NodeId, score: f64| {
        let density = survey.counts.get(&id).map_or(0.0, Counts::link_density);
        score * (1.0 - density)
    };
    let (top, top_score) = scores
        .iter()
        .map(|(id, s)| (*id, scaled(*id, *s)))
        .filter(|(id, _)| doc.get_node(*id).is_some_and(|n| !is_chrome(n)))
        // Ties go to the container that comes first.
        .max_by(|a, b| {
            a.1.total_cmp(&b.1)
                .then_with(|| b.0.as_u64().cmp(&a.0.as_u64()))
        })?;
    let Some(parent) = doc.get_node(top).and_then(|n| n.parent) else {
        return Some(vec![top]);
    };
    let threshold = (top_score * SIBLING_SHARE).max(MIN_SIBLING_SCORE);
    let siblings = doc
        .get_node(parent)
        .map(|p| p.children.clone())
        .unwrap_or_default();
    let chosen = siblings
        .into_iter()
        .filter(|id| {
            if *id == top {
                return true;
            }
            let Some(node) = doc.get_node(*id) else {
                return false;
            };
            if tag(node).is_none() || is_chrome(node) {
                return false;
            }
            let counts = survey.counts.get(id).copied().unwrap_or_default();
            let score = scores.get(id).map(|s| scaled(*id, *s)).unwrap_or(0.0);
            let own_prose = tag(node) == Some("p")
                && counts.text > MIN_EXCERPT_PARAGRAPH_CHARS
                && counts.link_density() < 0.25;
            score >= threshold || own_prose
        })
        .collect();
    Some(chosen)
}

/// Whether `node`, inside the main content, is chrome to leave out.
fn skip_in_content(node: &Node, survey: &Survey) -> bool {
    if is_chrome(node) {
        return true;
    }
    let Some(t) = tag(node) else {
        return false;
    };
    // Headings and paragraphs are content whatever their links; lists and
    // blocks of mostly links are not (related stories, share bars).
    if matches!(t, "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "p" | "a") {
        return false;
    }
    let counts = survey.counts.get(&node.id).copied().unwrap_or_default();
    if counts.text > 0 && counts.link_density() > MAX_LINK_DENSITY {
        return true;
    }
    name_weight(node) < 0.0 && counts.text < 1_000
}

/// The page's `<meta name|property content>` pairs in document order, keys
/// lower-cased, empty contents left out: read in one walk of the tree, which
/// the title, excerpt, byline, date and site name all look up.
struct Metas(Vec<(String, String)>);

impl Metas {
    fn read(doc: &BaseDocument) -> Self {
        let mut found = Vec::new();
        walk_elements(doc, doc.root_node().id, &mut |node| {
            if tag(node) != Some("meta") {
                return;
            }
            let key = attr(node, "property").or_else(|| attr(node, "name"));
            if let (Some(key), Some(content)) = (key, attr(node, "content")) {
                let content = collapse_whitespace(content);
                if !content.is_empty() {
                    found.push((key.trim().to_ascii_lowercase(), content));
                }
            }
        });
        Self(found)
    }

    /// The content of the first `<meta>` with the first of `keys` the page has.
    fn first(&self, keys: &[&str]) -> Option<String> {
        keys.iter().find_map(|k| {
            self.0
                .iter()
                .find(|(key, _)| key == k)
                .map(|(_, content)| content.clone())
        })
    }
}

/// The first visible element under `roots` for which `pick` gives a value.
fn first_in(
    doc: &BaseDocument,
    roots: &[NodeId],
    pick: &mut impl FnMut(&Node) -> Option<String>,
) -> Option<String> {
    for root in roots {
        let mut stack = vec![*root];
        while let Some(id) = stack.pop() {
            let Some(node) = doc.get_node(id) else {
                continue;
            };
            if let Some(t) = tag(node) {
                if inspect::is_hidden(node, t) {
                    continue;
                }
                if let Some(found) = pick(node) {
                    return Some(found);
                }
            }
            stack.extend(node.children.iter().rev().copied());
        }
    }
    None
}

fn text_of(node: &Node) -> Option<String> {
    Some(collapse_whitespace(&node.text_content())).filter(|t| !t.is_empty())
}

/// Who wrote the page: its `author` metadata, else a `rel=author` link or an
/// element named `byline`/`author`, short enough to be one.
fn byline(doc: &BaseDocument, metas: &Metas, roots: &[NodeId]) -> Option<String> {
    if let Some(author) = metas.first(&["author", "article:author", "twitter:creator"])
        && !author.starts_with("http")
    {
        return Some(author);
    }
    let whole = [doc.root_node().id];
    let roots = if roots.is_empty() { &whole[..] } else { roots };
    first_in(doc, roots, &mut |node| {
        let named = attr(node, "rel").is_some_and(|r| r.split_whitespace().any(|w| w == "author"))
            || attr(node, "itemprop").is_some_and(|p| p == "author")
            || name_words(node).any(|w| one_of(&["byline", "author"], w));
        if !named {
            return None;
        }
        text_of(node).filter(|t| t.chars().count() <= MAX_BYLINE_CHARS)
    })
}

/// When the page was published: its metadata, else the first `<time>` of
/// the content.
fn published(doc: &BaseDocument, metas: &Metas, roots: &[NodeId]) -> Option<String> {
    if let Some(date) = metas.first(&[
        "article:published_time",
        "datepublished",
        "date",
        "dc.date",
        "pubdate",
    ]) {
        return Some(date);
    }
    first_in(doc, roots, &mut |node| {
        let dated = tag(node) == Some("time")
            || attr(node, "itemprop").is_some_and(|p| p == "datePublished");
        if !dated {
            return None;
        }
        attr(node, "datetime")
            .or_else(|| attr(node, "content"))
            .map(collapse_whitespace)
            .filter(|d| !d.is_empty())
            .or_else(|| text_of(node))
    })
}

/// `text` cut to at most `max` characters at a word boundary, with an ellipsis.
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let head: String = text.chars().take(max.saturating_sub(1)).collect();
    let head = match head.rfind(char::is_whitespace) {
        Some(at) if at > head.len() / 2 => &head[..at],
        _ => head.as_str(),
    };
    format!(
        "{}…",
        head.trim_end_matches(|c: char| c.is_whitespace() || c == ',')
    )
}

/// The readable view of `doc` (styled), with at most `cap` characters of content.
pub(crate) fn extract(doc: &BaseDocument, cap: usize) -> Readable {
    let survey = survey(doc);
    let roots = main_content(doc, &survey).unwrap_or_default();
    let content = if roots.is_empty() {
        // No prose: the whole page, without its chrome.
        let body = doc
            .find_element_by_tag_name(&blitz_dom::local_name!("body"))
            .map_or(doc.root_node().id, |b| b.id);
        inspect::inner_text_skipping(doc, &[body], cap, &|n| is_chrome(n))
    } else {
        inspect::inner_text_skipping(doc, &roots, cap, &|n| skip_in_content(n, &survey))
    };
    let heading = first_in(doc, &roots, &mut |node| {
        (tag(node) == Some("h1")).then(|| text_of(node)).flatten()
    });
    let metas = Metas::read(doc);
    let title = metas
        .first(&["og:title", "twitter:title"])
        .or(heading)
        .unwrap_or_else(|| inspect::title(doc));
    let excerpt = metas
        .first(&["description", "og:description", "twitter:description"])
        .or_else(|| {
            survey
                .paragraphs
                .iter()
                .filter(|(id, counts)| {
                    counts.text >= MIN_EXCERPT_PARAGRAPH_CHARS
                        && counts.link_density() < 0.25
                        && roots
                            .iter()
                            .any(|r| inspect::is_inclusive_ancestor(doc, *r, *id))
                })
                .find_map(|(id, _)| doc.get_node(*id).and_then(text_of))
        })
        .or_else(|| Some(content.clone()))
        .map(|e| cut(&collapse_whitespace(&e), MAX_EXCERPT_CHARS))
        .unwrap_or_default();
    Readable {
        title,
        byline: byline(doc, &metas, &roots),
        published: published(doc, &metas, &roots),
        site_name: metas.first(&["og:site_name", "application-name"]),
        excerpt,
        content,
    }
}

#[cfg(test)]
mod tests;
