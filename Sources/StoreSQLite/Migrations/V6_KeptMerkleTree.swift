// Frozen: the text of a step that has shipped never changes (a test pins each one's
// SHA-256). A change is a new step at the end (SQLiteSchema.steps lists them in order).

extension SQLiteSchema {
    /// Version 6: the log's Merkle tree, kept (docs/explanation/audit.md). Derived data, written by the
    /// tree's follower (never by an append) and recomputed by `evtool verify`: each leaf
    /// (leaf i is the i-th event in position order) and the root of every perfect subtree
    /// above them, so that a proof reads O(log n) rows. Filled from the log on first use.
    /// Written to run again over tables it made (IF NOT EXISTS), as a re-run upgrade may.
    /// And the checkpoints `seal --key` signed.
    static let version6 = """
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
        """
}
