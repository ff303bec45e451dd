-- Per-tenant limits set with `servo-fleet tenants set`; a NULL column means
-- the gateway's default (its --tenant-* flags), 0 means no limit.
CREATE TABLE tenant_limits (
    tenant_id           TEXT PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
    requests_per_second BIGINT,
    burst               BIGINT,
    max_sessions        BIGINT,
    max_in_flight       BIGINT,
    updated_at          BIGINT NOT NULL
);
