//! The lifecycle of API keys in the SQL store: create with a name and an
//! expiry, verify (only keys neither revoked nor expired), list (never the key,
//! only its prefix), revoke, and rotate (a new key for the same tenant; the old
//! one keeps working for a grace period, then expires).

use sqlx::Row;

use crate::{
    NewKey, SessionStore, SqlStore, StoreError, Tenant, generate_key, hash_key, key_prefix,
    now_millis,
};

/// Where a key stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyStatus {
    /// It authenticates.
    Active,
    /// Its expiry has passed.
    Expired,
    /// It was revoked.
    Revoked,
}

impl KeyStatus {
    /// The word listings print.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Active => "active",
            Self::Expired => "expired",
            Self::Revoked => "revoked",
        }
    }
}

/// A key as listed: everything but the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyInfo {
    /// The key's first characters ([`crate::KEY_PREFIX_CHARS`]).
    pub prefix: String,
    /// Its tenant's name.
    pub tenant: String,
    /// The name it was given (may be empty).
    pub name: String,
    /// Creation time, Unix ms.
    pub created_at: i64,
    /// When a gateway last verified it, Unix ms.
    pub last_used_at: Option<i64>,
    /// When it stops working, Unix ms.
    pub expires_at: Option<i64>,
    /// When it was revoked, Unix ms.
    pub revoked_at: Option<i64>,
}

impl KeyInfo {
    /// Where the key stands at `now_ms`.
    pub fn status(&self, now_ms: i64) -> KeyStatus {
        if self.revoked_at.is_some() {
            KeyStatus::Revoked
        } else if self.expires_at.is_some_and(|e| e <= now_ms) {
            KeyStatus::Expired
        } else {
            KeyStatus::Active
        }
    }
}

const LIST: &str = "SELECT k.prefix, t.name AS tenant, k.name, k.created_at, k.last_used_at, k.expires_at, k.revoked_at \
     FROM api_keys k JOIN tenants t ON t.id = k.tenant_id";

fn info(r: &sqlx::any::AnyRow) -> Result<KeyInfo, StoreError> {
    Ok(KeyInfo {
        prefix: r.try_get("prefix")?,
        tenant: r.try_get("tenant")?,
        name: r.try_get("name")?,
        created_at: r.try_get("created_at")?,
        last_used_at: r.try_get("last_used_at")?,
        expires_at: r.try_get("expires_at")?,
        revoked_at: r.try_get("revoked_at")?,
    })
}

impl SqlStore {
    /// Creates a key named `name` for the tenant named `tenant` (created if
    /// new), expiring at `expires_at` (Unix ms) if given.
    pub async fn create_named_key(
        &self,
        tenant: &str,
        name: &str,
        expires_at: Option<i64>,
    ) -> Result<NewKey, StoreError> {
        let tenant = self.ensure_tenant(tenant).await?;
        let key = generate_key();
        sqlx::query(
            "INSERT INTO api_keys (key_hash, tenant_id, prefix, created_at, name, expires_at) VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(hash_key(&key))
        .bind(&tenant.id)
        .bind(key_prefix(&key))
        .bind(now_millis())
        .bind(name)
        .bind(expires_at)
        .execute(&self.pool)
        .await?;
        Ok(NewKey { key, tenant })
    }

    /// The tenant of a key that is neither revoked nor expired; notes the use.
    pub(crate) async fn tenant_for_live_key(
        &self,
        key: &str,
    ) -> Result<Option<Tenant>, StoreError> {
        let hash = hash_key(key);
        let now = now_millis();
        let row = sqlx::query(
            "SELECT t.id, t.name FROM api_keys k JOIN tenants t ON t.id = k.tenant_id \
             WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > $2)",
        )
        .bind(&hash)
        .bind(now)
        .fetch_optional(&self.pool)
        .await?;
        let Some(r) = row else {
            return Ok(None);
        };
        // Gateways verify a key once per key-cache period, so this write is
        // rare; a failure must not refuse a valid key.
        if let Err(e) = sqlx::query("UPDATE api_keys SET last_used_at = $1 WHERE key_hash = $2")
            .bind(now)
            .bind(&hash)
            .execute(&self.pool)
            .await
        {
            tracing::warn!(error = %e, "could not note a key's use");
        }
        Ok(Some(Tenant {
            id: r.try_get("id")?,
            name: r.try_get("name")?,
        }))
    }

    /// Every key, or one tenant's, newest first.
    pub async fn list_keys(&self, tenant: Option<&str>) -> Result<Vec<KeyInfo>, StoreError> {
        let rows = match tenant {
            Some(t) => {
                sqlx::query(sqlx::AssertSqlSafe(format!(
                    "{LIST} WHERE t.name = $1 ORDER BY k.created_at DESC, k.prefix"
                )))
                .bind(t)
                .fetch_all(&self.pool)
                .await?
            }
            None => {
                sqlx::query(sqlx::AssertSqlSafe(format!(
                    "{LIST} ORDER BY k.created_at DESC, k.prefix"
                )))
                .fetch_all(&self.pool)
                .await?
            }
        };
        rows.iter().map(info).collect()
    }

    /// The one key named by `which`: its listed prefix, or the whole key. A
    /// clear error when there is none or (a prefix of) more than one.
    async fn find_key(&self, which: &str) -> Result<(String, KeyInfo), StoreError> {
        let (column, value) = if which.len() > crate::KEY_PREFIX_CHARS {
            ("k.key_hash", hash_key(which))
        } else {
            ("k.prefix", which.to_owned())
        };
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT k.key_hash, k.prefix, t.name AS tenant, k.name, k.created_at, k.last_used_at, k.expires_at, k.revoked_at \
             FROM api_keys k JOIN tenants t ON t.id = k.tenant_id WHERE {column} = $1"
        )))
        .bind(&value)
        .fetch_all(&self.pool)
        .await?;
        match rows.as_slice() {
            [] => Err(StoreError::InvalidConfig(format!(
                "no key has the prefix {which:?} (`servo-fleet keys list` shows them)"
            ))),
            [r] => Ok((r.try_get("key_hash")?, info(r)?)),
            _ => Err(StoreError::InvalidConfig(format!(
                "{} keys share the prefix {which:?}; name the key by the whole key instead",
                rows.len()
            ))),
        }
    }

    /// Revokes the key with `prefix`; it stops working at once in the database
    /// (gateways that verified it lately trust it for their key-cache period).
    pub async fn revoke_key(&self, prefix: &str) -> Result<KeyInfo, StoreError> {
        let (hash, mut key) = self.find_key(prefix).await?;
        if key.revoked_at.is_none() {
            let now = now_millis();
            sqlx::query("UPDATE api_keys SET revoked_at = $1 WHERE key_hash = $2")
                .bind(now)
                .bind(&hash)
                .execute(&self.pool)
                .await?;
            key.revoked_at = Some(now);
        }
        Ok(key)
    }

    /// Rotates the key with `prefix`: a new key for the same tenant with the
    /// same name and expiry; the old key expires `grace_ms` from now (or at
    /// its own expiry, if sooner). A revoked or expired key is not rotated.
    pub async fn rotate_key(
        &self,
        prefix: &str,
        grace_ms: i64,
    ) -> Result<(NewKey, KeyInfo), StoreError> {
        let (hash, mut old) = self.find_key(prefix).await?;
        let now = now_millis();
        if old.status(now) != KeyStatus::Active {
            return Err(StoreError::InvalidConfig(format!(
                "the key {prefix} is {}; create a new key instead",
                old.status(now).as_str()
            )));
        }
        let new = self
            .create_named_key(&old.tenant, &old.name, old.expires_at)
            .await?;
        let ends = old
            .expires_at
            .map_or(now + grace_ms, |e| e.min(now + grace_ms));
        sqlx::query("UPDATE api_keys SET expires_at = $1 WHERE key_hash = $2")
            .bind(ends)
            .bind(&hash)
            .execute(&self.pool)
            .await?;
        old.expires_at = Some(ends);
        Ok((new, old))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn sqlite() -> SqlStore {
        let store = SqlStore::connect("sqlite::memory:").await.unwrap();
        store.migrate().await.unwrap();
        store
    }

    #[tokio::test]
    async fn a_revoked_key_and_an_expired_key_find_no_tenant() {
        let s = sqlite().await;
        let live = s.create_named_key("acme", "ci", None).await.unwrap();
        let revoked = s.create_named_key("acme", "old", None).await.unwrap();
        let expired = s
            .create_named_key("acme", "temp", Some(now_millis() - 1))
            .await
            .unwrap();
        s.revoke_key(&key_prefix(&revoked.key)).await.unwrap();
        assert!(s.tenant_for_key(&live.key).await.unwrap().is_some());
        assert_eq!(s.tenant_for_key(&revoked.key).await.unwrap(), None);
        assert_eq!(s.tenant_for_key(&expired.key).await.unwrap(), None);
        assert_eq!(s.key_count().await.unwrap(), 2, "revoked keys do not count");
    }

    #[tokio::test]
    async fn listing_shows_prefixes_names_use_and_status_but_never_the_key() {
        let s = sqlite().await;
        let a = s.create_named_key("acme", "ci", None).await.unwrap();
        s.create_named_key("other", "", None).await.unwrap();
        s.tenant_for_key(&a.key).await.unwrap();
        let listed = s.list_keys(Some("acme")).await.unwrap();
        assert_eq!(listed.len(), 1);
        let k = &listed[0];
        assert_eq!(k.prefix, key_prefix(&a.key));
        assert_eq!((k.tenant.as_str(), k.name.as_str()), ("acme", "ci"));
        assert!(k.last_used_at.is_some());
        assert_eq!(k.status(now_millis()), KeyStatus::Active);
        assert!(!format!("{k:?}").contains(&a.key[crate::KEY_PREFIX_CHARS..]));
        assert_eq!(s.list_keys(None).await.unwrap().len(), 2);
    }

    #[tokio::test]
    async fn a_rotated_key_works_through_its_grace_and_the_new_one_at_once() {
        let s = sqlite().await;
        let old = s.create_named_key("acme", "ci", None).await.unwrap();
        let (new, before) = s.rotate_key(&key_prefix(&old.key), 60_000).await.unwrap();
        assert_eq!(new.tenant, old.tenant);
        assert!(before.expires_at.is_some_and(|e| e > now_millis()));
        assert!(s.tenant_for_key(&old.key).await.unwrap().is_some());
        assert!(s.tenant_for_key(&new.key).await.unwrap().is_some());
        // A zero grace ends the old key now.
        let (_, ended) = s.rotate_key(&key_prefix(&new.key), 0).await.unwrap();
        assert_eq!(s.tenant_for_key(&new.key).await.unwrap(), None);
        assert_eq!(ended.status(now_millis()), KeyStatus::Expired);
        let err = s.rotate_key(&key_prefix(&new.key), 0).await.unwrap_err();
        assert!(err.to_string().contains("expired"), "{err}");
        let err = s.revoke_key("sfk_nothing").await.unwrap_err();
        assert!(err.to_string().contains("no key has the prefix"), "{err}");
    }
}
