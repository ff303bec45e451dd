//! Natives for `localStorage` and `sessionStorage`: the tab's per-origin
//! areas in Rust (`storage.rs`), which snapshots carry. The first argument
//! of each picks the area: `true` for sessionStorage.

use rquickjs::{Ctx, Exception, Function, Object, Result};

use super::origin_for;
use crate::storage;

/// The storage area a storage native addresses (`session` comes from JS).
fn area(session: bool) -> storage::Area {
    if session {
        storage::Area::Session
    } else {
        storage::Area::Local
    }
}

/// The origin whose `localStorage`/`sessionStorage` the page sees.
fn storage_origin<'js>(ctx: &Ctx<'js>, area: storage::Area) -> Result<String> {
    origin_for(ctx, area.name())
}

/// Add the storage natives to `native`.
pub(super) fn install<'js>(ctx: &Ctx<'js>, native: &Object<'js>) -> Result<()> {
    macro_rules! def {
        ($name:literal, $f:expr) => {
            native.set($name, Function::new(ctx.clone(), $f)?)?;
        };
    }
    // The first argument picks the area: `true` for sessionStorage.
    def!("storageGet", |ctx: Ctx<'js>,
                        session: bool,
                        key: String|
     -> Result<Option<String>> {
        let area = area(session);
        Ok(storage::get(area, &storage_origin(&ctx, area)?, &key))
    });
    def!("storageSet", |ctx: Ctx<'js>,
                        session: bool,
                        key: String,
                        value: String|
     -> Result<()> {
        let area = area(session);
        let origin = storage_origin(&ctx, area)?;
        storage::set(area, &origin, &key, &value).map_err(|storage::StorageError::QuotaExceeded| {
            Exception::throw_dom(
                &ctx,
                "QuotaExceededError",
                &format!(
                    "The quota of {} for this origin has been exceeded",
                    area.name()
                ),
            )
        })
    });
    def!("storageRemove", |ctx: Ctx<'js>,
                           session: bool,
                           key: String|
     -> Result<()> {
        let area = area(session);
        storage::remove(area, &storage_origin(&ctx, area)?, &key);
        Ok(())
    });
    def!("storageClear", |ctx: Ctx<'js>,
                          session: bool|
     -> Result<()> {
        let area = area(session);
        storage::clear(area, &storage_origin(&ctx, area)?);
        Ok(())
    });
    def!("storageKey", |ctx: Ctx<'js>,
                        session: bool,
                        index: f64|
     -> Result<Option<String>> {
        let area = area(session);
        let origin = storage_origin(&ctx, area)?;
        if !(index >= 0.0 && index < u32::MAX as f64) {
            return Ok(None);
        }
        Ok(storage::key(area, &origin, index as usize))
    });
    def!("storageLength", |ctx: Ctx<'js>,
                           session: bool|
     -> Result<usize> {
        let area = area(session);
        Ok(storage::len(area, &storage_origin(&ctx, area)?))
    });
    def!("storageKeys", |ctx: Ctx<'js>,
                         session: bool|
     -> Result<Vec<String>> {
        let area = area(session);
        Ok(storage::keys(area, &storage_origin(&ctx, area)?))
    });
    Ok(())
}
