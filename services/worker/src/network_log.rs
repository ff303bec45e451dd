//! The network log of a tab: every request its pages made through the host
//! (documents, subresources, fetch and XHR), with status, media type, size and
//! timing, the newest [`MAX_ENTRIES`] kept. It lives with the tab on its
//! worker; a restore starts a new log.

use std::collections::VecDeque;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use fleet_proto::v1 as pb;

use crate::net::{FetchResponse, Refused};

/// Entries a tab keeps.
pub const MAX_ENTRIES: usize = fleet_proto::MAX_LOG_ENTRIES;
/// Entries a read returns when it names no limit.
pub const DEFAULT_ENTRIES: usize = fleet_proto::DEFAULT_LOG_ENTRIES;

/// A request under way: where its entry is and when it started.
pub struct Started {
    seq: u64,
    at: Instant,
}

/// The log.
#[derive(Default)]
pub struct NetworkLog {
    entries: VecDeque<(u64, pb::NetworkEntry)>,
    /// Requests made so far, kept or not.
    total: u64,
}

impl NetworkLog {
    /// Records a request as it starts.
    pub fn start(&mut self, method: &str, url: &str) -> Started {
        let seq = self.total;
        self.total += 1;
        let started_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
        if self.entries.len() == MAX_ENTRIES {
            self.entries.pop_front();
        }
        self.entries.push_back((
            seq,
            pb::NetworkEntry {
                method: method.to_owned(),
                url: url.to_owned(),
                started_ms,
                ..Default::default()
            },
        ));
        Started {
            seq,
            at: Instant::now(),
        }
    }

    /// Completes a request's entry with its response or failure.
    pub fn finish(&mut self, started: Started, outcome: &Result<FetchResponse, Refused>) {
        let Some((_, e)) = self.entries.iter_mut().find(|(s, _)| *s == started.seq) else {
            return; // pushed out by newer requests meanwhile
        };
        e.duration_ms = u32::try_from(started.at.elapsed().as_millis()).unwrap_or(u32::MAX);
        match outcome {
            Ok(r) => {
                e.status = u32::from(r.status);
                e.size = r.body.len() as u64;
                e.mime_type = r
                    .headers
                    .iter()
                    .find(|(k, _)| k.eq_ignore_ascii_case("content-type"))
                    .map(|(_, v)| {
                        v.split(';')
                            .next()
                            .unwrap_or_default()
                            .trim()
                            .to_ascii_lowercase()
                    })
                    .unwrap_or_default();
                if r.url != e.url {
                    e.final_url = r.url.clone();
                }
            }
            Err(refused) => e.error = refused.0.clone(),
        }
    }

    /// The newest `limit` entries (0: the default), oldest first, and how
    /// many requests the tab made.
    pub fn read(&self, limit: usize) -> pb::NetworkLogResult {
        let limit = match limit {
            0 => DEFAULT_ENTRIES,
            n => n.min(MAX_ENTRIES),
        };
        let skip = self.entries.len().saturating_sub(limit);
        pb::NetworkLogResult {
            entries: self
                .entries
                .iter()
                .skip(skip)
                .map(|(_, e)| e.clone())
                .collect(),
            total: self.total,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_entries_are_kept_and_read_oldest_first() {
        let mut log = NetworkLog::default();
        for i in 0..(MAX_ENTRIES + 3) {
            let s = log.start("GET", &format!("https://e.example/{i}"));
            log.finish(s, &Err(Refused("x".into())));
        }
        let all = log.read(MAX_ENTRIES);
        assert_eq!(all.total, (MAX_ENTRIES + 3) as u64);
        assert_eq!(all.entries.len(), MAX_ENTRIES);
        assert_eq!(all.entries[0].url, "https://e.example/3");
        let few = log.read(2);
        assert_eq!(
            few.entries[1].url,
            format!("https://e.example/{}", MAX_ENTRIES + 2)
        );
        assert_eq!(log.read(0).entries.len(), DEFAULT_ENTRIES);
    }
}
