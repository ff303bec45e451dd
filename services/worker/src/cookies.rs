//! The cookie tools on a session's jar (the host-side jar every request of the
//! session's pages goes through, HttpOnly cookies included): list them in
//! Playwright's shape, set, delete and clear. The checkpoint after the call
//! keeps the change.

use fleet_proto::MAX_COOKIES_PER_SET;
use fleet_proto::v1::{self as pb, ErrorCode};
use url::Url;

use crate::failure::Failure;
use crate::net::CookieStore;

fn invalid(m: String) -> Failure {
    Failure::new(ErrorCode::InvalidArgument, m)
}

/// Runs one cookie action on `jar`.
pub fn run(jar: &mut CookieStore, op: pb::cookies::Op) -> Result<pb::CookiesResult, Failure> {
    match op {
        pb::cookies::Op::Get(get) => {
            let urls = get
                .urls
                .iter()
                .map(|u| {
                    Url::parse(u).map_err(|e| invalid(format!("urls: {u:?} is not a URL: {e}")))
                })
                .collect::<Result<Vec<_>, _>>()?;
            let cookies = jar
                .iter_unexpired()
                .filter(|c| urls.is_empty() || urls.iter().any(|u| c.matches(u)))
                .map(shape)
                .collect();
            Ok(pb::CookiesResult {
                cookies,
                changed: 0,
            })
        }
        pb::cookies::Op::Set(set) => {
            if set.cookies.is_empty() || set.cookies.len() > MAX_COOKIES_PER_SET {
                return Err(invalid(format!(
                    "cookies must hold 1 to {MAX_COOKIES_PER_SET} cookies; got {}",
                    set.cookies.len()
                )));
            }
            // All or none: every cookie is checked on a copy first.
            let mut next = jar.clone();
            for (i, c) in set.cookies.iter().enumerate() {
                let (line, url) =
                    set_cookie_line(c).map_err(|m| invalid(format!("cookies[{i}]: {m}")))?;
                next.parse(&line, &url)
                    .map_err(|e| invalid(format!("cookies[{i}] was refused: {e}")))?;
            }
            *jar = next;
            Ok(pb::CookiesResult {
                cookies: jar.iter_unexpired().map(shape).collect(),
                changed: u32::try_from(set.cookies.len()).unwrap_or(u32::MAX),
            })
        }
        pb::cookies::Op::Delete(del) => {
            let doomed: Vec<(String, String, String)> = jar
                .iter_any()
                .filter(|c| c.name() == del.name)
                .filter(|c| del.domain.is_empty() || domain_of(c) == del.domain)
                .filter(|c| del.path.is_empty() || String::from(&c.path) == del.path)
                .map(|c| (stored_domain(c), String::from(&c.path), c.name().to_owned()))
                .collect();
            for (domain, path, name) in &doomed {
                jar.remove(domain, path, name);
            }
            Ok(pb::CookiesResult {
                cookies: jar.iter_unexpired().map(shape).collect(),
                changed: u32::try_from(doomed.len()).unwrap_or(u32::MAX),
            })
        }
        pb::cookies::Op::Clear(_) => {
            let n = jar.iter_any().count();
            jar.clear();
            Ok(pb::CookiesResult {
                cookies: Vec::new(),
                changed: u32::try_from(n).unwrap_or(u32::MAX),
            })
        }
    }
}

/// Every unexpired cookie of the jar, in Playwright's shape.
pub fn all(jar: &CookieStore) -> Vec<pb::Cookie> {
    jar.iter_unexpired().map(shape).collect()
}

/// The domain as the jar files it (no leading dot).
fn stored_domain(c: &cookie_store::Cookie<'_>) -> String {
    String::from(&c.domain)
}

/// The domain as Playwright shows it: a leading dot when subdomains get the
/// cookie too.
fn domain_of(c: &cookie_store::Cookie<'_>) -> String {
    match &c.domain {
        cookie_store::CookieDomain::Suffix(d) => format!(".{d}"),
        other => String::from(other),
    }
}

fn shape(c: &cookie_store::Cookie<'_>) -> pb::Cookie {
    let expires = match &c.expires {
        cookie_store::CookieExpiration::AtUtc(t) => t.unix_timestamp() as f64,
        cookie_store::CookieExpiration::SessionEnd => -1.0,
    };
    let same_site = match c.same_site() {
        Some(s) if s.is_strict() => "Strict",
        Some(s) if s.is_none() => "None",
        _ => "Lax",
    };
    pb::Cookie {
        name: c.name().to_owned(),
        value: c.value().to_owned(),
        domain: domain_of(c),
        path: String::from(&c.path),
        expires,
        http_only: c.http_only().unwrap_or(false),
        secure: c.secure().unwrap_or(false),
        same_site: same_site.into(),
    }
}

/// A cookie to set as the `Set-Cookie` line and the URL it comes from.
fn set_cookie_line(c: &pb::CookieInput) -> Result<(String, Url), String> {
    let token_ok = |s: &str| !s.is_empty() && fleet_proto::http::is_token(s);
    if !token_ok(&c.name) {
        return Err(format!("name {:?} is not a cookie name", c.name));
    }
    if c.value
        .chars()
        .any(|ch| matches!(ch, ';' | '\r' | '\n' | '\0'))
    {
        return Err("value holds ';', a line break or NUL".into());
    }
    let mut line = format!("{}={}", c.name, c.value);
    let url = match (c.url.is_empty(), c.domain.is_empty()) {
        (false, true) => Url::parse(&c.url).map_err(|e| format!("url {:?}: {e}", c.url))?,
        (true, false) => {
            let host = c.domain.trim_start_matches('.');
            if host.is_empty() || host.contains(['/', ':', ' ']) {
                return Err(format!("domain {:?} is not a host", c.domain));
            }
            if c.domain.starts_with('.') {
                line.push_str(&format!("; Domain={host}"));
            }
            let scheme = if c.secure { "https" } else { "http" };
            Url::parse(&format!("{scheme}://{host}/"))
                .map_err(|e| format!("domain {:?}: {e}", c.domain))?
        }
        _ => return Err("give exactly one of url or domain".into()),
    };
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("url {:?} is not http(s)", c.url));
    }
    line.push_str(&format!(
        "; Path={}",
        if c.path.is_empty() { "/" } else { &c.path }
    ));
    if let Some(at) = c.expires.filter(|e| *e >= 0.0) {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64());
        // Max-Age counts from now; a time already past deletes the cookie.
        line.push_str(&format!("; Max-Age={}", (at - now).ceil().max(0.0) as i64));
    }
    if c.http_only {
        line.push_str("; HttpOnly");
    }
    if c.secure {
        line.push_str("; Secure");
    }
    match c.same_site.as_str() {
        "" | "Lax" => line.push_str("; SameSite=Lax"),
        "Strict" => line.push_str("; SameSite=Strict"),
        "None" if c.secure => line.push_str("; SameSite=None"),
        "None" => return Err("sameSite None needs secure".into()),
        other => {
            return Err(format!(
                "sameSite must be Strict, Lax or None; got {other:?}"
            ));
        }
    }
    Ok((line, url))
}
