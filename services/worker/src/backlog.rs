//! Checkpoints the database could not take yet. While Postgres is unreachable a
//! call on a live session still answers: its checkpoint waits here, one per
//! session (the newest replaces the older), within a byte bound, until the
//! flusher or the session's next call writes it. A session with an unwritten
//! checkpoint is not evicted; what a worker crash can lose is exactly what is
//! in here (see the README, "Outages").

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use fleet_store::Part;

/// A checkpoint as the store takes it, owned so it outlives the call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unwritten {
    /// The ownership epoch it was taken under (the store's fence still applies).
    pub epoch: u64,
    /// Named parts: name, bytes, content hash.
    pub parts: Vec<(String, Vec<u8>, String)>,
    /// The page's URL at the checkpoint.
    pub url: String,
    /// The page's title at the checkpoint.
    pub title: String,
}

impl Unwritten {
    /// Owns a checkpoint's parts.
    pub fn new(epoch: u64, parts: &[Part<'_>], url: &str, title: &str) -> Self {
        Self {
            epoch,
            parts: parts
                .iter()
                .map(|p| (p.name.clone(), p.data.to_vec(), p.hash.clone()))
                .collect(),
            url: url.to_owned(),
            title: title.to_owned(),
        }
    }

    /// The parts as the store's write takes them.
    pub fn parts(&self) -> Vec<Part<'_>> {
        self.parts
            .iter()
            .map(|(name, data, hash)| Part {
                name: name.clone(),
                data,
                hash: hash.clone(),
            })
            .collect()
    }

    /// The parts as a restore applies them.
    pub fn stored_parts(&self) -> Vec<(String, Vec<u8>)> {
        self.parts
            .iter()
            .map(|(name, data, _)| (name.clone(), data.clone()))
            .collect()
    }

    fn bytes(&self) -> usize {
        self.parts.iter().map(|(_, data, _)| data.len()).sum()
    }
}

/// The backlog would pass its byte bound.
#[derive(Debug, PartialEq, Eq)]
pub struct Full;

/// Unwritten checkpoints by session.
pub struct Backlog {
    max_bytes: usize,
    entries: Mutex<HashMap<String, Arc<Unwritten>>>,
}

impl Backlog {
    /// An empty backlog holding at most `max_bytes` of parts.
    pub fn new(max_bytes: usize) -> Self {
        Self {
            max_bytes,
            entries: Mutex::new(HashMap::new()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Unwritten>>> {
        // Holds plain handles: a panic elsewhere cannot leave it half-written.
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn report(entries: &HashMap<String, Arc<Unwritten>>) {
        let bytes: usize = entries.values().map(|u| u.bytes()).sum();
        fleet_telemetry::gauge!("fleet_worker_checkpoints_queued").set(entries.len() as f64);
        fleet_telemetry::gauge!("fleet_worker_checkpoint_backlog_bytes").set(bytes as f64);
    }

    /// Queues a session's newest checkpoint in place of any older one; refused
    /// (and the older one kept) when the bound would be passed.
    pub fn put(&self, session: &str, checkpoint: Unwritten) -> Result<(), Full> {
        let mut entries = self.lock();
        let others: usize = entries
            .iter()
            .filter(|(id, _)| id.as_str() != session)
            .map(|(_, u)| u.bytes())
            .sum();
        if others + checkpoint.bytes() > self.max_bytes {
            return Err(Full);
        }
        entries.insert(session.to_owned(), Arc::new(checkpoint));
        Self::report(&entries);
        Ok(())
    }

    /// The session's unwritten checkpoint, if any.
    pub fn get(&self, session: &str) -> Option<Arc<Unwritten>> {
        self.lock().get(session).cloned()
    }

    /// Whether the session has an unwritten checkpoint.
    pub fn contains(&self, session: &str) -> bool {
        self.lock().contains_key(session)
    }

    /// Drops the session's entry if it is still `written` (a newer one queued
    /// meanwhile stays).
    pub fn written(&self, session: &str, written: &Arc<Unwritten>) {
        let mut entries = self.lock();
        if entries
            .get(session)
            .is_some_and(|u| Arc::ptr_eq(u, written))
        {
            entries.remove(session);
            Self::report(&entries);
        }
    }

    /// Drops whatever the session has queued: a newer checkpoint was written.
    pub fn superseded(&self, session: &str) {
        let mut entries = self.lock();
        if entries.remove(session).is_some() {
            Self::report(&entries);
        }
    }

    /// Sessions with an unwritten checkpoint.
    pub fn sessions(&self) -> Vec<String> {
        self.lock().keys().cloned().collect()
    }

    /// How many checkpoints wait.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether nothing waits.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checkpoint(epoch: u64, bytes: usize) -> Unwritten {
        let data = vec![7u8; bytes];
        Unwritten::new(epoch, &[Part::new("engine/page", &data)], "https://a/", "A")
    }

    #[test]
    fn a_sessions_newest_checkpoint_replaces_its_older_one() {
        let b = Backlog::new(1000);
        b.put("s1", checkpoint(3, 100)).unwrap();
        b.put("s1", checkpoint(4, 100)).unwrap();
        assert_eq!(b.len(), 1);
        assert_eq!(b.get("s1").unwrap().epoch, 4);
    }

    #[test]
    fn the_byte_bound_holds_at_its_edge_and_a_refusal_keeps_the_older_entry() {
        let b = Backlog::new(1000);
        b.put("s1", checkpoint(1, 600)).unwrap();
        b.put("s2", checkpoint(1, 400)).unwrap();
        assert_eq!(b.put("s3", checkpoint(1, 1)), Err(Full));
        // Replacing s2's entry counts only the new one.
        b.put("s2", checkpoint(2, 400)).unwrap();
        assert_eq!(b.put("s2", checkpoint(3, 401)), Err(Full));
        assert_eq!(b.get("s2").unwrap().epoch, 2);
    }

    #[test]
    fn a_write_removes_only_the_entry_it_wrote() {
        let b = Backlog::new(1000);
        b.put("s1", checkpoint(1, 10)).unwrap();
        let old = b.get("s1").unwrap();
        b.put("s1", checkpoint(2, 10)).unwrap();
        b.written("s1", &old);
        assert!(
            b.contains("s1"),
            "a newer checkpoint queued meanwhile stays"
        );
        let new = b.get("s1").unwrap();
        b.written("s1", &new);
        assert!(b.is_empty());
    }

    #[test]
    fn parts_round_trip_for_the_store_and_for_a_restore() {
        let c = checkpoint(1, 3);
        let parts = c.parts();
        assert_eq!(parts[0].data, &[7, 7, 7]);
        assert_eq!(parts[0].hash, fleet_store::content_hash(&[7, 7, 7]));
        assert_eq!(
            c.stored_parts(),
            vec![("engine/page".to_owned(), vec![7, 7, 7])]
        );
    }
}
