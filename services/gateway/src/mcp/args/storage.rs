//! Arguments of the storage tools: `area` (`local` or `session`), `origin`,
//! `items` (key to value), and Playwright's `storageState` object.

use fleet_proto::v1 as pb;
use rmcp::model::JsonObject;
use serde_json::Value;

use super::super::tools::ToolKind;
use super::cookies::cookie_input;
use super::{invalid, string_at};
use crate::error::GatewayError;

/// `{name, value}` objects, as Playwright lists an origin's localStorage.
fn items(list: &Value, at: &str) -> Result<Vec<pb::StorageItem>, GatewayError> {
    let list = list
        .as_array()
        .ok_or_else(|| invalid(format!("{at} must be an array of {{name, value}}")))?;
    list.iter()
        .enumerate()
        .map(|(j, item)| {
            let at = format!("{at}[{j}]");
            let o = item
                .as_object()
                .ok_or_else(|| invalid(format!("{at} must be an object")))?;
            match (o.get("name"), o.get("value")) {
                (Some(Value::String(name)), Some(Value::String(value))) => Ok(pb::StorageItem {
                    name: name.clone(),
                    value: value.clone(),
                }),
                _ => Err(invalid(format!("{at} needs string name and value"))),
            }
        })
        .collect()
}

/// The storage action of `tool` from action `i`'s fields.
pub(super) fn parse_storage(
    tool: ToolKind,
    i: usize,
    obj: &JsonObject,
) -> Result<pb::Storage, GatewayError> {
    let at = format!("actions[{i}]");
    let area = string_at(obj, "area", &at)?;
    let op = match tool {
        ToolKind::StorageGet => pb::storage::Op::Get(pb::StorageGet {
            area,
            origin: string_at(obj, "origin", &at)?,
        }),
        ToolKind::StorageSet => {
            let map = match obj.get("items") {
                Some(Value::Object(m)) => m,
                Some(_) => {
                    return Err(invalid(format!(
                        "{at}.items must be an object of key to value"
                    )));
                }
                None => return Err(invalid(format!("{at}.items is required"))),
            };
            let items = map
                .iter()
                .map(|(k, v)| match v {
                    Value::String(s) => Ok(pb::StorageItem {
                        name: k.clone(),
                        value: s.clone(),
                    }),
                    _ => Err(invalid(format!("{at}.items.{k} must be a string"))),
                })
                .collect::<Result<_, _>>()?;
            pb::storage::Op::Set(pb::StorageSet { area, items })
        }
        ToolKind::StorageClear => pb::storage::Op::Clear(pb::StorageClear { area }),
        ToolKind::StorageStateExport => pb::storage::Op::ExportState(pb::StorageStateExport {}),
        _ => {
            let at = format!("{at}.storageState");
            let state = match obj.get("storageState") {
                Some(Value::Object(m)) => m,
                Some(_) => return Err(invalid(format!("{at} must be an object"))),
                None => return Err(invalid(format!("{at} is required"))),
            };
            if let Some(k) = state
                .keys()
                .find(|k| !matches!(k.as_str(), "cookies" | "origins"))
            {
                return Err(invalid(format!("{at} has an unknown field {k:?}")));
            }
            let cookies = match state.get("cookies") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(a)) => a
                    .iter()
                    .enumerate()
                    .map(|(j, c)| cookie_input(c, &format!("{at}.cookies[{j}]")))
                    .collect::<Result<_, _>>()?,
                Some(_) => return Err(invalid(format!("{at}.cookies must be an array"))),
            };
            let origins = match state.get("origins") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(a)) => a
                    .iter()
                    .enumerate()
                    .map(|(j, o)| {
                        let at = format!("{at}.origins[{j}]");
                        let o = o
                            .as_object()
                            .ok_or_else(|| invalid(format!("{at} must be an object")))?;
                        Ok(pb::OriginStorage {
                            origin: string_at(o, "origin", &at)?,
                            items: match o.get("localStorage") {
                                None | Some(Value::Null) => Vec::new(),
                                Some(list) => items(list, &format!("{at}.localStorage"))?,
                            },
                        })
                    })
                    .collect::<Result<_, GatewayError>>()?,
                Some(_) => return Err(invalid(format!("{at}.origins must be an array"))),
            };
            pb::storage::Op::ImportState(pb::StorageStateImport { cookies, origins })
        }
    };
    Ok(pb::Storage { op: Some(op) })
}
