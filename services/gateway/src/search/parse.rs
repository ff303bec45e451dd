//! Reading each provider's result page into `(title, url, snippet)` triples,
//! as Servo MCP reads them: Google's HTML (an `<a>` around an `<h3>`, its
//! `/url?q=` links unwrapped, Google's own hosts dropped, no snippet); Bing's
//! RSS (`<item>` title, link, description); DuckDuckGo's HTML-only page
//! (`result__a` links, `result__snippet` text, `uddg=` links unwrapped); and
//! Yandex (any absolute link with a title of two characters or more, Yandex's
//! own hosts dropped, no snippet). Only absolute http(s) URLs are kept.

use url::Url;

use super::Provider;
use crate::markup::{collapse_inline, decode, strip_tags};

/// Longest snippet kept, characters.
const MAX_SNIPPET_CHARS: usize = 500;

/// The results on `provider`'s page, in page order.
pub(super) fn results(provider: Provider, page: &str) -> Vec<(String, String, String)> {
    let found = match provider {
        Provider::Google => google(page),
        Provider::Bing => bing(page),
        Provider::DuckDuckGo => duckduckgo(page),
        Provider::Yandex => yandex(page),
    };
    found
        .into_iter()
        .filter(|(title, url, _)| !title.is_empty() && web_url(url))
        .map(|(t, u, s)| (t, u, s.chars().take(MAX_SNIPPET_CHARS).collect()))
        .collect()
}

/// Whether `url` is an absolute http(s) URL.
fn web_url(url: &str) -> bool {
    Url::parse(url).is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
}

/// Whether `url`'s host is `site` or under it (`google` matches
/// `www.google.com` and `google.co.uk`).
fn on_site(url: &str, sites: &[&str]) -> bool {
    let Some(host) = Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
    else {
        return false;
    };
    host.split('.').any(|label| sites.contains(&label))
}

/// One `<a …>…</a>` of a page: its attributes and its inner HTML.
struct Anchor<'a> {
    attrs: &'a str,
    inner: &'a str,
}

/// Every anchor of `page`, in order (an anchor without its end runs to the
/// next anchor).
fn anchors(page: &str) -> Vec<Anchor<'_>> {
    let lower = page.to_ascii_lowercase();
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(p) = lower[at..].find("<a") {
        let start = at + p;
        at = start + 2;
        // `<a` must be the whole tag name (`<abbr>` is not an anchor).
        if !lower[at..].starts_with(|c: char| c.is_ascii_whitespace() || c == '>') {
            continue;
        }
        let Some(gt) = lower[at..].find('>').map(|q| at + q) else {
            break;
        };
        let end = lower[gt..]
            .find("</a")
            .map_or(page.len(), |q| gt + q)
            .min(lower[gt..].find("<a ").map_or(page.len(), |q| gt + q));
        out.push(Anchor {
            attrs: &page[at..gt],
            inner: &page[gt + 1..end],
        });
        at = end;
    }
    out
}

/// The value of attribute `name` in a tag's attribute text, decoded.
fn attr(attrs: &str, name: &str) -> Option<String> {
    let lower = attrs.to_ascii_lowercase();
    let mut from = 0;
    while let Some(p) = lower[from..].find(name) {
        let start = from + p;
        from = start + name.len();
        let before_ok = start == 0
            || lower[..start]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_whitespace());
        let rest = lower[from..].trim_start();
        if !before_ok || !rest.starts_with('=') {
            continue;
        }
        let value_at = attrs.len() - rest.len() + 1;
        let value = attrs[value_at..].trim_start();
        let raw = match value.chars().next() {
            Some(q @ ('"' | '\'')) => value[1..].split(q).next().unwrap_or_default(),
            _ => value
                .split(|c: char| c.is_ascii_whitespace())
                .next()
                .unwrap_or_default(),
        };
        return Some(decode(raw));
    }
    None
}

/// An element's text: tags stripped, entities decoded, whitespace collapsed.
fn text(html: &str) -> String {
    collapse_inline(&decode(&strip_tags(html)))
}

/// The inner HTML of the first `<name…>…</name>` in `html`.
fn element<'a>(html: &'a str, name: &str) -> Option<&'a str> {
    let lower = html.to_ascii_lowercase();
    let open = lower.find(&format!("<{name}"))?;
    let start = lower[open..].find('>')? + open + 1;
    let end = lower[start..].find(&format!("</{name}"))? + start;
    html.get(start..end)
}

/// The value of query parameter `name` of a link (relative links read
/// against a placeholder base).
fn param(link: &str, name: &str) -> Option<String> {
    let base = Url::parse("https://placeholder.invalid/").ok()?;
    let url = base.join(link).ok()?;
    url.query_pairs()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

fn google(page: &str) -> Vec<(String, String, String)> {
    anchors(page)
        .into_iter()
        .filter_map(|a| {
            let title = text(element(a.inner, "h3")?);
            let href = attr(a.attrs, "href")?;
            let url = if href.starts_with("/url?") {
                param(&href, "q").or_else(|| param(&href, "url"))?
            } else {
                href
            };
            (!on_site(&url, &["google"])).then_some((title, url, String::new()))
        })
        .collect()
}

fn bing(page: &str) -> Vec<(String, String, String)> {
    let lower = page.to_ascii_lowercase();
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(p) = lower[at..].find("<item") {
        let start = at + p;
        let end = lower[start..]
            .find("</item")
            .map_or(page.len(), |q| start + q);
        let item = &page[start..end];
        let field = |name: &str| {
            element(item, name)
                .map(|v| {
                    let v = v.trim();
                    // RSS text may carry escaped markup (`&lt;b&gt;`) or
                    // CDATA; either way the reader wants the words.
                    match v
                        .strip_prefix("<![CDATA[")
                        .and_then(|v| v.strip_suffix("]]>"))
                    {
                        Some(cdata) => text(cdata),
                        None => text(&decode(v)),
                    }
                })
                .unwrap_or_default()
        };
        out.push((field("title"), field("link"), field("description")));
        at = end.max(start + 5);
    }
    out
}

fn duckduckgo(page: &str) -> Vec<(String, String, String)> {
    let all = anchors(page);
    let mut out: Vec<(String, String, String)> = Vec::new();
    for a in &all {
        let class = attr(a.attrs, "class").unwrap_or_default();
        let classes: Vec<&str> = class.split_whitespace().collect();
        if classes.contains(&"result__a") {
            let Some(href) = attr(a.attrs, "href") else {
                continue;
            };
            let url = if href.contains("uddg=") {
                match param(&href, "uddg") {
                    Some(u) => u,
                    None => continue,
                }
            } else {
                href
            };
            out.push((text(a.inner), url, String::new()));
        } else if classes.contains(&"result__snippet")
            && let Some(last) = out.last_mut()
            && last.2.is_empty()
        {
            last.2 = text(a.inner);
        }
    }
    // Snippets that are not links sit in other elements after their result.
    if out.iter().all(|r| r.2.is_empty()) {
        let snippets = class_texts(page, "result__snippet");
        for (r, s) in out.iter_mut().zip(snippets) {
            r.2 = s;
        }
    }
    out
}

/// The text of every element whose class list holds `class`, in order.
fn class_texts(page: &str, class: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(p) = page[at..].find(class) {
        let hit = at + p;
        at = hit + class.len();
        let Some(tag_start) = page[..hit].rfind('<') else {
            continue;
        };
        let name: String = page[tag_start + 1..]
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .collect();
        if name.is_empty() {
            continue;
        }
        if let Some(inner) = element(&page[tag_start..], &name) {
            out.push(text(inner));
        }
    }
    out
}

fn yandex(page: &str) -> Vec<(String, String, String)> {
    anchors(page)
        .into_iter()
        .filter_map(|a| {
            let url = attr(a.attrs, "href")?;
            let title = text(a.inner);
            (title.chars().count() >= 2 && web_url(&url) && !on_site(&url, &["yandex", "ya"]))
                .then_some((title, url, String::new()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn google_results_are_unwrapped_and_its_own_links_dropped() {
        let page = r#"<div><a href="/url?q=https://example.org/a&amp;sa=U"><h3 class="x">First &amp; best</h3></a>
            <a href="https://example.net/b"><div><h3>Second</h3></div></a>
            <a href="https://www.google.com/preferences"><h3>Settings</h3></a>
            <a href="/search?q=more">More results</a></div>"#;
        assert_eq!(
            results(Provider::Google, page),
            vec![
                (
                    "First & best".into(),
                    "https://example.org/a".into(),
                    String::new()
                ),
                (
                    "Second".into(),
                    "https://example.net/b".into(),
                    String::new()
                ),
            ]
        );
    }

    #[test]
    fn bing_rss_items_give_title_link_and_description() {
        let page = "<?xml version=\"1.0\"?><rss><channel><title>Bing: q</title>\
            <item><title>Rust &amp; you</title><link>https://rust.example/</link><description><![CDATA[A <b>language</b>]]></description></item>\
            <item><title>No link</title><link>javascript:void(0)</link></item></channel></rss>";
        assert_eq!(
            results(Provider::Bing, page),
            vec![(
                "Rust & you".into(),
                "https://rust.example/".into(),
                "A language".into()
            )]
        );
    }

    #[test]
    fn duckduckgo_links_are_unwrapped_and_snippets_paired() {
        let page = r#"<div class="result"><h2><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com%2Fdoc&amp;rut=x">The doc</a></h2>
            <a class="result__snippet" href="x">Read <b>this</b>.</a></div>
            <div class="result"><a class="result__a" href="https://direct.example/">Direct</a>
            <a class="result__snippet">Two</a></div>"#;
        assert_eq!(
            results(Provider::DuckDuckGo, page),
            vec![
                (
                    "The doc".into(),
                    "https://example.com/doc".into(),
                    "Read this.".into()
                ),
                (
                    "Direct".into(),
                    "https://direct.example/".into(),
                    "Two".into()
                ),
            ]
        );
    }

    #[test]
    fn yandex_keeps_absolute_links_with_titles_off_its_own_hosts() {
        let page = r#"<a href="https://yandex.com/images">Images</a><a href="https://site.example/p">A page</a>
            <a href="/relative">Rel</a><a href="https://x.example/">x</a><abbr>no</abbr>"#;
        assert_eq!(
            results(Provider::Yandex, page),
            vec![(
                "A page".into(),
                "https://site.example/p".into(),
                String::new()
            )]
        );
    }

    #[test]
    fn garbage_reads_as_no_results() {
        for p in Provider::ALL {
            assert!(
                results(p, "\u{0}\u{1}<<<>>> not a results page <a").is_empty(),
                "{p:?}"
            );
        }
    }
}
