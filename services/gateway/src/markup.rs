//! Reading HTML the gateway fetched without a browser: the readable text of a
//! document an HTTP tool fetched, and the small pieces search's result-page
//! readers use. A quick reading of the markup, not a browser's — no scripts
//! run and no CSS applies (`servo_navigate` is the tool for that). The head,
//! scripts, styles and comments go; block ends and `<br>` become line breaks;
//! entities are decoded; blank runs collapse.

/// Longest title kept, characters.
const MAX_TITLE_CHARS: usize = 512;

/// Elements whose content is not text a reader sees.
const HIDDEN: [&str; 7] = [
    "head", "title", "script", "style", "noscript", "svg", "template",
];

/// Elements whose end breaks the line.
const BLOCKS: [&str; 22] = [
    "p",
    "div",
    "li",
    "ul",
    "ol",
    "tr",
    "table",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "article",
    "section",
    "header",
    "footer",
    "nav",
    "main",
    "blockquote",
    "pre",
    "dd",
];

/// The document's title and its readable text.
pub(crate) fn html_text(html: &str) -> (String, String) {
    let lower = html.to_ascii_lowercase();
    let title = element_text(html, &lower, "title")
        .map(|t| collapse_inline(&decode(&strip_tags(t))))
        .map(|t| t.chars().take(MAX_TITLE_CHARS).collect())
        .unwrap_or_default();
    let mut out = String::with_capacity(html.len() / 2);
    let mut i = 0;
    while i < html.len() {
        let Some(lt) = html[i..].find('<').map(|p| p + i) else {
            out.push_str(&html[i..]);
            break;
        };
        out.push_str(&html[i..lt]);
        if lower[lt..].starts_with("<!--") {
            i = lower[lt..].find("-->").map_or(html.len(), |p| lt + p + 3);
            continue;
        }
        let Some(gt) = html[lt..].find('>').map(|p| p + lt) else {
            break;
        };
        let tag = &lower[lt + 1..gt];
        let closing = tag.starts_with('/');
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        i = gt + 1;
        if !closing && HIDDEN.contains(&name.as_str()) {
            // Skip to the matching end tag; an unclosed one hides the rest.
            let end = format!("</{name}");
            i = lower[i..]
                .find(&end)
                .and_then(|p| lower[i + p..].find('>').map(|q| i + p + q + 1))
                .unwrap_or(html.len());
            out.push(' ');
        } else if name == "br" || (closing && BLOCKS.contains(&name.as_str())) {
            out.push('\n');
        } else {
            out.push(' ');
        }
    }
    (title, collapse(&decode(&out)))
}

/// The raw content of the first `name` element.
fn element_text<'a>(html: &'a str, lower: &str, name: &str) -> Option<&'a str> {
    let open = lower.find(&format!("<{name}"))?;
    let start = lower[open..].find('>')? + open + 1;
    let end = lower[start..].find(&format!("</{name}"))? + start;
    html.get(start..end)
}

pub(crate) fn strip_tags(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_tag = false;
    for c in s.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

/// Decodes the common named entities and every numeric one; an entity it
/// does not know stays as written.
pub(crate) fn decode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let end = rest
            .char_indices()
            .take(12)
            .find(|(_, c)| *c == ';')
            .map(|(i, _)| i);
        let decoded = end.and_then(|e| entity(&rest[1..e]).map(|c| (c, e)));
        match decoded {
            Some((c, e)) => {
                out.push(c);
                rest = &rest[e + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn entity(name: &str) -> Option<char> {
    if let Some(num) = name.strip_prefix('#') {
        let code = match num.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => num.parse().ok()?,
        };
        return Some(char::from_u32(code).unwrap_or('\u{FFFD}'));
    }
    Some(match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => ' ',
        "copy" => '©',
        "reg" => '®',
        "hellip" => '…',
        "mdash" => '—',
        "ndash" => '–',
        "lsquo" => '‘',
        "rsquo" => '’',
        "ldquo" => '“',
        "rdquo" => '”',
        _ => return None,
    })
}

/// One line: every run of whitespace becomes one space.
pub(crate) fn collapse_inline(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Lines with their spaces collapsed, at most one blank line in a row.
fn collapse(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut blank = 0;
    for line in s.split('\n').map(collapse_inline) {
        if line.is_empty() {
            blank += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank > 0 { "\n\n" } else { "\n" });
        }
        blank = 0;
        out.push_str(&line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_parts_go_and_blocks_break_lines() {
        let (title, text) = html_text(
            "<!doctype html><html><head><title>A &amp; B</title><style>p{}</style></head>\
             <body><!-- note --><h1>Head&shy;line</h1><p>One&nbsp;two <b>three</b></p>\
             <script>var x = '<p>not text</p>';</script><p>caf&#233; &#x263A; &bogus;</p>\
             line<br>break<noscript>enable JS</noscript></body></html>",
        );
        assert_eq!(title, "A & B");
        assert_eq!(
            text,
            "Head&shy;line\nOne two three\ncafé ☺ &bogus;\nline\nbreak"
        );
    }

    #[test]
    fn an_unclosed_script_hides_the_rest_and_a_stray_angle_ends_the_text() {
        assert_eq!(html_text("<p>kept</p><script>lost").1, "kept");
        assert_eq!(html_text("<p>kept</p><div").1, "kept");
        assert_eq!(
            html_text("no markup & no entity").1,
            "no markup & no entity"
        );
    }
}
