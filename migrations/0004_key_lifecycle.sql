-- Key lifecycle: a name to tell keys apart, an optional expiry (also how a
-- rotated key's grace period ends), revocation, and when a key was last used
-- (updated when a gateway verifies it, at most once per key-cache period).
ALTER TABLE api_keys ADD COLUMN name TEXT NOT NULL DEFAULT '';
ALTER TABLE api_keys ADD COLUMN expires_at BIGINT;
ALTER TABLE api_keys ADD COLUMN revoked_at BIGINT;
ALTER TABLE api_keys ADD COLUMN last_used_at BIGINT;
CREATE INDEX api_keys_prefix ON api_keys (prefix);
