/// The SQLite file's schema, by version. Each step upgrades from the version before it.
/// The steps are frozen once shipped (a test pins each one's SHA-256): a change is a new step
/// at the end, and the text of a step never depends on code that may change later.
///
/// The file carries its own version in `PRAGMA user_version` and identifies itself as an
/// evtool store through `PRAGMA application_id`; `evtool_meta` repeats both in plain
/// words for people who open the file with the `sqlite3` shell.
enum SQLiteSchema {
    /// `PRAGMA application_id` of an evtool store: the bytes "evtl".
    static let applicationID: Int64 = 0x6576_746C

    /// The newest schema this build knows.
    static var currentVersion: Int { steps.count }

    /// `steps[i]` upgrades a file from version i to version i + 1.
    static let steps: [String] = [
        // Version 1: the event log.
        """
        CREATE TABLE evtool_meta (
            key   TEXT PRIMARY KEY,
            value TEXT NOT NULL
        ) WITHOUT ROWID;

        -- One row per event. position is the rowid: SQLite has one writer at a time, so
        -- position order is commit order and a reader following positions never skips.
        CREATE TABLE events (
            position    INTEGER PRIMARY KEY,
            stream_id   TEXT    NOT NULL,
            version     INTEGER NOT NULL CHECK (version >= 1),
            event_id    TEXT    NOT NULL,
            type        TEXT    NOT NULL,
            data        TEXT    NOT NULL,   -- JSON, exactly as appended
            metadata    TEXT    NOT NULL,   -- JSON, exactly as appended
            recorded_at TEXT    NOT NULL    -- RFC 3339 UTC, microseconds
        );
        -- These make a duplicate version or event id impossible even if two writers race.
        CREATE UNIQUE INDEX events_stream_version ON events (stream_id, version);
        CREATE UNIQUE INDEX events_event_id ON events (event_id);
        """,
        // Version 2: views and their checkpoints, kept beside the log so that a batch of view
        // changes and the checkpoint it reached commit in one transaction.
        """
        CREATE TABLE projections (
            name        TEXT    NOT NULL,
            generation  INTEGER NOT NULL,
            version     INTEGER NOT NULL,   -- version of the projection code that built it
            position    INTEGER NOT NULL,   -- checkpoint: last event applied
            active      INTEGER NOT NULL,   -- 1 for the generation readers see
            updated_at  TEXT    NOT NULL,
            PRIMARY KEY (name, generation)
        ) WITHOUT ROWID;

        -- One JSON document per key of a view, e.g. favorites of one user.
        CREATE TABLE view_documents (
            projection  TEXT    NOT NULL,
            generation  INTEGER NOT NULL,
            key         TEXT    NOT NULL,
            document    TEXT    NOT NULL,
            PRIMARY KEY (projection, generation, key)
        ) WITHOUT ROWID;
        """,
        // Version 3: the audit trail (docs/explanation/audit.md). Each event's link in its stream's hash
        // chain (filled for existing rows by the upgrade, see `afterStep3`), the original
        // digests of erased payloads, and seals over all stream heads.
        """
        ALTER TABLE events ADD COLUMN hash TEXT NOT NULL DEFAULT '';

        -- The digests of payloads that 'evtool forget' replaced with a tombstone, so the chain
        -- still verifies; only for events a UserErased event in the log covers.
        CREATE TABLE erasures (
            event_id         TEXT    PRIMARY KEY,
            position         INTEGER NOT NULL UNIQUE,
            data_sha256      TEXT    NOT NULL,   -- hex SHA-256 of the erased data
            metadata_sha256  TEXT    NOT NULL,   -- hex SHA-256 of the erased metadata
            erased_at        TEXT    NOT NULL,
            erasure_event_id TEXT    NOT NULL    -- the UserErased event that records it
        ) WITHOUT ROWID;

        -- Periodic digests over every stream's head: catch a whole stream deleted or the log
        -- truncated, which per-stream chains cannot.
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
        """,
        // Version 4: view documents in a table with a rowid and a unique index on the key. A
        // WITHOUT ROWID table keeps each row inside its primary-key b-tree, which suits small
        // rows; view documents are kilobytes, and writing a rebuilt view that way cost about a
        // fifth more of the whole rebuild. The documents are copied over as they are.
        """
        CREATE TABLE view_documents_v4 (
            projection  TEXT    NOT NULL,
            generation  INTEGER NOT NULL,
            key         TEXT    NOT NULL,
            document    TEXT    NOT NULL
        );
        INSERT INTO view_documents_v4 (projection, generation, key, document)
            SELECT projection, generation, key, document FROM view_documents ORDER BY projection, generation, key;
        DROP TABLE view_documents;
        ALTER TABLE view_documents_v4 RENAME TO view_documents;
        CREATE UNIQUE INDEX view_documents_key ON view_documents (projection, generation, key);
        """,
        // Version 5: rows that appends cannot produce are refused by the file itself. An
        // append takes the next rowid, so positions and versions start at 1; a row put at
        // position 0 or below (which a read in position order never visits) is refused.
        // `evtool verify` also counts the table's rows, for files whose triggers were dropped.
        """
        CREATE TRIGGER events_position_range AFTER INSERT ON events
        WHEN NEW.position < 1 OR NEW.version < 1
        BEGIN SELECT RAISE(ABORT, 'evtool: events have positions and versions from 1 up; a row outside them is refused'); END;
        """,
        // Version 6: the log's Merkle tree, kept (docs/explanation/audit.md). Derived data, written by the
        // tree's follower (never by an append) and recomputed by `evtool verify`: each leaf
        // (leaf i is the i-th event in position order) and the root of every perfect subtree
        // above them, so that a proof reads O(log n) rows. Filled from the log on first use.
        // Written to run again over tables it made (IF NOT EXISTS), as a re-run upgrade may.
        // And the checkpoints `seal --key` signed.
        """
        CREATE TABLE IF NOT EXISTS merkle_leaves (
            leaf     INTEGER PRIMARY KEY CHECK (leaf >= 0),
            position INTEGER NOT NULL UNIQUE,   -- the event's position
            hash     TEXT    NOT NULL           -- hex SHA-256(0x00 || the event's chain hash)
        );
        CREATE TABLE IF NOT EXISTS merkle_nodes (
            level INTEGER NOT NULL CHECK (level >= 1),   -- the subtree of leaves [idx << level, (idx + 1) << level)
            idx   INTEGER NOT NULL CHECK (idx >= 0),
            hash  TEXT    NOT NULL,                      -- hex SHA-256(0x01 || left || right)
            PRIMARY KEY (level, idx)
        ) WITHOUT ROWID;
        CREATE TRIGGER IF NOT EXISTS merkle_leaves_append_only_update BEFORE UPDATE ON merkle_leaves
        BEGIN SELECT RAISE(ABORT, 'evtool: the Merkle tree is append-only'); END;
        CREATE TRIGGER IF NOT EXISTS merkle_leaves_append_only_delete BEFORE DELETE ON merkle_leaves
        BEGIN SELECT RAISE(ABORT, 'evtool: the Merkle tree is append-only'); END;
        CREATE TRIGGER IF NOT EXISTS merkle_nodes_append_only_update BEFORE UPDATE ON merkle_nodes
        BEGIN SELECT RAISE(ABORT, 'evtool: the Merkle tree is append-only'); END;
        CREATE TRIGGER IF NOT EXISTS merkle_nodes_append_only_delete BEFORE DELETE ON merkle_nodes
        BEGIN SELECT RAISE(ABORT, 'evtool: the Merkle tree is append-only'); END;

        -- Every checkpoint 'evtool seal --key' made, as printed; 'evtool verify' checks each.
        CREATE TABLE IF NOT EXISTS signed_checkpoints (
            checkpoint  INTEGER PRIMARY KEY,   -- 1, 2, 3 …
            seal        INTEGER NOT NULL,      -- the seal it was made with
            size        INTEGER NOT NULL,      -- the tree size it states
            note        TEXT    NOT NULL,      -- the checkpoint's text (a signed note)
            recorded_at TEXT    NOT NULL
        );
        CREATE TRIGGER IF NOT EXISTS signed_checkpoints_append_only_update BEFORE UPDATE ON signed_checkpoints
        BEGIN SELECT RAISE(ABORT, 'evtool: signed checkpoints are append-only'); END;
        CREATE TRIGGER IF NOT EXISTS signed_checkpoints_append_only_delete BEFORE DELETE ON signed_checkpoints
        BEGIN SELECT RAISE(ABORT, 'evtool: signed checkpoints are append-only'); END;
        """,
        // Version 7: the kept Merkle tree in tiles (docs/explanation/audit.md), as Tessera keeps its tree:
        // one row holds the hashes of 16 consecutive nodes of a level that is a multiple of 4
        // (level 0: the leaf hashes, with the positions of the first and last leaf's events);
        // every other node is computed from the tile below it. About one row per 16 events,
        // where version 6 wrote two per event. The tree is derived data: version 6's tables are
        // dropped, and the tree is built again from the log on first use.
        """
        DROP TABLE IF EXISTS merkle_leaves;
        DROP TABLE IF EXISTS merkle_nodes;
        CREATE TABLE IF NOT EXISTS merkle_tiles (
            level          INTEGER NOT NULL CHECK (level >= 0 AND level % 4 = 0),
            idx            INTEGER NOT NULL CHECK (idx >= 0),   -- the nodes (level, 16 idx) … (level, 16 idx + 15)
            hashes         BLOB    NOT NULL CHECK (length(hashes) BETWEEN 32 AND 512 AND length(hashes) % 32 = 0),
            first_position INTEGER,   -- level 0: the position of the first leaf's event
            last_position  INTEGER,   -- level 0: the position of the last leaf's event
            PRIMARY KEY (level, idx)
        );
        CREATE INDEX IF NOT EXISTS merkle_tiles_last_position ON merkle_tiles (last_position) WHERE level = 0;
        -- Append-only: a tile is never removed, and the last tile of a level only grows.
        CREATE TRIGGER IF NOT EXISTS merkle_tiles_append_only_update BEFORE UPDATE ON merkle_tiles
        WHEN NOT (NEW.level IS OLD.level AND NEW.idx IS OLD.idx AND NEW.first_position IS OLD.first_position
                  AND length(NEW.hashes) > length(OLD.hashes) AND substr(NEW.hashes, 1, length(OLD.hashes)) = OLD.hashes)
        BEGIN SELECT RAISE(ABORT, 'evtool: the Merkle tree is append-only (a tile only grows)'); END;
        CREATE TRIGGER IF NOT EXISTS merkle_tiles_append_only_delete BEFORE DELETE ON merkle_tiles
        BEGIN SELECT RAISE(ABORT, 'evtool: the Merkle tree is append-only'); END;
        """,
        // Version 8: archives (`evtool archive`, docs/explanation/audit.md "Archives"). Each archive's record
        // (the boundary, the events and file it took, the heads carried over, the tree's root at
        // that size), each stream's head as of the latest boundary, and the one DELETE allowed on
        // events: rows below a recorded boundary, in the archive's own transaction. Written to run
        // again over what it made (IF NOT EXISTS), as a re-run upgrade may.
        """
        CREATE TABLE IF NOT EXISTS archives (
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
        CREATE TRIGGER IF NOT EXISTS archives_append_only_update BEFORE UPDATE ON archives
        BEGIN SELECT RAISE(ABORT, 'evtool: archives are append-only'); END;
        CREATE TRIGGER IF NOT EXISTS archives_append_only_delete BEFORE DELETE ON archives
        BEGIN SELECT RAISE(ABORT, 'evtool: archives are append-only'); END;

        -- Each stream's head as of the latest boundary: appends and verify carry on from it.
        CREATE TABLE IF NOT EXISTS archived_heads (
            stream_id TEXT    PRIMARY KEY,
            version   INTEGER NOT NULL,
            hash      TEXT    NOT NULL,
            state     TEXT                  -- the runner's decision state as of this head (JSON)
        ) WITHOUT ROWID;

        DROP TRIGGER IF EXISTS events_append_only_delete;
        CREATE TRIGGER events_append_only_delete BEFORE DELETE ON events
        WHEN OLD.position >= coalesce((SELECT max(position) FROM archives), 1)
        BEGIN SELECT RAISE(ABORT, 'evtool: events are append-only; DELETE is not allowed'); END;
        """,
    ]

    /// What an erased payload (data and metadata) is replaced with.
    static let tombstone = #"{"erased":true}"#

    /// Append-only in the file itself: created after step 3 has filled the hashes. The one
    /// update allowed is an erasure: data and metadata become the tombstone, every other
    /// column stays, and the erasures table already holds the original digests.
    static let appendOnlyTriggers = """
        CREATE TRIGGER events_append_only_delete BEFORE DELETE ON events
        BEGIN SELECT RAISE(ABORT, 'evtool: events are append-only; DELETE is not allowed'); END;

        CREATE TRIGGER events_append_only_update BEFORE UPDATE ON events
        WHEN NOT (
            NEW.data = '\(tombstone)' AND NEW.metadata = '\(tombstone)'
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
        """
}
