//! [`RecordingStore`] over Postgres or SQLite, with the same queries for
//! both (sqlx's `Any` driver). A claim for encoding is one conditional
//! `UPDATE`, so two workers' sweepers never encode the same recording.

use async_trait::async_trait;
use sqlx::Row;
use sqlx::any::AnyRow;

use crate::StoreError;
use crate::recordings::{Encoded, NewRecording, RecordingRow, RecordingStore};
use crate::sql::{SqlStore, to_i64, to_u64};

/// `SELECT` of every column of a recording (and its segments' count) with
/// the given `WHERE` condition: a literal, so sqlx sees static SQL.
macro_rules! select_where {
    ($condition:literal) => {
        concat!(
            "SELECT id, tenant_id, session_id, status, fps, max_duration_ms, started_at, ",
            "stop_at, stopped_at, expires_at, captured_frames, frame_bytes, target_frames, width, ",
            "height, size_bytes, error, ",
            "(SELECT COUNT(*) FROM recording_segments s WHERE s.recording_id = recordings.id) AS segments ",
            "FROM recordings WHERE ",
            $condition
        )
    };
}

fn to_u32(v: i64) -> u32 {
    u32::try_from(v).unwrap_or(0)
}

fn row_to_recording(row: &AnyRow) -> Result<RecordingRow, StoreError> {
    let stopped_at: i64 = row.try_get("stopped_at")?;
    let error: String = row.try_get("error")?;
    Ok(RecordingRow {
        id: row.try_get("id")?,
        tenant_id: row.try_get("tenant_id")?,
        session_id: row.try_get("session_id")?,
        status: row.try_get("status")?,
        fps: to_u32(row.try_get("fps")?),
        max_duration_ms: row.try_get("max_duration_ms")?,
        started_at: row.try_get("started_at")?,
        stop_at: row.try_get("stop_at")?,
        stopped_at: (stopped_at > 0).then_some(stopped_at),
        expires_at: row.try_get("expires_at")?,
        captured_frames: to_u32(row.try_get("captured_frames")?),
        frame_bytes: to_u64(row.try_get("frame_bytes")?),
        target_frames: to_u32(row.try_get("target_frames")?),
        width: to_u32(row.try_get("width")?),
        height: to_u32(row.try_get("height")?),
        size_bytes: to_u64(row.try_get("size_bytes")?),
        error: (!error.is_empty()).then_some(error),
        segments: to_u32(row.try_get("segments")?),
    })
}

/// Whether `e` is a unique-constraint violation (Postgres 23505, SQLite 2067).
fn is_unique_violation(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Database(d) => {
            d.is_unique_violation() || matches!(d.code().as_deref(), Some("23505" | "2067"))
        }
        _ => false,
    }
}

impl SqlStore {
    async fn recordings_by(
        &self,
        query: &'static str,
        bind: &str,
    ) -> Result<Vec<RecordingRow>, StoreError> {
        let rows = sqlx::query(query).bind(bind).fetch_all(&self.pool).await?;
        rows.iter().map(row_to_recording).collect()
    }
}

#[async_trait]
impl RecordingStore for SqlStore {
    async fn start_recording(&self, new: &NewRecording) -> Result<RecordingRow, StoreError> {
        let mut tx = self.pool.begin().await?;
        let inserted = sqlx::query(
            "INSERT INTO recordings (id, tenant_id, session_id, status, fps, max_duration_ms, \
             started_at, stop_at, expires_at) VALUES ($1, $2, $3, 'recording', $4, $5, $6, $7, $8)",
        )
        .bind(&new.id)
        .bind(&new.tenant_id)
        .bind(&new.session_id)
        .bind(i64::from(new.fps))
        .bind(new.max_duration_ms)
        .bind(new.started_at)
        .bind(new.started_at + new.max_duration_ms)
        .bind(new.started_at + new.max_duration_ms + new.retention_ms)
        .execute(&mut *tx)
        .await;
        match inserted {
            Ok(_) => {}
            Err(e) if is_unique_violation(&e) => {
                return Err(StoreError::Conflict(
                    "the session already has a recording in progress or encoding; stop it or wait until it is ready",
                ));
            }
            Err(e) => return Err(e.into()),
        }
        sqlx::query(
            "INSERT INTO recording_segments (recording_id, seq, worker_id, started_at) VALUES ($1, 1, $2, $3)",
        )
        .bind(&new.id)
        .bind(&new.worker_id)
        .bind(new.started_at)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        self.recording(&new.id).await?.ok_or(StoreError::NotFound)
    }

    async fn recording(&self, id: &str) -> Result<Option<RecordingRow>, StoreError> {
        Ok(self
            .recordings_by(select_where!("id = $1"), id)
            .await?
            .into_iter()
            .next())
    }

    async fn active_recording(&self, session_id: &str) -> Result<Option<RecordingRow>, StoreError> {
        Ok(self
            .recordings_by(
                select_where!("session_id = $1 AND status = 'recording'"),
                session_id,
            )
            .await?
            .into_iter()
            .next())
    }

    async fn add_segment(&self, id: &str, worker: &str, now: i64) -> Result<u32, StoreError> {
        // One worker owns the session at a time, so two segments are never
        // added at once.
        let row = sqlx::query(
            "INSERT INTO recording_segments (recording_id, seq, worker_id, started_at) \
             SELECT $1, COALESCE(MAX(seq), 0) + 1, $2, $3 FROM recording_segments WHERE recording_id = $1 \
             RETURNING seq",
        )
        .bind(id)
        .bind(worker)
        .bind(now)
        .fetch_one(&self.pool)
        .await?;
        Ok(to_u32(row.try_get("seq")?))
    }

    async fn add_frame(&self, id: &str, bytes: u64) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE recordings SET captured_frames = captured_frames + 1, frame_bytes = frame_bytes + $2 WHERE id = $1",
        )
        .bind(id)
        .bind(to_i64(bytes))
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn stop_recording(
        &self,
        id: &str,
        session_id: &str,
        worker: &str,
        now: i64,
    ) -> Result<Option<RecordingRow>, StoreError> {
        let n = sqlx::query(
            "UPDATE recordings SET status = 'encoding', stop_at = CASE WHEN stop_at < $4 THEN stop_at ELSE $4 END, \
             stopped_at = CASE WHEN stop_at < $4 THEN stop_at ELSE $4 END, claimed_by = $3, claimed_at = $4 \
             WHERE id = $1 AND session_id = $2 AND status = 'recording'",
        )
        .bind(id)
        .bind(session_id)
        .bind(worker)
        .bind(now)
        .execute(&self.pool)
        .await?
        .rows_affected();
        if n == 0 {
            return Ok(None);
        }
        self.recording(id).await
    }

    async fn stop_session_recordings(&self, session_id: &str, now: i64) -> Result<u64, StoreError> {
        Ok(sqlx::query(
            "UPDATE recordings SET stop_at = $2 WHERE session_id = $1 AND status = 'recording' AND stop_at > $2",
        )
        .bind(session_id)
        .bind(now)
        .execute(&self.pool)
        .await?
        .rows_affected())
    }

    async fn claim_due(
        &self,
        worker: &str,
        now: i64,
        lease_ms: i64,
    ) -> Result<Vec<RecordingRow>, StoreError> {
        let due = sqlx::query(
            "SELECT id FROM recordings WHERE (status = 'recording' AND stop_at <= $1) \
             OR (status = 'encoding' AND claimed_at <= $2) ORDER BY stop_at LIMIT 8",
        )
        .bind(now)
        .bind(now - lease_ms)
        .fetch_all(&self.pool)
        .await?;
        let mut claimed = Vec::new();
        for row in due {
            let id: String = row.try_get("id")?;
            // The same condition again: another sweeper may have claimed it
            // between the SELECT and here.
            let n = sqlx::query(
                "UPDATE recordings SET status = 'encoding', claimed_by = $2, claimed_at = $3, \
                 stopped_at = CASE WHEN stopped_at = 0 THEN stop_at ELSE stopped_at END \
                 WHERE id = $1 AND ((status = 'recording' AND stop_at <= $3) OR (status = 'encoding' AND claimed_at <= $4))",
            )
            .bind(&id)
            .bind(worker)
            .bind(now)
            .bind(now - lease_ms)
            .execute(&self.pool)
            .await?
            .rows_affected();
            if n > 0
                && let Some(r) = self.recording(&id).await?
            {
                claimed.push(r);
            }
        }
        Ok(claimed)
    }

    async fn finish_recording(
        &self,
        id: &str,
        worker: &str,
        encoded: Encoded,
    ) -> Result<bool, StoreError> {
        let n = sqlx::query(
            "UPDATE recordings SET status = 'ready', width = $3, height = $4, target_frames = $5, \
             size_bytes = $6, expires_at = $7, claimed_by = '' \
             WHERE id = $1 AND status = 'encoding' AND claimed_by = $2",
        )
        .bind(id)
        .bind(worker)
        .bind(i64::from(encoded.width))
        .bind(i64::from(encoded.height))
        .bind(i64::from(encoded.target_frames))
        .bind(to_i64(encoded.size_bytes))
        .bind(encoded.expires_at)
        .execute(&self.pool)
        .await?
        .rows_affected();
        Ok(n > 0)
    }

    async fn fail_recording(
        &self,
        id: &str,
        worker: &str,
        error: &str,
        expires_at: i64,
    ) -> Result<bool, StoreError> {
        let n = sqlx::query(
            "UPDATE recordings SET status = 'failed', error = $3, expires_at = $4, claimed_by = '' \
             WHERE id = $1 AND status = 'encoding' AND claimed_by = $2",
        )
        .bind(id)
        .bind(worker)
        .bind(error)
        .bind(expires_at)
        .execute(&self.pool)
        .await?
        .rows_affected();
        Ok(n > 0)
    }

    async fn ready_recordings(&self, session_id: &str) -> Result<Vec<RecordingRow>, StoreError> {
        let mut rows = self
            .recordings_by(
                select_where!("session_id = $1 AND status = 'ready'"),
                session_id,
            )
            .await?;
        rows.sort_by(|a, b| b.started_at.cmp(&a.started_at).then(b.id.cmp(&a.id)));
        Ok(rows)
    }

    async fn expire_recording(&self, id: &str, forget_at: i64) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE recordings SET status = 'expired', expires_at = $2, size_bytes = 0 WHERE id = $1",
        )
        .bind(id)
        .bind(forget_at)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn expiring_recordings(&self, now: i64) -> Result<Vec<RecordingRow>, StoreError> {
        let rows = sqlx::query(select_where!(
            "status IN ('ready', 'failed') AND expires_at <= $1 LIMIT 64"
        ))
        .bind(now)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(row_to_recording).collect()
    }

    async fn forget_expired_recordings(&self, now: i64) -> Result<u64, StoreError> {
        let mut tx = self.pool.begin().await?;
        // SQLite does not enforce the foreign key's cascade by default.
        sqlx::query(
            "DELETE FROM recording_segments WHERE recording_id IN \
             (SELECT id FROM recordings WHERE status = 'expired' AND expires_at <= $1)",
        )
        .bind(now)
        .execute(&mut *tx)
        .await?;
        let n = sqlx::query("DELETE FROM recordings WHERE status = 'expired' AND expires_at <= $1")
            .bind(now)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        tx.commit().await?;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use crate::SessionStore as _;
    use crate::recordings::{Encoded, NewRecording, RecordingStore};
    use crate::sql::tests::sqlite;

    fn new(id: &str, tenant: &str, started_at: i64) -> NewRecording {
        NewRecording {
            id: id.into(),
            tenant_id: tenant.into(),
            session_id: "s1".into(),
            fps: 2,
            max_duration_ms: 1_000,
            started_at,
            retention_ms: 10_000,
            worker_id: "w1".into(),
        }
    }

    #[tokio::test]
    async fn one_recording_runs_per_session_and_is_claimed_once_at_its_deadline() {
        let s = sqlite().await;
        let t = s.ensure_tenant("a").await.unwrap();
        let row = s.start_recording(&new("r1", &t.id, 100)).await.unwrap();
        assert_eq!(
            (row.status.as_str(), row.stop_at, row.segments),
            ("recording", 1_100, 1)
        );
        assert!(matches!(
            s.start_recording(&new("r2", &t.id, 200)).await,
            Err(crate::StoreError::Conflict(_))
        ));
        // One millisecond before the deadline nothing is due; at it, one
        // sweeper gets it and a second finds nothing.
        assert!(s.claim_due("w1", 1_099, 60_000).await.unwrap().is_empty());
        let claimed = s.claim_due("w1", 1_100, 60_000).await.unwrap();
        assert_eq!(claimed.len(), 1);
        assert_eq!(claimed[0].stopped_at, Some(1_100));
        assert!(s.claim_due("w2", 1_100, 60_000).await.unwrap().is_empty());
        // A claim older than the lease is taken over; the first encoder's
        // result then no longer counts.
        let taken = s.claim_due("w2", 61_100, 60_000).await.unwrap();
        assert_eq!(taken.len(), 1);
        let encoded = Encoded {
            width: 960,
            height: 540,
            target_frames: 2,
            size_bytes: 5_000,
            expires_at: 100_000,
        };
        assert!(!s.finish_recording("r1", "w1", encoded).await.unwrap());
        assert!(s.finish_recording("r1", "w2", encoded).await.unwrap());
        // Ready, so another recording of the session may start.
        s.start_recording(&new("r2", &t.id, 200)).await.unwrap();
    }

    #[tokio::test]
    async fn a_stop_counts_its_segments_and_expiry_takes_the_bytes_then_the_row() {
        let s = sqlite().await;
        let t = s.ensure_tenant("a").await.unwrap();
        s.start_recording(&new("r1", &t.id, 100)).await.unwrap();
        assert_eq!(s.add_segment("r1", "w2", 300).await.unwrap(), 2);
        s.add_frame("r1", 1_000).await.unwrap();
        let stopped = s
            .stop_recording("r1", "s1", "w2", 400)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            (
                stopped.status.as_str(),
                stopped.stopped_at,
                stopped.segments
            ),
            ("encoding", Some(400), 2)
        );
        assert_eq!((stopped.captured_frames, stopped.frame_bytes), (1, 1_000));
        // Stopped already: nothing to stop, and another session's stop finds nothing.
        assert!(
            s.stop_recording("r1", "s1", "w2", 500)
                .await
                .unwrap()
                .is_none()
        );
        let encoded = Encoded {
            width: 2,
            height: 2,
            target_frames: 1,
            size_bytes: 10,
            expires_at: 5_000,
        };
        assert!(s.finish_recording("r1", "w2", encoded).await.unwrap());
        assert!(s.expiring_recordings(4_999).await.unwrap().is_empty());
        assert_eq!(s.expiring_recordings(5_000).await.unwrap().len(), 1);
        s.expire_recording("r1", 9_000).await.unwrap();
        assert_eq!(s.recording("r1").await.unwrap().unwrap().status, "expired");
        assert_eq!(s.forget_expired_recordings(8_999).await.unwrap(), 0);
        assert_eq!(s.forget_expired_recordings(9_000).await.unwrap(), 1);
        assert!(s.recording("r1").await.unwrap().is_none());
    }
}
