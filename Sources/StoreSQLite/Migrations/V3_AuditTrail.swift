// Frozen: the text of a step that has shipped never changes (a test pins each one's
// SHA-256). A change is a new step at the end (SQLiteSchema.steps lists them in order).

extension SQLiteSchema {
    /// Version 3: the audit trail (docs/explanation/audit.md). Each event's link in its stream's hash
    /// chain (filled for existing rows by the upgrade, see `afterStep3`), the original
    /// digests of erased payloads, and seals over all stream heads.
    static let version3 = """
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
        """
}
