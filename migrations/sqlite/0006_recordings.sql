-- Screen recordings of sessions. The bytes (captured frames, the encoded MP4)
-- are in object storage under recordings/{id}/; a row outlives its session's
-- close until it expires. Times are Unix milliseconds.
CREATE TABLE recordings (
    id              TEXT PRIMARY KEY,
    tenant_id       TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    -- No foreign key: the recording stays when the session is closed.
    session_id      TEXT NOT NULL,
    -- recording | encoding | ready | failed | expired
    status          TEXT NOT NULL,
    fps             BIGINT NOT NULL,
    max_duration_ms BIGINT NOT NULL,
    started_at      BIGINT NOT NULL,
    -- When capture ends: started_at + max_duration_ms, or earlier when stopped.
    stop_at         BIGINT NOT NULL,
    -- Set when capture ended (0 while recording).
    stopped_at      BIGINT NOT NULL DEFAULT 0,
    expires_at      BIGINT NOT NULL,
    captured_frames BIGINT NOT NULL DEFAULT 0,
    frame_bytes     BIGINT NOT NULL DEFAULT 0,
    target_frames   BIGINT NOT NULL DEFAULT 0,
    width           BIGINT NOT NULL DEFAULT 0,
    height          BIGINT NOT NULL DEFAULT 0,
    size_bytes      BIGINT NOT NULL DEFAULT 0,
    error           TEXT NOT NULL DEFAULT '',
    -- The worker encoding it and since when: a claim older than the encode
    -- lease is taken over (its worker died).
    claimed_by      TEXT NOT NULL DEFAULT '',
    claimed_at      BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX recordings_tenant ON recordings (tenant_id, started_at);
CREATE INDEX recordings_session ON recordings (session_id, status);
CREATE INDEX recordings_due ON recordings (status, stop_at);
-- One recording in progress or encoding per session.
CREATE UNIQUE INDEX recordings_one_active ON recordings (session_id)
    WHERE status IN ('recording', 'encoding');

-- Each stretch of a recording one worker captured: a session that moves to
-- another worker (eviction, drain, crash) continues its recording there.
CREATE TABLE recording_segments (
    recording_id    TEXT NOT NULL REFERENCES recordings (id) ON DELETE CASCADE,
    seq             BIGINT NOT NULL,
    worker_id       TEXT NOT NULL,
    started_at      BIGINT NOT NULL,
    PRIMARY KEY (recording_id, seq)
);
