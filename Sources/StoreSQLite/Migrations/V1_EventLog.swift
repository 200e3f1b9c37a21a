// Frozen: the text of a step that has shipped never changes (a test pins each one's
// SHA-256). A change is a new step at the end (SQLiteSchema.steps lists them in order).

extension SQLiteSchema {
    /// Version 1: the event log.
    static let version1 = """
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
        """
}
