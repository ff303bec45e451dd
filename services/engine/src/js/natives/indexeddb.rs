//! Natives for IndexedDB's committed state: loading, listing, deleting and
//! committing a database of the page's origin (`indexeddb.rs`). The API
//! scripts see is `js/indexeddb/`.

use rquickjs::{Ctx, Exception, Function, Object, Result};

use super::origin_for;
use crate::indexeddb;

/// The origin whose IndexedDB databases the page sees.
fn idb_origin<'js>(ctx: &Ctx<'js>) -> Result<String> {
    origin_for(ctx, "IndexedDB")
}

/// Add the indexeddb natives to `native`.
pub(super) fn install<'js>(ctx: &Ctx<'js>, native: &Object<'js>) -> Result<()> {
    macro_rules! def {
        ($name:literal, $f:expr) => {
            native.set($name, Function::new(ctx.clone(), $f)?)?;
        };
    }
    def!("idbOrigin", |ctx: Ctx<'js>| -> Result<String> {
        idb_origin(&ctx)
    });
    def!("idbLoad", |ctx: Ctx<'js>,
                     name: String|
     -> Result<Option<String>> {
        Ok(indexeddb::load(&idb_origin(&ctx)?, &name))
    });
    def!(
        "idbDatabases",
        |ctx: Ctx<'js>| -> Result<Vec<Vec<String>>> {
            // Versions go as strings: rquickjs has no u64 conversion and JS reads
            // them back with Number().
            Ok(indexeddb::databases(&idb_origin(&ctx)?)
                .into_iter()
                .map(|(name, version)| vec![name, version.to_string()])
                .collect())
        }
    );
    def!("idbDelete", |ctx: Ctx<'js>,
                       name: String|
     -> Result<Option<f64>> {
        Ok(indexeddb::delete(&idb_origin(&ctx)?, &name).map(|v| v as f64))
    });
    def!("idbCommit", |ctx: Ctx<'js>,
                       name: String,
                       ops: String|
     -> Result<()> {
        let origin = idb_origin(&ctx)?;
        indexeddb::commit(&origin, &name, &ops).map_err(|e| match e {
            indexeddb::CommitError::QuotaExceeded => Exception::throw_dom(
                &ctx,
                "QuotaExceededError",
                "The IndexedDB quota for this origin has been exceeded",
            ),
            indexeddb::CommitError::Invalid(reason) => Exception::throw_dom(
                &ctx,
                "UnknownError",
                &format!("The transaction could not be committed: {reason}"),
            ),
        })
    });
    Ok(())
}
