// Frozen: the text of a step that has shipped never changes (a test pins each one's
// SHA-256). A change is a new step at the end (SQLiteSchema.steps lists them in order).

extension SQLiteSchema {
    /// Version 8: archives (`evtool archive`, docs/explanation/audit.md "Archives"). Each archive's record
    /// (the boundary, the events and file it took, the heads carried over, the tree's root at
    /// that size), each stream's head as of the latest boundary, and the one DELETE allowed on
    /// events: rows below a recorded boundary, in the archive's own transaction. Written to run
    /// again over what it made (IF NOT EXISTS), as a re-run upgrade may.
    static let version8 = """
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
        """
}
