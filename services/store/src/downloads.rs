//! The downloads' contract and its SQL: one row per file a session's pages
//! downloaded (its name, type, size, source and state). The bytes are in
//! object storage (`fleet-media`), never here. [`GuardedDownloads`] puts it
//! behind the same outage breaker as the sessions.

use std::sync::Arc;

use async_trait::async_trait;
use sqlx::Row;
use sqlx::any::AnyRow;

use crate::sql::{SqlStore, to_i64, to_u64};
use crate::{Breaker, StoreError};

/// A download, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DownloadRow {
    /// A UUID.
    pub id: String,
    /// The tenant whose session downloaded it.
    pub tenant_id: String,
    /// The session.
    pub session_id: String,
    /// Safe to show and to put in a `Content-Disposition`.
    pub filename: String,
    /// Without parameters.
    pub mime_type: String,
    /// The URL the bytes came from (after redirects).
    pub source_url: String,
    /// Bytes kept (0 when failed).
    pub size_bytes: u64,
    /// `complete` or `failed`.
    pub status: String,
    /// Why it failed, shown to agents.
    pub error: Option<String>,
    /// Unix ms.
    pub created_at: i64,
    /// When the bytes and the row go, Unix ms.
    pub expires_at: i64,
}

/// Downloads in SQL.
#[async_trait]
pub trait DownloadStore: Send + Sync {
    /// Records a download (its bytes already stored when it is complete).
    async fn insert_download(&self, row: &DownloadRow) -> Result<(), StoreError>;
    /// A download by ID, whatever its tenant (callers check the tenant).
    async fn download(&self, id: &str) -> Result<Option<DownloadRow>, StoreError>;
    /// The session's downloads, oldest first.
    async fn session_downloads(&self, session_id: &str) -> Result<Vec<DownloadRow>, StoreError>;
    /// Downloads whose expiry is at or before `now`.
    async fn expired_downloads(&self, now: i64) -> Result<Vec<DownloadRow>, StoreError>;
    /// Deletes a download's row (its bytes first, by the caller).
    async fn delete_download(&self, id: &str) -> Result<(), StoreError>;
}

/// `SELECT` of every column of a download with the given `WHERE` condition:
/// a literal, so sqlx sees static SQL.
macro_rules! select_where {
    ($condition:literal) => {
        concat!(
            "SELECT id, tenant_id, session_id, filename, mime_type, source_url, size_bytes, ",
            "status, error, created_at, expires_at FROM downloads WHERE ",
            $condition
        )
    };
}

fn row_to_download(row: &AnyRow) -> Result<DownloadRow, StoreError> {
    let error: String = row.try_get("error")?;
    Ok(DownloadRow {
        id: row.try_get("id")?,
        tenant_id: row.try_get("tenant_id")?,
        session_id: row.try_get("session_id")?,
        filename: row.try_get("filename")?,
        mime_type: row.try_get("mime_type")?,
        source_url: row.try_get("source_url")?,
        size_bytes: to_u64(row.try_get("size_bytes")?),
        status: row.try_get("status")?,
        error: (!error.is_empty()).then_some(error),
        created_at: row.try_get("created_at")?,
        expires_at: row.try_get("expires_at")?,
    })
}

#[async_trait]
impl DownloadStore for SqlStore {
    async fn insert_download(&self, row: &DownloadRow) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO downloads (id, tenant_id, session_id, filename, mime_type, source_url, \
             size_bytes, status, error, created_at, expires_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
        )
        .bind(&row.id)
        .bind(&row.tenant_id)
        .bind(&row.session_id)
        .bind(&row.filename)
        .bind(&row.mime_type)
        .bind(&row.source_url)
        .bind(to_i64(row.size_bytes))
        .bind(&row.status)
        .bind(row.error.clone().unwrap_or_default())
        .bind(row.created_at)
        .bind(row.expires_at)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn download(&self, id: &str) -> Result<Option<DownloadRow>, StoreError> {
        let row = sqlx::query(select_where!("id = $1"))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(row_to_download).transpose()
    }

    async fn session_downloads(&self, session_id: &str) -> Result<Vec<DownloadRow>, StoreError> {
        let rows = sqlx::query(select_where!(
            "session_id = $1 ORDER BY created_at ASC, id ASC"
        ))
        .bind(session_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(row_to_download).collect()
    }

    async fn expired_downloads(&self, now: i64) -> Result<Vec<DownloadRow>, StoreError> {
        let rows = sqlx::query(select_where!(
            "expires_at <= $1 ORDER BY expires_at LIMIT 500"
        ))
        .bind(now)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(row_to_download).collect()
    }

    async fn delete_download(&self, id: &str) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM downloads WHERE id = $1")
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}

/// A [`DownloadStore`] behind the SQL store's breaker, so a database outage
/// answers fast here too.
pub struct GuardedDownloads {
    inner: Arc<dyn DownloadStore>,
    breaker: Arc<Breaker>,
}

impl GuardedDownloads {
    /// Guards `inner` with `breaker` (the sessions' breaker: one database).
    pub fn new(inner: Arc<dyn DownloadStore>, breaker: Arc<Breaker>) -> Self {
        Self { inner, breaker }
    }
}

#[async_trait]
impl DownloadStore for GuardedDownloads {
    async fn insert_download(&self, row: &DownloadRow) -> Result<(), StoreError> {
        self.breaker.call(self.inner.insert_download(row)).await
    }
    async fn download(&self, id: &str) -> Result<Option<DownloadRow>, StoreError> {
        self.breaker.call(self.inner.download(id)).await
    }
    async fn session_downloads(&self, session_id: &str) -> Result<Vec<DownloadRow>, StoreError> {
        self.breaker
            .call(self.inner.session_downloads(session_id))
            .await
    }
    async fn expired_downloads(&self, now: i64) -> Result<Vec<DownloadRow>, StoreError> {
        self.breaker.call(self.inner.expired_downloads(now)).await
    }
    async fn delete_download(&self, id: &str) -> Result<(), StoreError> {
        self.breaker.call(self.inner.delete_download(id)).await
    }
}

#[cfg(test)]
mod tests {
    use super::{DownloadRow, DownloadStore};
    use crate::SessionStore as _;
    use crate::sql::tests::sqlite;

    fn row(id: &str, tenant: &str, session: &str, created_at: i64) -> DownloadRow {
        DownloadRow {
            id: id.into(),
            tenant_id: tenant.into(),
            session_id: session.into(),
            filename: format!("{id}.csv"),
            mime_type: "text/csv".into(),
            source_url: "http://example.test/a.csv".into(),
            size_bytes: 10,
            status: "complete".into(),
            error: None,
            created_at,
            expires_at: created_at + 1_000,
        }
    }

    #[tokio::test]
    async fn a_sessions_downloads_are_listed_oldest_first_and_expire_at_their_time() {
        let s = sqlite().await;
        let t = s.ensure_tenant("a").await.unwrap();
        s.insert_download(&row("d2", &t.id, "s1", 200))
            .await
            .unwrap();
        s.insert_download(&row("d1", &t.id, "s1", 100))
            .await
            .unwrap();
        let mut failed = row("d3", &t.id, "s2", 150);
        failed.status = "failed".into();
        failed.size_bytes = 0;
        failed.error = Some("too large".into());
        s.insert_download(&failed).await.unwrap();
        let listed: Vec<_> = s
            .session_downloads("s1")
            .await
            .unwrap()
            .into_iter()
            .map(|r| r.id)
            .collect();
        assert_eq!(listed, ["d1", "d2"]);
        assert_eq!(s.download("d3").await.unwrap(), Some(failed));
        assert!(s.expired_downloads(1_099).await.unwrap().is_empty());
        let due: Vec<_> = s
            .expired_downloads(1_150)
            .await
            .unwrap()
            .into_iter()
            .map(|r| r.id)
            .collect();
        assert_eq!(due, ["d1", "d3"]);
        s.delete_download("d1").await.unwrap();
        assert!(s.download("d1").await.unwrap().is_none());
    }
}
