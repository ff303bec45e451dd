-- Why a session failed (empty while it is usable), and the hash of the stored
-- snapshot so an unchanged checkpoint is not rewritten.
ALTER TABLE sessions ADD COLUMN failure TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN snapshot_hash TEXT NOT NULL DEFAULT '';
CREATE INDEX sessions_expiry ON sessions (expires_at);
