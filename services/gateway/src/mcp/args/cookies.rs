//! Arguments of the cookie tools, in Playwright's names: `urls` to filter a
//! read; `cookies: [{name, value, url | domain, path, expires, httpOnly,
//! secure, sameSite}]` to set; `name`, `domain`, `path` to delete.

use fleet_proto::v1 as pb;
use rmcp::model::JsonObject;
use serde_json::Value;

use super::super::tools::ToolKind;
use super::{flag_at, invalid, string_at};
use crate::error::GatewayError;

/// One cookie object (Playwright's fields) at `at`.
pub(super) fn cookie_input(c: &Value, at: &str) -> Result<pb::CookieInput, GatewayError> {
    let c = c
        .as_object()
        .ok_or_else(|| invalid(format!("{at} must be an object")))?;
    let known = [
        "name", "value", "url", "domain", "path", "expires", "httpOnly", "secure", "sameSite",
    ];
    if let Some(k) = c.keys().find(|k| !known.contains(&k.as_str())) {
        return Err(invalid(format!("{at} has an unknown field {k:?}")));
    }
    if !c.contains_key("name") || !c.contains_key("value") {
        return Err(invalid(format!("{at} needs name and value")));
    }
    let expires = match c.get("expires") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_f64()
                .ok_or_else(|| invalid(format!("{at}.expires must be Unix seconds")))?,
        ),
    };
    Ok(pb::CookieInput {
        name: string_at(c, "name", at)?,
        value: string_at(c, "value", at)?,
        url: string_at(c, "url", at)?,
        domain: string_at(c, "domain", at)?,
        path: string_at(c, "path", at)?,
        expires,
        http_only: flag_at(c, "httpOnly", at)?,
        secure: flag_at(c, "secure", at)?,
        same_site: string_at(c, "sameSite", at)?,
    })
}

/// The cookie action of `tool` from action `i`'s fields.
pub(super) fn parse_cookies(
    tool: ToolKind,
    i: usize,
    obj: &JsonObject,
) -> Result<pb::Cookies, GatewayError> {
    let at = format!("actions[{i}]");
    let op = match tool {
        ToolKind::CookiesGet => {
            let urls = match obj.get("urls") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|u| {
                        u.as_str()
                            .map(str::to_owned)
                            .ok_or_else(|| invalid(format!("{at}.urls must hold strings")))
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => return Err(invalid(format!("{at}.urls must be an array of URLs"))),
            };
            pb::cookies::Op::Get(pb::CookieList { urls })
        }
        ToolKind::CookiesSet => {
            let list = match obj.get("cookies") {
                Some(Value::Array(a)) => a,
                Some(_) => return Err(invalid(format!("{at}.cookies must be an array"))),
                None => return Err(invalid(format!("{at}.cookies is required"))),
            };
            let cookies = list
                .iter()
                .enumerate()
                .map(|(j, c)| cookie_input(c, &format!("{at}.cookies[{j}]")))
                .collect::<Result<_, _>>()?;
            pb::cookies::Op::Set(pb::CookieSet { cookies })
        }
        ToolKind::CookiesDelete => {
            let name = string_at(obj, "name", &at)?;
            if name.is_empty() {
                return Err(invalid(format!("{at}.name is required")));
            }
            pb::cookies::Op::Delete(pb::CookieDelete {
                name,
                domain: string_at(obj, "domain", &at)?,
                path: string_at(obj, "path", &at)?,
            })
        }
        _ => pb::cookies::Op::Clear(pb::CookieClear {}),
    };
    Ok(pb::Cookies { op: Some(op) })
}
