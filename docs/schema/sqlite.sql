-- The schema of a new evtool SQLite store (schema version 8), as SQLite keeps it
-- (sqlite_master, in the order it was made). Written by scripts/schema.sh; SchemaFileTests
-- fails when a store made now differs. The steps that make it: Sources/StoreSQLite/Migrations/ (one file a step), listed in SQLiteSchema.swift.

CREATE TABLE evtool_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE events (
    position    INTEGER PRIMARY KEY,
    stream_id   TEXT    NOT NULL,
    version     INTEGER NOT NULL CHECK (version >= 1),
    event_id    TEXT    NOT NULL,
    type        TEXT    NOT NULL,
    data        TEXT    NOT NULL,   -- JSON, exactly as appended
    metadata    TEXT    NOT NULL,   -- JSON, exactly as appended
    recorded_at TEXT    NOT NULL    -- RFC 3339 UTC, microseconds
, hash TEXT NOT NULL DEFAULT '');
CREATE UNIQUE INDEX events_stream_version ON events (stream_id, version);
CREATE UNIQUE INDEX events_event_id ON events (event_id);
CREATE TABLE projections (
    name        TEXT    NOT NULL,
    generation  INTEGER NOT NULL,
    version     INTEGER NOT NULL,   -- version of the projection code that built it
    position    INTEGER NOT NULL,   -- checkpoint: last event applied
    active      INTEGER NOT NULL,   -- 1 for the generation readers see
    updated_at  TEXT    NOT NULL,
    PRIMARY KEY (name, generation)
) WITHOUT ROWID;
CREATE TABLE erasures (
    event_id         TEXT    PRIMARY KEY,
    position         INTEGER NOT NULL UNIQUE,
    data_sha256      TEXT    NOT NULL,   -- hex SHA-256 of the erased data
    metadata_sha256  TEXT    NOT NULL,   -- hex SHA-256 of the erased metadata
    erased_at        TEXT    NOT NULL,
    erasure_event_id TEXT    NOT NULL    -- the UserErased event that records it
) WITHOUT ROWID;
CREATE TABLE seals (
    seal          INTEGER PRIMARY KEY,   -- 1, 2, 3 …
    position      INTEGER NOT NULL,      -- the log as of this position
    events        INTEGER NOT NULL,
    streams       INTEGER NOT NULL,
    heads_sha256  TEXT    NOT NULL,
    previous_hash TEXT    NOT NULL,
    hash          TEXT    NOT NULL,
    sealed_at     TEXT    NOT NULL
);
CREATE TRIGGER events_append_only_update BEFORE UPDATE ON events
WHEN NOT (
    NEW.data = '{"erased":true}' AND NEW.metadata = '{"erased":true}'
    AND NEW.position IS OLD.position AND NEW.stream_id IS OLD.stream_id
    AND NEW.version IS OLD.version AND NEW.event_id IS OLD.event_id AND NEW.type IS OLD.type
    AND NEW.recorded_at IS OLD.recorded_at AND NEW.hash IS OLD.hash
    AND EXISTS (SELECT 1 FROM erasures WHERE erasures.event_id = OLD.event_id AND erasures.position = OLD.position)
)
BEGIN SELECT RAISE(ABORT, 'evtool: events are append-only; the only UPDATE allowed is an erasure'); END;
CREATE TRIGGER erasures_append_only_update BEFORE UPDATE ON erasures
BEGIN SELECT RAISE(ABORT, 'evtool: erasures are append-only'); END;
CREATE TRIGGER erasures_append_only_delete BEFORE DELETE ON erasures
BEGIN SELECT RAISE(ABORT, 'evtool: erasures are append-only'); END;
CREATE TRIGGER seals_append_only_update BEFORE UPDATE ON seals
BEGIN SELECT RAISE(ABORT, 'evtool: seals are append-only'); END;
CREATE TRIGGER seals_append_only_delete BEFORE DELETE ON seals
BEGIN SELECT RAISE(ABORT, 'evtool: seals are append-only'); END;
CREATE TABLE "view_documents" (
    projection  TEXT    NOT NULL,
    generation  INTEGER NOT NULL,
    key         TEXT    NOT NULL,
    document    TEXT    NOT NULL
);
CREATE UNIQUE INDEX view_documents_key ON view_documents (projection, generation, key);
CREATE TRIGGER events_position_range AFTER INSERT ON events
WHEN NEW.position < 1 OR NEW.version < 1
BEGIN SELECT RAISE(ABORT, 'evtool: events have positions and versions from 1 up; a row outside them is refused'); END;
CREATE TABLE signed_checkpoints (
    checkpoint  INTEGER PRIMARY KEY,   -- 1, 2, 3 …
    seal        INTEGER NOT NULL,      -- the seal it was made with
    size        INTEGER NOT NULL,      -- the tree size it states
    note        TEXT    NOT NULL,      -- the checkpoint's text (a signed note)
    recorded_at TEXT    NOT NULL
);
CREATE TRIGGER signed_checkpoints_append_only_update BEFORE UPDATE ON signed_checkpoints
BEGIN SELECT RAISE(ABORT, 'evtool: signed checkpoints are append-only'); END;
CREATE TRIGGER signed_checkpoints_append_only_delete BEFORE DELETE ON signed_checkpoints
BEGIN SELECT RAISE(ABORT, 'evtool: signed checkpoints are append-only'); END;
CREATE TABLE merkle_tiles (
    level          INTEGER NOT NULL CHECK (level >= 0 AND level % 4 = 0),
    idx            INTEGER NOT NULL CHECK (idx >= 0),   -- the nodes (level, 16 idx) … (level, 16 idx + 15)
    hashes         BLOB    NOT NULL CHECK (length(hashes) BETWEEN 32 AND 512 AND length(hashes) % 32 = 0),
    first_position INTEGER,   -- level 0: the position of the first leaf's event
    last_position  INTEGER,   -- level 0: the position of the last leaf's event
    PRIMARY KEY (level, idx)
);
CREATE INDEX merkle_tiles_last_position ON merkle_tiles (last_position) WHERE level = 0;
CREATE TRIGGER merkle_tiles_append_only_update BEFORE UPDATE ON merkle_tiles
WHEN NOT (NEW.level IS OLD.level AND NEW.idx IS OLD.idx AND NEW.first_position IS OLD.first_position
          AND length(NEW.hashes) > length(OLD.hashes) AND substr(NEW.hashes, 1, length(OLD.hashes)) = OLD.hashes)
BEGIN SELECT RAISE(ABORT, 'evtool: the Merkle tree is append-only (a tile only grows)'); END;
CREATE TRIGGER merkle_tiles_append_only_delete BEFORE DELETE ON merkle_tiles
BEGIN SELECT RAISE(ABORT, 'evtool: the Merkle tree is append-only'); END;
CREATE TABLE archives (
    archive      INTEGER PRIMARY KEY,   -- 1, 2, 3 …
    position     INTEGER NOT NULL,      -- every event below it is archived
    events       INTEGER NOT NULL,      -- events archived so far (this and the earlier archives)
    file_events  INTEGER NOT NULL,      -- events in this archive's file
    file_sha256  TEXT    NOT NULL,      -- hex SHA-256 of the file's bytes
    file_name    TEXT    NOT NULL,
    heads_sha256 TEXT    NOT NULL,      -- every stream's head at the boundary
    tree_root    TEXT    NOT NULL,      -- hex Merkle root of the first `events` events
    archived_at  TEXT    NOT NULL
);
CREATE TRIGGER archives_append_only_update BEFORE UPDATE ON archives
BEGIN SELECT RAISE(ABORT, 'evtool: archives are append-only'); END;
CREATE TRIGGER archives_append_only_delete BEFORE DELETE ON archives
BEGIN SELECT RAISE(ABORT, 'evtool: archives are append-only'); END;
CREATE TABLE archived_heads (
    stream_id TEXT    PRIMARY KEY,
    version   INTEGER NOT NULL,
    hash      TEXT    NOT NULL,
    state     TEXT                  -- the runner's decision state as of this head (JSON)
) WITHOUT ROWID;
CREATE TRIGGER events_append_only_delete BEFORE DELETE ON events
WHEN OLD.position >= coalesce((SELECT max(position) FROM archives), 1)
BEGIN SELECT RAISE(ABORT, 'evtool: events are append-only; DELETE is not allowed'); END;
