//! Which responses a page's navigation saves as a download instead of
//! showing, and under what name: browsers save an attachment
//! (`Content-Disposition: attachment`) and a type they do not render, and
//! everything an `<a download>` link fetches. The name comes from
//! `Content-Disposition` (RFC 6266, `filename*` first), the link's
//! `download` attribute, or the URL's last segment, and is made safe to
//! show and to send back in a header.

use fleet_proto::download::MAX_FILENAME_BYTES;

/// Why a request is made, as far as downloads care.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// Scripts, styles, images, `fetch`, XHR: the page reads the bytes.
    Subresource,
    /// A navigation of the tab: saved when it is an attachment or not
    /// renderable.
    Document,
    /// An `<a download>` link: always saved; the attribute's value (maybe
    /// empty) suggests the name.
    Download(String),
}

/// A response's media type without parameters, lower-cased.
pub fn mime_of(headers: &[(String, String)]) -> String {
    header(headers, "content-type")
        .and_then(|ct| ct.split(';').next())
        .map(|m| m.trim().to_ascii_lowercase())
        .unwrap_or_default()
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// Whether the engine shows a document of this type: markup, text and the
/// script and style types it shows as text. An unlabelled response is
/// sniffed as HTML, as browsers do for a page.
fn renderable(mime: &str) -> bool {
    match mime {
        ""
        | "text/html"
        | "application/xhtml+xml"
        | "application/xml"
        | "text/xml"
        | "image/svg+xml"
        | "application/json"
        | "text/javascript"
        | "application/javascript" => true,
        // CSV and calendar files are data that browsers save.
        "text/csv" | "text/calendar" | "text/vcard" => false,
        m => m.starts_with("text/"),
    }
}

/// The name to save a response under, when `destination` saves it: `None`
/// when the tab shows it instead (a subresource, a renderable document, or
/// an error status, which browsers show as a page).
pub fn saved_name(
    destination: &Destination,
    status: u16,
    url: &str,
    headers: &[(String, String)],
) -> Option<String> {
    let disposition = header(headers, "content-disposition").unwrap_or_default();
    let attachment = disposition
        .split(';')
        .next()
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("attachment"));
    let suggested = match destination {
        Destination::Subresource => return None,
        Destination::Document => {
            if !(200..300).contains(&status) || (!attachment && renderable(&mime_of(headers))) {
                return None;
            }
            None
        }
        Destination::Download(name) => Some(name.as_str()),
    };
    let from_header = disposition_filename(disposition);
    let from_url = url::Url::parse(url).ok().and_then(|u| {
        u.path_segments()?
            .next_back()
            .filter(|s| !s.is_empty())
            .map(|s| percent_decode(s.as_bytes()))
    });
    let name = from_header
        .into_iter()
        .chain(suggested.map(str::to_owned))
        .chain(from_url)
        .map(|n| sanitize(&n))
        .find(|n| !n.is_empty())
        .unwrap_or_else(|| "download".to_owned());
    Some(name)
}

/// The `filename*` (RFC 5987, UTF-8 or Latin-1) or `filename` parameter.
fn disposition_filename(disposition: &str) -> Option<String> {
    let mut plain = None;
    let mut extended = None;
    for param in disposition.split(';').skip(1) {
        let Some((name, value)) = param.split_once('=') else {
            continue;
        };
        let value = value.trim();
        match name.trim().to_ascii_lowercase().as_str() {
            "filename*" => {
                let mut parts = value.splitn(3, '\'');
                let (Some(charset), Some(_lang), Some(encoded)) =
                    (parts.next(), parts.next(), parts.next())
                else {
                    continue;
                };
                let bytes = percent_decode_bytes(encoded.as_bytes());
                extended = if charset.eq_ignore_ascii_case("utf-8") {
                    String::from_utf8(bytes).ok()
                } else {
                    Some(bytes.iter().map(|&b| char::from(b)).collect())
                };
            }
            "filename" => {
                let unquoted = value
                    .strip_prefix('"')
                    .and_then(|v| v.strip_suffix('"'))
                    .map(|v| v.replace("\\\"", "\"").replace("\\\\", "\\"))
                    .unwrap_or_else(|| value.to_owned());
                plain = Some(unquoted);
            }
            _ => {}
        }
    }
    extended.or(plain)
}

fn percent_decode_bytes(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        if s[i] == b'%'
            && let (Some(h), Some(l)) = (
                s.get(i + 1).copied().and_then(hex),
                s.get(i + 2).copied().and_then(hex),
            )
        {
            // Two hex digits are below 256.
            out.push(u8::try_from(h * 16 + l).unwrap_or(b'?'));
            i += 3;
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    out
}

fn percent_decode(s: &[u8]) -> String {
    String::from_utf8_lossy(&percent_decode_bytes(s)).into_owned()
}

/// A name safe to show and to put back in a header: the last path component
/// only, no control characters or quotes, no leading dots (hidden files),
/// at most [`MAX_FILENAME_BYTES`], cut at a character.
pub fn sanitize(name: &str) -> String {
    let last = name.rsplit(['/', '\\']).next().unwrap_or_default();
    let cleaned: String = last
        .chars()
        .map(|c| {
            if c.is_control() || matches!(c, '"' | ':' | '*' | '?' | '<' | '>' | '|') {
                '_'
            } else {
                c
            }
        })
        .collect();
    let trimmed = cleaned.trim().trim_start_matches('.').trim();
    let mut out = String::new();
    for c in trimmed.chars() {
        if out.len() + c.len_utf8() > MAX_FILENAME_BYTES {
            break;
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn a_navigation_saves_attachments_and_types_the_engine_does_not_show() {
        let doc = Destination::Document;
        let url = "http://example.test/files/report%20q3.pdf";
        assert_eq!(
            saved_name(&doc, 200, url, &h(&[("Content-Type", "application/pdf")])),
            Some("report q3.pdf".into())
        );
        assert_eq!(
            saved_name(
                &doc,
                200,
                url,
                &h(&[
                    ("content-type", "text/html"),
                    ("content-disposition", "attachment; filename=\"a.html\"")
                ])
            ),
            Some("a.html".into())
        );
        for shown in [
            "text/html; charset=utf-8",
            "text/plain",
            "application/json",
            "",
        ] {
            assert_eq!(
                saved_name(&doc, 200, url, &h(&[("content-type", shown)])),
                None,
                "{shown}"
            );
        }
        assert_eq!(
            saved_name(&doc, 200, url, &h(&[("content-type", "text/csv")])),
            Some("report q3.pdf".into())
        );
        // An error page is shown, as browsers show it.
        assert_eq!(
            saved_name(&doc, 404, url, &h(&[("content-type", "application/pdf")])),
            None
        );
        assert_eq!(
            saved_name(
                &Destination::Subresource,
                200,
                url,
                &h(&[("content-disposition", "attachment")])
            ),
            None
        );
    }

    #[test]
    fn the_name_comes_from_the_header_then_the_link_then_the_url() {
        let link = Destination::Download("mine.txt".into());
        let url = "http://example.test/get";
        assert_eq!(
            saved_name(
                &link,
                200,
                url,
                &h(&[(
                    "Content-Disposition",
                    "attachment; filename=\"plain.txt\"; filename*=UTF-8''%E2%82%AC%20rates.txt"
                )])
            ),
            Some("€ rates.txt".into())
        );
        assert_eq!(
            saved_name(&link, 200, url, &h(&[("content-type", "text/html")])),
            Some("mine.txt".into())
        );
        assert_eq!(
            saved_name(&Destination::Download(String::new()), 200, url, &[]),
            Some("get".into())
        );
        assert_eq!(
            saved_name(
                &Destination::Download(String::new()),
                200,
                "http://example.test/",
                &[]
            ),
            Some("download".into())
        );
    }

    #[test]
    fn names_lose_paths_control_characters_and_excess_length() {
        assert_eq!(sanitize("../../etc/passwd"), "passwd");
        assert_eq!(sanitize("C:\\temp\\x.bat"), "x.bat");
        assert_eq!(sanitize(".hidden"), "hidden");
        assert_eq!(sanitize("a\"b\r\nc.txt"), "a_b__c.txt");
        let long = "é".repeat(150);
        let cut = sanitize(&long);
        assert!(cut.len() <= MAX_FILENAME_BYTES && cut.len() >= MAX_FILENAME_BYTES - 1);
        assert!(cut.chars().all(|c| c == 'é'));
    }
}
