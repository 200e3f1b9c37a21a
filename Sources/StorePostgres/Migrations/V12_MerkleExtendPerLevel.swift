// Frozen once shipped, like every migration (see Migrations.swift).

extension PostgresMigration {
    /// Version 12: `merkle_extend` with one statement per level (issue 16), tables unchanged:
    /// the tiles a level's new hashes grow or fill are written by one `INSERT … ON CONFLICT`
    /// (the open tile extended in place, and only if it holds exactly the hashes the tree's
    /// size gives it), and the roots of the tiles filled come back from that statement,
    /// each folded from its 16 hashes by one expression (15 digests, no aggregate, no sort):
    /// where schema 11 read the open tile, wrote, and folded in four statements per level.
    /// The pass over the new events has no window function: the first event of a transaction
    /// that may still be running comes out of the same aggregate, and only when there is one is
    /// the pass made again over the events before it. `CREATE OR REPLACE` keeps its signature,
    /// owner and `EXECUTE` grants, and it still computes every hash from the events as the
    /// owner, so no role but the owner can write a tile.
    static let version12 = PostgresMigration(version: 12, name: "merkle_extend one statement per level", template: #"""
-- Extends the tree by at most p_limit events after its last leaf, in position order, and only
-- events no running transaction can still precede (as readAll hands them out). One extender at
-- a time (a table lock only the owner can take; readers are not blocked). Returns the tree's
-- size, the position of its last leaf, how many leaves this call added, and whether committed
-- events were held back behind a transaction still running (the caller may call again soon).
CREATE OR REPLACE FUNCTION {{schema}}.merkle_extend(p_limit integer, OUT tree_size bigint, OUT last_position bigint, OUT added integer,
                                         OUT held_back boolean)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET lock_timeout = '2s'
    -- Its statements' plans do not depend on the values bound: planned once per session.
    SET plan_cache_mode = force_generic_plan AS $fn$
DECLARE
    old_size bigint;
    horizon xid8;
    positions bigint[];
    fresh bytea;
    bad_position bigint;
    cut bigint;
    upto bigint;
    start bigint;
    first_tile bigint;
    open_hashes integer;
    n integer;
    written bigint;
    whole boolean;
    lvl integer := 0;
    own_transaction boolean := pg_current_xact_id_if_assigned() IS NULL;
BEGIN
    LOCK TABLE {{schema}}.merkle_tiles IN EXCLUSIVE MODE;
    SELECT t.idx * 16 + length(t.hashes) / 32, t.last_position INTO old_size, last_position
      FROM {{schema}}.merkle_tiles t WHERE t.level = 0 ORDER BY t.idx DESC LIMIT 1;
    IF NOT FOUND THEN
        old_size := 0;
        last_position := 0;
    END IF;
    horizon := pg_snapshot_xmin(pg_current_snapshot());
    -- One pass over the events after the last leaf, in position order: their positions and
    -- leaf hashes, the first of them written by a transaction that may still be running when
    -- the pass began (at or above the horizon), and the first chain hash that is not 64 hex
    -- digits (decode refuses a byte that is not one and skips blanks, so a hash of 64 bytes
    -- that decodes to 32 is 64 digits). Positions and transaction ids rise together, so the
    -- events a call may take are those before that first one: when there is one (rare: a
    -- transaction still running), the pass is made again over the events before it only.
    held_back := false;
    LOOP
        BEGIN
            SELECT count(*)::integer, min(e.position) FILTER (WHERE e.tx_id >= horizon),
                   array_agg(e.position ORDER BY e.position),
                   string_agg(sha256('\x00'::bytea || e.entry), '\x'::bytea ORDER BY e.position),
                   min(e.position) FILTER (WHERE e.digits <> 64 OR length(e.entry) <> 32)
              INTO added, cut, positions, fresh, bad_position
              FROM (SELECT e.position, e.tx_id, octet_length(e.hash) AS digits, decode(e.hash, 'hex') AS entry
                      FROM {{schema}}.events e
                     WHERE e.position > last_position AND (upto IS NULL OR e.position < upto)
                     ORDER BY e.position LIMIT p_limit) AS e;
        EXCEPTION WHEN invalid_parameter_value THEN
            -- decode refused a hash (a byte that is not a hex digit, or an odd count): find it.
            SELECT min(e.position) INTO bad_position
              FROM (SELECT e.position, e.hash FROM {{schema}}.events e
                     WHERE e.position > last_position AND (upto IS NULL OR e.position < upto)
                     ORDER BY e.position LIMIT p_limit) AS e
             WHERE e.hash !~ '^[0-9a-fA-F]{64}$';
            IF bad_position IS NULL THEN
                RAISE;
            END IF;
            cut := NULL;
        END;
        EXIT WHEN cut IS NULL;
        held_back := true;
        upto := cut;
    END LOOP;
    IF bad_position IS NOT NULL THEN
        RAISE EXCEPTION 'evtool: the event at position % has no valid chain hash: the Merkle tree cannot cover it (run evtool verify)', bad_position
            USING ERRCODE = 'XX001';
    END IF;
    tree_size := old_size + added;
    IF added = 0 THEN
        RETURN;
    END IF;
    last_position := positions[added];
    -- The tree is derived data: when this call's writes are its transaction's only ones, that
    -- transaction commits without waiting for the disk (as SQLite's follower commits with
    -- synchronous=NORMAL). A crash can then lose only the last extensions, which the next one
    -- redoes, never an event: an append refuses to run in a transaction that has written, so
    -- no event is committed in this one, and an event's own commit flushes the log before it.
    IF own_transaction THEN
        PERFORM set_config('synchronous_commit', 'off', true);
    END IF;
    start := old_size;
    WHILE fresh IS NOT NULL AND length(fresh) > 0 AND lvl < 64 LOOP
        -- The n new hashes of level lvl are nodes start … start + n - 1: the open tile
        -- (open_hashes kept already) grows by the first of them, the next tiles are new. One
        -- statement writes them all (the open tile by appending to it, and only if it holds
        -- exactly what was kept: a tile removed, cut or lengthened stops the extension) and
        -- gives the roots of the tiles it filled, each folded from its 16 hashes (15 digests):
        -- the next level's new hashes, from node first_tile on.
        first_tile := start / 16;
        open_hashes := start % 16;
        n := length(fresh) / 32;
        WITH grown AS (
            INSERT INTO {{schema}}.merkle_tiles AS t (level, idx, hashes, first_position, last_position)
            SELECT lvl, first_tile + k, substring(fresh FROM s * 32 + 1 FOR (e - s) * 32),
                   CASE WHEN lvl = 0 THEN positions[s + 1] END,
                   CASE WHEN lvl = 0 THEN positions[e] END
              FROM generate_series(0, (open_hashes + n - 1) / 16) AS k,
                   LATERAL (SELECT greatest(16 * k - open_hashes, 0) AS s, least(16 * k + 16 - open_hashes, n) AS e) AS r
            ON CONFLICT (level, idx) DO UPDATE SET hashes = t.hashes || excluded.hashes, last_position = excluded.last_position
               WHERE t.idx = first_tile AND length(t.hashes) = open_hashes * 32
            RETURNING t.idx, t.hashes)
        SELECT count(*), coalesce(bool_and(length(g.hashes) = least(16, open_hashes + n - 16 * (g.idx - first_tile)) * 32), false),
               string_agg(
                   sha256('\x01'::bytea
                       || sha256('\x01'::bytea
                           || sha256('\x01'::bytea || sha256('\x01'::bytea || substring(g.hashes FROM 1 FOR 64)) || sha256('\x01'::bytea || substring(g.hashes FROM 65 FOR 64)))
                           || sha256('\x01'::bytea || sha256('\x01'::bytea || substring(g.hashes FROM 129 FOR 64)) || sha256('\x01'::bytea || substring(g.hashes FROM 193 FOR 64))))
                       || sha256('\x01'::bytea
                           || sha256('\x01'::bytea || sha256('\x01'::bytea || substring(g.hashes FROM 257 FOR 64)) || sha256('\x01'::bytea || substring(g.hashes FROM 321 FOR 64)))
                           || sha256('\x01'::bytea || sha256('\x01'::bytea || substring(g.hashes FROM 385 FOR 64)) || sha256('\x01'::bytea || substring(g.hashes FROM 449 FOR 64))))),
                   '\x'::bytea ORDER BY g.idx) FILTER (WHERE length(g.hashes) = 512)
          INTO written, whole, fresh
          FROM grown g;
        IF written <> (open_hashes + n - 1) / 16 + 1 OR NOT whole THEN
            RAISE EXCEPTION 'evtool: the kept Merkle tree of % leaves lacks its partial tile (level %, index %) of % hashes; run evtool verify',
                old_size, lvl, first_tile, open_hashes
                USING ERRCODE = 'XX001';
        END IF;
        start := first_tile;
        lvl := lvl + 4;
    END LOOP;
END
$fn$;
"""#)
}
