// Frozen: the text of a step that has shipped never changes (a test pins each one's
// SHA-256). A change is a new step at the end (SQLiteSchema.steps lists them in order).

extension SQLiteSchema {
    /// Version 2: views and their checkpoints, kept beside the log so that a batch of view
    /// changes and the checkpoint it reached commit in one transaction.
    static let version2 = """
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
        """
}
