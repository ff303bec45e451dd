-- Checkpoints in named parts (the engine's page, storage and IndexedDB parts, the
-- cookie jar, each registered font), each hashed and chunked, so a checkpoint
-- rewrites only the parts whose bytes changed. The fence stays sessions.epoch.
CREATE TABLE session_parts (
    session_id  TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    part        TEXT NOT NULL,
    -- SHA-256 of the part's bytes, hex; empty for parts carried over below.
    hash        TEXT NOT NULL,
    size        BIGINT NOT NULL,
    -- The routing epoch of the write that last changed this part.
    epoch       BIGINT NOT NULL,
    PRIMARY KEY (session_id, part)
);

CREATE TABLE session_part_chunks (
    session_id  TEXT NOT NULL,
    part        TEXT NOT NULL,
    chunk       BIGINT NOT NULL,
    data        BYTEA NOT NULL,
    PRIMARY KEY (session_id, part, chunk),
    FOREIGN KEY (session_id, part) REFERENCES session_parts (session_id, part) ON DELETE CASCADE
);

-- Checkpoints written before parts become one part named 'checkpoint', which the
-- worker still reads; its empty hash makes the next checkpoint replace it.
INSERT INTO session_parts (session_id, part, hash, size, epoch)
    SELECT session_id, 'checkpoint', '', SUM(LENGTH(data)), MAX(epoch)
    FROM session_snapshots GROUP BY session_id;
INSERT INTO session_part_chunks (session_id, part, chunk, data)
    SELECT session_id, 'checkpoint', chunk, data FROM session_snapshots;
DROP TABLE session_snapshots;
ALTER TABLE sessions DROP COLUMN snapshot_hash;
