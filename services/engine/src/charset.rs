//! Decoding response bodies to text.
//!
//! Most of the web is UTF-8, but older pages still arrive as latin1 /
//! windows-1252 (and other legacy encodings) announced in the `Content-Type`
//! header or a `<meta charset>`. `encoding_rs` is already in the dependency tree
//! (Stylo uses it), so the WHATWG encoding labels come for free.

use encoding_rs::{Encoding, WINDOWS_1252};

/// The `charset` parameter of a `Content-Type` value, if any.
pub(crate) fn charset_param(content_type: &str) -> Option<&str> {
    content_type.split(';').skip(1).find_map(|param| {
        let (name, value) = param.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| value.trim().trim_matches(|c| c == '"' || c == '\''))
    })
}

/// Decode with an explicit encoding; the BOM, when present, wins (as in browsers).
fn decode_with(bytes: &[u8], encoding: &'static Encoding) -> String {
    let (text, _, _) = encoding.decode(bytes);
    text.into_owned()
}

/// Decode an HTML document: BOM, then the `Content-Type` charset, then a
/// `<meta charset>` in the first 1024 bytes, then UTF-8 if the bytes are valid
/// UTF-8, else windows-1252 (the web's legacy default).
pub(crate) fn decode_html(bytes: &[u8], content_type: Option<&str>) -> String {
    if let Some((encoding, _)) = Encoding::for_bom(bytes) {
        return decode_with(bytes, encoding);
    }
    let declared = content_type
        .and_then(charset_param)
        .and_then(|label| Encoding::for_label(label.as_bytes()))
        .or_else(|| prescan_meta(&bytes[..bytes.len().min(1024)]));
    if let Some(encoding) = declared {
        // A document cannot really be UTF-16 if its meta tag was readable as
        // ASCII; `output_encoding` maps UTF-16/replacement to UTF-8 as the spec says.
        return decode_with(bytes, encoding.output_encoding());
    }
    decode_sniffed(bytes)
}

/// Decode a non-HTML text resource (script, stylesheet) using its
/// `Content-Type` charset, else UTF-8 when valid, else windows-1252.
pub(crate) fn decode_text(bytes: &[u8], content_type: Option<&str>) -> String {
    if let Some((encoding, _)) = Encoding::for_bom(bytes) {
        return decode_with(bytes, encoding);
    }
    match content_type
        .and_then(charset_param)
        .and_then(|label| Encoding::for_label(label.as_bytes()))
    {
        Some(encoding) => decode_with(bytes, encoding),
        None => decode_sniffed(bytes),
    }
}

fn decode_sniffed(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_owned(),
        Err(_) => decode_with(bytes, WINDOWS_1252),
    }
}

/// A cut-down version of the HTML spec's encoding prescan: finds `charset=` (or
/// `charset =`) inside the first `<meta ...>` tags, which covers both
/// `<meta charset="x">` and `<meta http-equiv=content-type content="...; charset=x">`.
fn prescan_meta(head: &[u8]) -> Option<&'static Encoding> {
    let lower: Vec<u8> = head.iter().map(u8::to_ascii_lowercase).collect();
    let mut rest = lower.as_slice();
    while let Some(start) = find(rest, b"<meta") {
        let tag = &rest[start..];
        let end = tag.iter().position(|&b| b == b'>').unwrap_or(tag.len());
        let tag = &tag[..end];
        if let Some(pos) = find(tag, b"charset") {
            let mut value = &tag[pos + b"charset".len()..];
            value = trim_start(value);
            if let Some(after_eq) = value.strip_prefix(b"=") {
                let value = trim_start(after_eq);
                let value = value
                    .strip_prefix(b"\"")
                    .or_else(|| value.strip_prefix(b"'"))
                    .unwrap_or(value);
                let len = value
                    .iter()
                    .position(|b| matches!(b, b'"' | b'\'' | b';' | b'/' | b' ' | b'\t' | b'\n'))
                    .unwrap_or(value.len());
                if let Some(encoding) = Encoding::for_label(&value[..len]) {
                    return Some(encoding);
                }
            }
        }
        rest = &rest[start + end.max(1)..];
    }
    None
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn trim_start(bytes: &[u8]) -> &[u8] {
    let skip = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    &bytes[skip..]
}

/// Whether `bytes` are UTF-8 already (the common case, which needs no copy).
pub(crate) fn is_utf8(bytes: &[u8]) -> bool {
    std::str::from_utf8(bytes).is_ok()
}
