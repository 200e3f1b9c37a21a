// Frozen: the text of a step that has shipped never changes (a test pins each one's
// SHA-256). A change is a new step at the end (SQLiteSchema.steps lists them in order).

extension SQLiteSchema {
    /// Version 7: the kept Merkle tree in tiles (docs/explanation/audit.md), as Tessera keeps its tree:
    /// one row holds the hashes of 16 consecutive nodes of a level that is a multiple of 4
    /// (level 0: the leaf hashes, with the positions of the first and last leaf's events);
    /// every other node is computed from the tile below it. About one row per 16 events,
    /// where version 6 wrote two per event. The tree is derived data: version 6's tables are
    /// dropped, and the tree is built again from the log on first use.
    static let version7 = """
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
        """
}
