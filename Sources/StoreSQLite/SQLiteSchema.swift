/// The SQLite file's schema, by version. Each step upgrades from the version before it.
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
    ]
}
