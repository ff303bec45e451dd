//! The storage tools on a session: localStorage and sessionStorage read from
//! the tab's own state (every origin the session visited), changed through
//! the page (as its scripts would), and the whole storage state — cookies
//! and localStorage, Playwright's `storageState` — exported and imported.
//! An import merges into the tab's storage and reloads the page, so its
//! scripts start with the imported state, as a browser context created with
//! a storage state does.

use std::collections::BTreeMap;
use std::time::Duration;

use fleet_proto::v1::{self as pb, ErrorCode};

use crate::failure::Failure;
use crate::host::{StatePart, Tab};

/// Key/value pairs per origin, as the engine's storage parts hold them.
type Areas = BTreeMap<String, Vec<(String, String)>>;

fn invalid(m: impl Into<String>) -> Failure {
    Failure::new(ErrorCode::InvalidArgument, m)
}

/// The engine's part name and the page's global for an area.
fn area(name: &str) -> Result<(&'static str, &'static str), Failure> {
    match name {
        "" | "local" => Ok(("local-storage", "localStorage")),
        "session" => Ok(("session-storage", "sessionStorage")),
        other => Err(invalid(format!(
            "area must be local or session; got {other:?}"
        ))),
    }
}

fn read(parts: &[StatePart], part: &str) -> Result<Areas, Failure> {
    match parts.iter().find(|p| p.name == part) {
        None => Ok(Areas::new()),
        Some(p) => serde_json::from_slice(&p.data).map_err(|e| {
            Failure::new(
                ErrorCode::Internal,
                format!("the tab's {part} could not be read: {e}"),
            )
        }),
    }
}

fn origins(areas: Areas, only: &str) -> Vec<pb::OriginStorage> {
    areas
        .into_iter()
        .filter(|(origin, items)| (only.is_empty() || origin == only) && !items.is_empty())
        .map(|(origin, items)| pb::OriginStorage {
            origin,
            items: items
                .into_iter()
                .map(|(name, value)| pb::StorageItem { name, value })
                .collect(),
        })
        .collect()
}

/// Runs a script in the page; its value, or why it failed.
async fn in_page(tab: &mut Tab, script: &str, budget: Duration) -> Result<String, Failure> {
    tab.evaluate(script, budget).await?.map_err(|e| {
        invalid(format!(
            "the page's storage could not be changed: {}",
            Failure::from(e).message
        ))
    })
}

/// Runs one storage action.
pub async fn run(
    tab: &mut Tab,
    op: pb::storage::Op,
    budget: Duration,
) -> Result<pb::StorageResult, Failure> {
    match op {
        pb::storage::Op::Get(get) => {
            let (part, _) = area(&get.area)?;
            let parts = tab.snapshot(budget).await?;
            Ok(pb::StorageResult {
                origins: origins(read(&parts, part)?, &get.origin),
                cookies: Vec::new(),
            })
        }
        pb::storage::Op::Set(set) => {
            let (part, global) = area(&set.area)?;
            let pairs: Vec<(&str, &str)> = set
                .items
                .iter()
                .map(|i| (i.name.as_str(), i.value.as_str()))
                .collect();
            // The items travel as a JSON string literal inside the script.
            let literal = serde_json::to_string(&serde_json::to_string(&pairs).unwrap_or_default())
                .unwrap_or_default();
            let script = format!(
                "(() => {{ for (const [k, v] of JSON.parse({literal})) {global}.setItem(k, v); return location.origin; }})()"
            );
            let origin: String =
                serde_json::from_str(&in_page(tab, &script, budget).await?).unwrap_or_default();
            let parts = tab.snapshot(budget).await?;
            Ok(pb::StorageResult {
                origins: origins(read(&parts, part)?, &origin),
                cookies: Vec::new(),
            })
        }
        pb::storage::Op::Clear(clear) => {
            let (part, global) = area(&clear.area)?;
            in_page(tab, &format!("{global}.clear()"), budget).await?;
            let parts = tab.snapshot(budget).await?;
            Ok(pb::StorageResult {
                origins: origins(read(&parts, part)?, ""),
                cookies: Vec::new(),
            })
        }
        pb::storage::Op::ExportState(_) => {
            let parts = tab.snapshot(budget).await?;
            Ok(pb::StorageResult {
                origins: origins(read(&parts, "local-storage")?, ""),
                cookies: crate::cookies::all(tab.cookies_mut()),
            })
        }
        pb::storage::Op::ImportState(state) => {
            if !state.cookies.is_empty() {
                crate::cookies::run(
                    tab.cookies_mut(),
                    pb::cookies::Op::Set(pb::CookieSet {
                        cookies: state.cookies,
                    }),
                )?;
            }
            if !state.origins.is_empty() {
                let mut parts = tab.snapshot(budget).await?;
                let mut local = read(&parts, "local-storage")?;
                for o in state.origins {
                    let url = url::Url::parse(&o.origin).map_err(|e| {
                        invalid(format!("origin {:?} is not an origin: {e}", o.origin))
                    })?;
                    let origin = url.origin().ascii_serialization();
                    let items = local.entry(origin).or_default();
                    for item in o.items {
                        match items.iter_mut().find(|(k, _)| *k == item.name) {
                            Some(slot) => slot.1 = item.value,
                            None => items.push((item.name, item.value)),
                        }
                    }
                }
                let data = serde_json::to_vec(&local).unwrap_or_default();
                parts.retain(|p| p.name != "local-storage");
                parts.push(StatePart {
                    name: "local-storage".into(),
                    data,
                });
                tab.restore(&parts, budget).await?.map_err(|e| {
                    Failure::new(
                        ErrorCode::Internal,
                        format!("the storage could not be applied: {e}"),
                    )
                })?;
            }
            let parts = tab.snapshot(budget).await?;
            Ok(pb::StorageResult {
                origins: origins(read(&parts, "local-storage")?, ""),
                cookies: crate::cookies::all(tab.cookies_mut()),
            })
        }
    }
}
