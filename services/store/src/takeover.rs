//! The SQL half of epoch fencing. Redis hands a session to a new owner under a
//! higher epoch, but a call already running on the old owner passed its route
//! check before that; only the SQL store can stop it from saving afterwards. So
//! a new owner takes the session over here, raising the stored epoch in the same
//! transaction that reads the checkpoint: an old owner's save that commits
//! before it is read back, and one that comes later is refused as stale. Either
//! way no call acknowledged by the old owner is silently overwritten.

use sqlx::Row;

use crate::sql::{Backend, read_parts, to_i64, to_u64};
use crate::{SqlStore, StoreError, StoredCheckpoint};

impl SqlStore {
    /// Takes the session over for an owner at `epoch` and returns its latest
    /// checkpoint. The checkpoint's epoch is the one stored before the
    /// takeover (the newest owner that saved or took it over), so a caller can
    /// tell whether a copy of its own is newer.
    pub(crate) async fn take_over_checkpoint(
        &self,
        id: &str,
        epoch: u64,
    ) -> Result<Option<StoredCheckpoint>, StoreError> {
        let mut tx = self.pool.begin().await?;
        // Postgres: lock the row until commit, so a save by an older owner
        // waits and then sees the raised epoch. SQLite has one writer anyway.
        let select = match self.backend {
            Backend::Postgres => "SELECT epoch FROM sessions WHERE id = $1 FOR UPDATE",
            Backend::Sqlite => "SELECT epoch FROM sessions WHERE id = $1",
        };
        let Some(row) = sqlx::query(select)
            .bind(id)
            .fetch_optional(&mut *tx)
            .await?
        else {
            return Err(StoreError::NotFound);
        };
        let stored = to_u64(row.try_get("epoch")?);
        if stored > epoch {
            return Err(StoreError::StaleEpoch {
                given: epoch,
                current: stored,
            });
        }
        sqlx::query("UPDATE sessions SET epoch = $2 WHERE id = $1")
            .bind(id)
            .bind(to_i64(epoch))
            .execute(&mut *tx)
            .await?;
        let parts = read_parts(&mut tx, id).await?;
        tx.commit().await?;
        Ok(parts.map(|parts| StoredCheckpoint {
            epoch: stored,
            parts,
        }))
    }
}
