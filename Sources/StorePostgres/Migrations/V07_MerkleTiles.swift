// Frozen once shipped, like every migration (see Migrations.swift).

extension PostgresMigration {
    /// Version 7: the kept Merkle tree in tiles (docs/explanation/audit.md), as Tessera keeps its tree: one
    /// row holds the hashes of 16 consecutive nodes of a level that is a multiple of 4 (level 0:
    /// the leaf hashes, with the positions of the first and last leaf's events); every other
    /// node is computed from the tile below it. About one row per 16 events, where version 6
    /// wrote two per event. The tree is derived data: version 6's tables are dropped and the
    /// tree is built again from the log on first use. `merkle_extend` keeps its signature (so
    /// its `EXECUTE` grants stay) and still computes every hash from the events as the owner,
    /// so no role but the owner can write a tile.
    static let version7 = PostgresMigration(version: 7, name: "kept Merkle tree in tiles", template: #"""
-- Runs again over what it made (IF NOT EXISTS, OR REPLACE), as a re-run upgrade may.
DROP TABLE IF EXISTS {{schema}}.merkle_leaves, {{schema}}.merkle_nodes;
-- Tile (level, idx) holds the hashes of the nodes (level, 16 idx) … (level, 16 idx + 15).
CREATE TABLE IF NOT EXISTS {{schema}}.merkle_tiles (
    level integer NOT NULL CHECK (level >= 0 AND level % 4 = 0),
    idx bigint NOT NULL CHECK (idx >= 0),
    hashes bytea NOT NULL CHECK (length(hashes) BETWEEN 32 AND 512 AND length(hashes) % 32 = 0),
    first_position bigint,
    last_position bigint,
    PRIMARY KEY (level, idx)
);
CREATE INDEX IF NOT EXISTS merkle_tiles_last_position ON {{schema}}.merkle_tiles (last_position) WHERE level = 0;
COMMENT ON TABLE {{schema}}.merkle_tiles IS 'evtool audit: the Merkle tree''s tiles (16 hashes of one level a row), derived from the log by merkle_extend; verify recomputes them';

-- Append-only: a tile is never removed, and the last tile of a level only grows.
CREATE OR REPLACE FUNCTION {{schema}}.merkle_tile_change() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.level = OLD.level AND NEW.idx = OLD.idx
       AND NEW.first_position IS NOT DISTINCT FROM OLD.first_position
       AND length(NEW.hashes) > length(OLD.hashes)
       AND substring(NEW.hashes FROM 1 FOR length(OLD.hashes)) = OLD.hashes THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'evtool: the Merkle tree is append-only (a tile only grows)' USING ERRCODE = '55000';
END
$fn$;
CREATE OR REPLACE TRIGGER merkle_tiles_append_only BEFORE UPDATE OR DELETE ON {{schema}}.merkle_tiles
    FOR EACH ROW EXECUTE FUNCTION {{schema}}.merkle_tile_change();
CREATE OR REPLACE TRIGGER merkle_tiles_no_truncate BEFORE TRUNCATE ON {{schema}}.merkle_tiles
    FOR EACH STATEMENT EXECUTE FUNCTION {{schema}}.refuse_change();

-- The root of a full tile: its 16 hashes folded pairwise, SHA-256(0x01 || left || right).
CREATE OR REPLACE FUNCTION {{schema}}.merkle_tile_root(p_hashes bytea) RETURNS bytea
LANGUAGE plpgsql IMMUTABLE STRICT SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
    b bytea := p_hashes;
    n bytea;
BEGIN
    WHILE length(b) > 32 LOOP
        n := '\x'::bytea;
        FOR k IN 0 .. length(b) / 64 - 1 LOOP
            n := n || sha256('\x01'::bytea || substring(b FROM 64 * k + 1 FOR 64));
        END LOOP;
        b := n;
    END LOOP;
    RETURN b;
END
$fn$;

-- Extends the tree by at most p_limit events after its last leaf, in position order, and only
-- events no running transaction can still precede (as readAll hands them out). One extender at
-- a time (a table lock only the owner can take; readers are not blocked). Returns the tree's
-- size, the position of its last leaf, how many leaves this call added, and whether committed
-- events were held back behind a transaction still running (the caller may call again soon).
-- Set-based: the new leaf hashes in one query, then per level one upsert of the tiles they
-- grow or complete, whose roots are the next level's new hashes.
CREATE OR REPLACE FUNCTION {{schema}}.merkle_extend(p_limit integer, OUT tree_size bigint, OUT last_position bigint, OUT added integer,
                                         OUT held_back boolean)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET lock_timeout = '2s' AS $fn$
DECLARE
    old_size bigint;
    malformed bigint;
    positions bigint[];
    fresh bytea;
    content bytea;
    start bigint;
    first_tile bigint;
    lvl integer := 0;
BEGIN
    LOCK TABLE {{schema}}.merkle_tiles IN EXCLUSIVE MODE;
    SELECT t.idx * 16 + length(t.hashes) / 32, t.last_position INTO old_size, last_position
      FROM {{schema}}.merkle_tiles t WHERE t.level = 0 ORDER BY t.idx DESC LIMIT 1;
    IF NOT FOUND THEN
        old_size := 0;
        last_position := 0;
    END IF;
    -- The events after the last leaf that are safe to take: positions and transaction ids rise
    -- together, so they are a prefix; the rows after it wait for a transaction still running.
    SELECT coalesce(count(*) FILTER (WHERE c.prefix), 0), coalesce(bool_or(NOT c.prefix), false),
           coalesce(count(*) FILTER (WHERE c.prefix AND c.hash !~ '^[0-9a-f]{64}$'), 0)
      INTO added, held_back, malformed
      FROM (SELECT w.hash, bool_and(w.safe) OVER (ORDER BY w.position) AS prefix
              FROM (SELECT e.position, e.hash, e.tx_id < pg_snapshot_xmin(pg_current_snapshot()) AS safe
                      FROM {{schema}}.events e WHERE e.position > last_position ORDER BY e.position LIMIT p_limit) AS w) AS c;
    IF malformed > 0 THEN
        RAISE EXCEPTION 'evtool: an event after position % has no valid chain hash: the Merkle tree cannot cover it; run evtool verify', last_position
            USING ERRCODE = 'XX001';
    END IF;
    tree_size := old_size + added;
    IF added = 0 THEN
        RETURN;
    END IF;
    SELECT array_agg(e.position ORDER BY e.position), string_agg(sha256('\x00'::bytea || decode(e.hash, 'hex')), '\x'::bytea ORDER BY e.position)
      INTO positions, fresh
      FROM (SELECT e.position, e.hash FROM {{schema}}.events e WHERE e.position > last_position ORDER BY e.position LIMIT added) AS e;
    last_position := positions[added];
    start := old_size;
    WHILE fresh IS NOT NULL AND length(fresh) > 0 AND lvl < 64 LOOP
        -- The new hashes of level lvl are nodes start … ; the open tile's hashes come first.
        first_tile := start / 16;
        IF start % 16 <> 0 THEN
            SELECT t.hashes INTO content FROM {{schema}}.merkle_tiles t WHERE t.level = lvl AND t.idx = first_tile;
            IF NOT FOUND OR length(content) <> (start % 16) * 32 THEN
                RAISE EXCEPTION 'evtool: the kept Merkle tree of % leaves lacks its partial tile (level %, index %); run evtool verify', old_size, lvl, first_tile
                    USING ERRCODE = 'XX001';
            END IF;
            content := content || fresh;
        ELSE
            content := fresh;
        END IF;
        INSERT INTO {{schema}}.merkle_tiles AS t (level, idx, hashes, first_position, last_position)
            SELECT lvl, first_tile + k, substring(content FROM k * 512 + 1 FOR 512),
                   CASE WHEN lvl = 0 THEN positions[(greatest((first_tile + k) * 16 - old_size, 0) + 1)::integer] END,
                   CASE WHEN lvl = 0 THEN positions[(least((first_tile + k + 1) * 16, tree_size) - old_size)::integer] END
            FROM generate_series(0, (length(content) / 32 + 15) / 16 - 1) AS k
            ON CONFLICT (level, idx) DO UPDATE SET hashes = excluded.hashes, last_position = excluded.last_position;
        -- The roots of the tiles completed are the next level's new hashes, from node first_tile on.
        SELECT string_agg({{schema}}.merkle_tile_root(substring(content FROM k * 512 + 1 FOR 512)), '\x'::bytea ORDER BY k)
          INTO fresh FROM generate_series(0, length(content) / 512 - 1) AS k;
        start := first_tile;
        lvl := lvl + 4;
    END LOOP;
END
$fn$;

-- merkle_tile_root is pure; only the owner's functions need it.
REVOKE ALL ON FUNCTION {{schema}}.merkle_tile_root(bytea) FROM PUBLIC;
-- Read by every role that reads the seals, as version 6's tables were.
DO $do$
DECLARE
    grantee text;
BEGIN
    FOR grantee IN
        SELECT quote_ident(r.rolname)
        FROM pg_class c
        CROSS JOIN LATERAL aclexplode(c.relacl) AS a
        JOIN pg_roles r ON r.oid = a.grantee
        WHERE c.oid = '{{schema}}.seals'::regclass AND a.privilege_type = 'SELECT' AND r.oid <> c.relowner
    LOOP
        EXECUTE format('GRANT SELECT ON %s TO %s', '{{schema}}.merkle_tiles', grantee);
    END LOOP;
END
$do$;
"""#)
}
