-- Files a session's pages downloaded (an attachment, a type browsers do not
-- render, an <a download> link). The bytes are in object storage under
-- downloads/{id}; a row outlives its session's close until it expires, and
-- a failed download keeps its row (size 0) so the agent sees why. Times are
-- Unix milliseconds.
CREATE TABLE downloads (
    id              TEXT PRIMARY KEY,
    tenant_id       TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    -- No foreign key: the download stays when the session is closed.
    session_id      TEXT NOT NULL,
    filename        TEXT NOT NULL,
    mime_type       TEXT NOT NULL,
    source_url      TEXT NOT NULL,
    size_bytes      BIGINT NOT NULL,
    -- complete | failed
    status          TEXT NOT NULL,
    error           TEXT NOT NULL DEFAULT '',
    created_at      BIGINT NOT NULL,
    expires_at      BIGINT NOT NULL
);
CREATE INDEX downloads_session ON downloads (session_id, created_at);
CREATE INDEX downloads_expiry ON downloads (expires_at);
