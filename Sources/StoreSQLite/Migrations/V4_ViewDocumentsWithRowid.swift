// Frozen: the text of a step that has shipped never changes (a test pins each one's
// SHA-256). A change is a new step at the end (SQLiteSchema.steps lists them in order).

extension SQLiteSchema {
    /// Version 4: view documents in a table with a rowid and a unique index on the key. A
    /// WITHOUT ROWID table keeps each row inside its primary-key b-tree, which suits small
    /// rows; view documents are kilobytes, and writing a rebuilt view that way cost about a
    /// fifth more of the whole rebuild. The documents are copied over as they are.
    static let version4 = """
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
        """
}
