-- Tenants, API keys (hashes only), sessions and their chunked snapshots.
-- Times are Unix milliseconds (BIGINT) so the same queries serve Postgres and SQLite.
CREATE TABLE tenants (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    created_at  BIGINT NOT NULL
);

CREATE TABLE api_keys (
    key_hash    TEXT PRIMARY KEY,
    tenant_id   TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    prefix      TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);

CREATE TABLE sessions (
    id          TEXT PRIMARY KEY,
    tenant_id   TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    status      TEXT NOT NULL,
    width       BIGINT NOT NULL,
    height      BIGINT NOT NULL,
    -- Highest routing epoch that wrote a snapshot; older epochs are refused.
    epoch       BIGINT NOT NULL DEFAULT 0,
    url         TEXT NOT NULL DEFAULT '',
    title       TEXT NOT NULL DEFAULT '',
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL
);
CREATE INDEX sessions_tenant ON sessions (tenant_id, updated_at);

CREATE TABLE session_snapshots (
    session_id  TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    chunk       BIGINT NOT NULL,
    epoch       BIGINT NOT NULL,
    data        BYTEA NOT NULL,
    PRIMARY KEY (session_id, chunk)
);
