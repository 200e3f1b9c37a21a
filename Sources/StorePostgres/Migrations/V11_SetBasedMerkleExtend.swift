// Frozen once shipped, like every migration (see Migrations.swift).

extension PostgresMigration {
    /// Version 11: `merkle_extend` at a tenth of a batched append's cost (issue 16), tables
    /// unchanged: one pass over the new events (the safe prefix, its positions and leaf hashes,
    /// and the check of each chain hash by its length and `decode`, not a regular expression
    /// per row), the roots of the tiles filled folded four times set-based (no PL/pgSQL loop
    /// per tile), per level one upsert, plans made once per session, and a commit that does not
    /// wait for the disk when the call's writes are its transaction's only ones (derived data,
    /// as on SQLite). `CREATE OR REPLACE` keeps its signature, owner and
    /// `EXECUTE` grants, and it still computes every hash from the events as the owner, so no
    /// role but the owner can write a tile.
    static let version11 = PostgresMigration(version: 11, name: "merkle_extend set-based", template: #"""
-- Extends the tree by at most p_limit events after its last leaf, in position order, and only
-- events no running transaction can still precede (as readAll hands them out). One extender at
-- a time (a table lock only the owner can take; readers are not blocked). Returns the tree's
-- size, the position of its last leaf, how many leaves this call added, and whether committed
-- events were held back behind a transaction still running (the caller may call again soon).
CREATE OR REPLACE FUNCTION {{schema}}.merkle_extend(p_limit integer, OUT tree_size bigint, OUT last_position bigint, OUT added integer,
                                         OUT held_back boolean)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET lock_timeout = '2s'
    -- Its statements' plans do not depend on the values bound (an index range in position
    -- order, a primary-key probe, rows from generate_series): planned once per session,
    -- not again at every call (8% of the call's processor time in perf).
    SET plan_cache_mode = force_generic_plan AS $fn$
DECLARE
    old_size bigint;
    horizon xid8;
    positions bigint[];
    fresh bytea;
    content bytea;
    bad_position bigint;
    start bigint;
    first_tile bigint;
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
    -- One pass over the events after the last leaf: the prefix no running transaction can still
    -- precede (positions and transaction ids rise together; the rows after it wait for a
    -- transaction still running), its positions and leaf hashes, and the first chain hash in it
    -- that is not 64 hex digits (decode refuses a byte that is not one and skips blanks, so a
    -- hash of 64 bytes that decodes to 32 is 64 digits).
    BEGIN
        SELECT count(*) FILTER (WHERE w.prefix)::integer, coalesce(bool_or(NOT w.prefix), false),
               array_agg(w.position ORDER BY w.position) FILTER (WHERE w.prefix),
               string_agg(sha256('\x00'::bytea || w.entry), '\x'::bytea ORDER BY w.position) FILTER (WHERE w.prefix),
               min(w.position) FILTER (WHERE w.prefix AND (w.digits <> 64 OR length(w.entry) <> 32))
          INTO added, held_back, positions, fresh, bad_position
          FROM (SELECT e.position, octet_length(e.hash) AS digits, decode(e.hash, 'hex') AS entry,
                       bool_and(e.tx_id < horizon) OVER (ORDER BY e.position) AS prefix
                  FROM (SELECT e.position, e.hash, e.tx_id FROM {{schema}}.events e
                         WHERE e.position > last_position ORDER BY e.position LIMIT p_limit) AS e) AS w;
    EXCEPTION WHEN invalid_parameter_value THEN
        -- decode refused a hash (a byte that is not a hex digit, or an odd count): find it.
        SELECT min(e.position) INTO bad_position
          FROM (SELECT e.position, e.hash FROM {{schema}}.events e
                 WHERE e.position > last_position ORDER BY e.position LIMIT p_limit) AS e
         WHERE e.hash !~ '^[0-9a-fA-F]{64}$';
        IF bad_position IS NULL THEN
            RAISE;
        END IF;
    END;
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
        -- The roots of the tiles filled are the next level's new hashes, from node first_tile on:
        -- their hashes folded pairwise four times, all tiles at once (tiles start at multiples
        -- of 16, so no pair straddles two).
        fresh := substring(content FROM 1 FOR (length(content) / 512) * 512);
        FOR fold IN 1 .. 4 LOOP
            EXIT WHEN length(fresh) = 0;
            SELECT string_agg(sha256('\x01'::bytea || substring(fresh FROM 64 * k + 1 FOR 64)), '\x'::bytea ORDER BY k) INTO fresh
              FROM generate_series(0, length(fresh) / 64 - 1) AS k;
        END LOOP;
        start := first_tile;
        lvl := lvl + 4;
    END LOOP;
END
$fn$;
"""#)
}
