//! The session store's contract: the [`SessionStore`] trait every SQL backend
//! (and the outage guard around it) implements, and the types that cross it —
//! tenants, keys, session rows, checkpoints in named, hashed parts and what
//! writing one cost. How the rows are kept is [`crate::SqlStore`]'s business;
//! callers see only this.

use async_trait::async_trait;
use sha2::Digest as _;

use crate::{SessionStatus, StoreError, TenantLimits};

/// Unix time in milliseconds.
pub fn now_millis() -> i64 {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    i64::try_from(since.as_millis()).unwrap_or(i64::MAX)
}

/// A tenant: the unit of isolation. Keys and sessions belong to exactly one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tenant {
    /// Opaque ID.
    pub id: String,
    /// Human name, unique.
    pub name: String,
}

/// A key just created; `key` is shown once and never stored.
#[derive(Debug, Clone)]
pub struct NewKey {
    /// The secret.
    pub key: String,
    /// Its tenant.
    pub tenant: Tenant,
}

/// A session as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRow {
    /// Session ID (UUID text).
    pub id: String,
    /// Owning tenant.
    pub tenant_id: String,
    /// Usable or failed.
    pub status: SessionStatus,
    /// Viewport width.
    pub width: u32,
    /// Viewport height.
    pub height: u32,
    /// Highest epoch that wrote a snapshot.
    pub epoch: u64,
    /// URL at the last checkpoint.
    pub url: String,
    /// Title at the last checkpoint.
    pub title: String,
    /// Creation time, Unix ms.
    pub created_at: i64,
    /// Last completed call, Unix ms.
    pub updated_at: i64,
    /// Expiry if unused, Unix ms.
    pub expires_at: i64,
    /// Why the session failed; empty while it is usable.
    pub failure: String,
}

impl SessionRow {
    /// Whether the session is past its expiry (it may not be swept yet).
    pub fn expired(&self, now_ms: i64) -> bool {
        self.expires_at <= now_ms
    }
}

/// A stored checkpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredCheckpoint {
    /// The epoch of the owner that wrote it last.
    pub epoch: u64,
    /// Its named parts, sorted by name.
    pub parts: Vec<(String, Vec<u8>)>,
}

/// One named part of a checkpoint to write, with the hash that decides whether
/// it changed. Parts that never change once made (a registered font) hash once
/// and carry the hash along, rather than being hashed again on every call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part<'a> {
    /// The part's name, unique within the checkpoint.
    pub name: String,
    /// Its bytes.
    pub data: &'a [u8],
    /// [`content_hash`] of `data`.
    pub hash: String,
}

impl<'a> Part<'a> {
    /// A part, hashing its bytes now.
    pub fn new(name: impl Into<String>, data: &'a [u8]) -> Self {
        Self {
            name: name.into(),
            data,
            hash: content_hash(data),
        }
    }
}

/// The hash the store compares parts by: SHA-256, hex.
pub fn content_hash(data: &[u8]) -> String {
    hex::encode(sha2::Sha256::digest(data))
}

/// What a checkpoint write cost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CheckpointWrite {
    /// Parts whose bytes changed and were written.
    pub parts_written: u32,
    /// Parts left as they were because their bytes had not changed.
    pub parts_unchanged: u32,
    /// Bytes of the parts written.
    pub bytes_written: u64,
    /// Nothing was sent: the save repeated the last one this store committed for
    /// the session, at the same epoch, seconds before (decision 0008).
    pub unsent: bool,
    /// Written in one statement over what this store knew was stored: its own
    /// last write, or nothing for a session it was told is new (decision 0007).
    pub one_statement: bool,
}

/// Sessions, tenants and keys.
#[async_trait]
pub trait SessionStore: Send + Sync {
    /// Creates a key for the tenant named `tenant`, creating the tenant if needed.
    async fn create_key(&self, tenant: &str) -> Result<NewKey, StoreError>;
    /// The tenant a key belongs to, if the key exists.
    async fn tenant_for_key(&self, key: &str) -> Result<Option<Tenant>, StoreError>;
    /// How many keys exist (to refuse an open non-loopback server).
    async fn key_count(&self) -> Result<u64, StoreError>;
    /// Finds or creates the tenant named `name`.
    async fn ensure_tenant(&self, name: &str) -> Result<Tenant, StoreError>;
    /// Stores a new session.
    async fn create_session(
        &self,
        id: &str,
        tenant_id: &str,
        width: u32,
        height: u32,
        ttl_ms: i64,
    ) -> Result<SessionRow, StoreError>;
    /// A session by ID, whoever owns it; callers check the tenant.
    async fn session(&self, id: &str) -> Result<Option<SessionRow>, StoreError>;
    /// Replaces the session's checkpoint with `parts` if `epoch` is not older than
    /// the stored one, rewriting only the parts whose bytes changed and deleting
    /// parts no longer present, and records the page it shows and the time of use.
    /// A save that repeats exactly what this store committed for the session at
    /// the same epoch seconds before may go unsent ([`CheckpointWrite::unsent`]):
    /// the time of use and the expiry then stay as that write left them.
    async fn save_checkpoint(
        &self,
        id: &str,
        epoch: u64,
        parts: &[Part<'_>],
        url: &str,
        title: &str,
        ttl_ms: i64,
    ) -> Result<CheckpointWrite, StoreError>;
    /// The latest checkpoint, if one was written.
    async fn load_checkpoint(&self, id: &str) -> Result<Option<StoredCheckpoint>, StoreError>;
    /// Takes the session over for a new owner at `epoch` and returns its latest
    /// checkpoint, atomically: from then on a save by an older epoch is refused
    /// (`StaleEpoch`, as is this call if a newer owner took it over). The
    /// checkpoint's epoch is the stored one from before the takeover.
    async fn take_over(&self, id: &str, epoch: u64)
    -> Result<Option<StoredCheckpoint>, StoreError>;
    /// A tenant's unexpired sessions, most recently used first.
    async fn list_sessions(
        &self,
        tenant_id: &str,
        limit: u32,
    ) -> Result<Vec<SessionRow>, StoreError>;
    /// Deletes a tenant's session with everything stored for it; false if it
    /// did not exist for that tenant.
    async fn delete_session(&self, id: &str, tenant_id: &str) -> Result<bool, StoreError>;
    /// Deletes every session past its expiry with everything stored for it;
    /// returns how many.
    async fn delete_expired(&self) -> Result<u64, StoreError>;
    /// Marks a session failed with a reason the agent may read.
    async fn mark_failed(&self, id: &str, reason: &str) -> Result<(), StoreError>;
    /// Checks the database answers.
    async fn ping(&self) -> Result<(), StoreError>;
    /// The limits stored for a tenant (unset values: the gateway's defaults).
    async fn tenant_limits(&self, tenant_id: &str) -> Result<TenantLimits, StoreError>;
    /// How many sessions a tenant has open (not closed, not expired).
    async fn open_sessions(&self, tenant_id: &str) -> Result<u64, StoreError>;
    /// Tells the store that the session `id` was created a moment ago and has
    /// nothing saved yet (its row at epoch 0, which no owner holds), so its
    /// first save can fence on that row and write every part in one
    /// statement, as a later save does over the store's own last write. If
    /// the session was saved since after all, the fence does not hold and the
    /// general write runs. A store that remembers no writes ignores it.
    fn created(&self, _id: &str) {}
    /// Whether the last call found the database unreachable (a guarded store
    /// knows; a bare one never says so).
    fn degraded(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_carries_the_hash_its_bytes_are_compared_by() {
        let part = Part::new("page", b"abc");
        assert_eq!(part.hash, content_hash(b"abc"));
        assert_eq!(
            part.hash,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn a_session_is_expired_from_its_expiry_time_on() {
        let row = SessionRow {
            id: "s1".into(),
            tenant_id: "t".into(),
            status: SessionStatus::Active,
            width: 800,
            height: 600,
            epoch: 0,
            url: String::new(),
            title: String::new(),
            created_at: 0,
            updated_at: 0,
            expires_at: 1_000,
            failure: String::new(),
        };
        assert!(!row.expired(999));
        assert!(row.expired(1_000));
    }
}
