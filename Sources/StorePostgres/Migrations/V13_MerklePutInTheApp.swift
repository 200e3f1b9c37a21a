// Frozen once shipped, like every migration (see Migrations.swift).

extension PostgresMigration {
    /// Version 13: `merkle_put`, the writer of tiles the follower computed in the app (issue 16,
    /// docs/explanation/audit.md "Who computes the tree"). The app hashes the events of its own batched
    /// append in Swift with libcrypto and hands the function the tiles they grow or fill; the
    /// function writes them under the tree's lock, as the owner, only when the tree
    /// still has the size the caller built on, and only tiles of exactly the shape a tree of the
    /// new size has, each kept hash unchanged (the tiles' append-only trigger of version 7: a
    /// tile only grows). So no role but the owner can rewrite, remove or reorder a kept hash,
    /// and an app role can add only the next hashes, which `verify`, `seal` and `prove`
    /// recompute from the log as they do today. `merkle_extend` (the tree computed in SQL)
    /// takes the events the follower did not append itself. And `append_returning_hashes`,
    /// `append` that also returns the chain hashes it inserted, so that the follower on the
    /// appending handle takes them from the call instead of reading the rows back (as
    /// SQLite's does); `append` stays as it was.
    static let version13 = PostgresMigration(version: 13, name: "merkle_put: the tree's tiles computed in the app", template: #"""
-- Writes the tiles that extending the tree of p_size leaves to p_new_size gives (p_levels[i],
-- p_idx[i], p_hashes[i], and for level 0 the positions of the first and last leaf's events),
-- each whole (a partial tile kept before is written again with its kept hashes first).
-- Writes only if the events at p_check_positions still have the chain hashes p_check_hashes
-- (the caller's own append, whose hashes it built on). Returns the tree's size and the
-- position of its last leaf after the call, whether those events held those hashes, and
-- whether it wrote: false when they did not, or when the tree no longer has p_size leaves
-- (another follower extended it first; the caller reads again).
CREATE OR REPLACE FUNCTION {{schema}}.merkle_put(p_size bigint, p_new_size bigint, p_levels integer[], p_idx bigint[], p_hashes bytea[],
                                       p_first bigint[], p_last bigint[], p_check_positions bigint[], p_check_hashes text[],
                                       OUT tree_size bigint, OUT last_position bigint, OUT checked boolean, OUT written boolean)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET lock_timeout = '2s'
    SET plan_cache_mode = force_generic_plan AS $fn$
#variable_conflict use_column
DECLARE
    n integer := cardinality(p_levels);
    old_last bigint;
    expected bigint;
    count_written bigint;
    new_last bigint;
BEGIN
    IF n IS NULL OR n = 0 OR cardinality(p_idx) IS DISTINCT FROM n OR cardinality(p_hashes) IS DISTINCT FROM n
       OR cardinality(p_first) IS DISTINCT FROM n OR cardinality(p_last) IS DISTINCT FROM n
       OR p_size IS NULL OR p_size < 0 OR p_new_size IS NULL
       OR cardinality(p_check_positions) IS DISTINCT FROM cardinality(p_check_hashes) THEN
        RAISE EXCEPTION 'evtool merkle_put: the arrays do not describe one set of tiles' USING ERRCODE = '22023';
    END IF;
    IF p_new_size <= p_size THEN
        RAISE EXCEPTION 'evtool merkle_put: the tiles add no leaf to the tree of % leaves', p_size USING ERRCODE = '22023';
    END IF;
    LOCK TABLE {{schema}}.merkle_tiles IN EXCLUSIVE MODE;
    SELECT t.idx * 16 + length(t.hashes) / 32, t.last_position INTO tree_size, last_position
      FROM {{schema}}.merkle_tiles t WHERE t.level = 0 ORDER BY t.idx DESC LIMIT 1;
    IF NOT FOUND THEN
        tree_size := 0;
        last_position := 0;
    END IF;
    written := false;
    SELECT count(*) = coalesce(cardinality(p_check_positions), 0) INTO checked
      FROM unnest(p_check_positions, p_check_hashes) AS c(position, hash)
      JOIN {{schema}}.events e ON e.position = c.position AND e.hash = c.hash;
    IF NOT checked OR tree_size <> p_size THEN
        RETURN;
    END IF;
    old_last := last_position;
    -- How many tiles the growth changes: at each level, those from the one holding node
    -- p_size >> level to the one holding the last of the new_size >> level nodes.
    SELECT sum(CASE WHEN (p_new_size >> l) > (p_size >> l) THEN ((p_new_size >> l) - 1) / 16 - (p_size >> l) / 16 + 1 ELSE 0 END)
      INTO expected FROM generate_series(0, 60, 4) AS l;
    IF expected <> n THEN
        RAISE EXCEPTION 'evtool merkle_put: the tiles are not those that extending the tree of % leaves to % gives', p_size, p_new_size
            USING ERRCODE = '22023';
    END IF;
    -- The tree is derived data: when this call's writes are its transaction's only ones, it
    -- commits without waiting for the disk (as merkle_extend and SQLite's follower do).
    IF pg_current_xact_id_if_assigned() IS NULL THEN
        PERFORM set_config('synchronous_commit', 'off', true);
    END IF;
    -- One pass: only tiles of the growth's shape are taken (each one the new leaves change, with
    -- exactly the nodes a tree of p_new_size has in it; at level 0 positions that rise after the
    -- tree's last leaf); the open ones (a level's first, when the tree has part of it) grow in
    -- place (their append-only trigger refuses a changed kept hash), the others are inserted (a
    -- row already there is a unique violation). Fewer written than given undoes the call: with
    -- the count above and the key unique, the written tiles are exactly those of the growth,
    -- and only their new hash values are the caller's.
    WITH k AS (
        SELECT k.* FROM unnest(p_levels, p_idx, p_hashes, p_first, p_last) AS k(level, idx, hashes, first, last)
         WHERE k.level >= 0 AND k.level < 64 AND k.level % 4 = 0 AND k.idx >= 0 AND length(k.hashes) % 32 = 0
           AND k.idx * 16 + length(k.hashes) / 32 > (p_size >> k.level)
           AND length(k.hashes) / 32 = least(16, (p_new_size >> k.level) - k.idx * 16)
           AND CASE WHEN k.level = 0
                    THEN k.first <= k.last AND k.last > old_last AND (k.idx * 16 < p_size OR k.first > old_last)
                    ELSE k.first IS NULL AND k.last IS NULL END),
    grown AS (
        UPDATE {{schema}}.merkle_tiles t SET hashes = k.hashes, last_position = k.last
          FROM k WHERE k.idx * 16 < (p_size >> k.level) AND t.level = k.level AND t.idx = k.idx
        RETURNING t.level, t.idx, t.last_position),
    fresh AS (
        INSERT INTO {{schema}}.merkle_tiles (level, idx, hashes, first_position, last_position)
        SELECT k.level, k.idx, k.hashes, k.first, k.last FROM k WHERE k.idx * 16 >= (p_size >> k.level)
        RETURNING level, idx, last_position)
    SELECT count(*), (array_agg(w.last_position ORDER BY w.idx DESC) FILTER (WHERE w.level = 0))[1]
      INTO count_written, new_last
      FROM (SELECT * FROM grown UNION ALL SELECT * FROM fresh) AS w;
    IF count_written <> n THEN
        RAISE EXCEPTION 'evtool merkle_put: the tiles are not those that extending the tree of % leaves to % gives', p_size, p_new_size
            USING ERRCODE = '22023';
    END IF;
    tree_size := p_new_size;
    last_position := new_last;
    written := true;
END
$fn$;

-- append() as in version 10, under a name of its own, and it also returns each event's chain
-- hash, in position order (what it inserted), so that the follower on the appending handle
-- takes them from the call instead of reading the rows back. append() itself stays as it is
-- (its result type cannot change while an earlier migration, run again, replaces it), for
-- callers other than evtool.
CREATE OR REPLACE FUNCTION {{schema}}.append_returning_hashes(
    p_streams text[], p_kinds integer[], p_versions bigint[], p_counts integer[],
    p_ids uuid[], p_types text[], p_data json[], p_metadata json[], p_recorded_at timestamptz[],
    OUT status integer, OUT failed_part integer, OUT actual_version bigint,
    OUT stream_versions bigint[], OUT first_position bigint, OUT chain_hashes text[])
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET lock_timeout = '2s' AS $fn$
DECLARE
    n integer := cardinality(p_ids);
    parts integer := cardinality(p_streams);
    xid xid8;
    names text[];               -- the distinct streams, in the order their rows are locked
    head_version bigint[] := '{}';
    head_hash bytea[] := '{}';
    head_position bigint[] := '{}';
    bases bigint[] := '{}';
    offsets integer[] := '{}';
    event_part integer[] := '{}';
    hashes text[] := '{}';
    done integer := 0;
    actual bigint;
    found_version bigint;
    found_hash text;
    found_position bigint;
    prev bytea;
    h integer;
    i integer;
    ignored boolean;   -- PERFORM runs a full query; an assignment is a cheap expression
BEGIN
    -- The transaction id must be taken inside the reservation below, so it must not
    -- exist yet: refuse to run inside a transaction that has already written.
    IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
        RAISE EXCEPTION 'evtool append must run in its own transaction' USING ERRCODE = '25001';
    END IF;
    IF n IS NULL OR n = 0 OR parts IS NULL OR parts = 0
       OR cardinality(p_kinds) <> parts OR cardinality(p_versions) <> parts OR cardinality(p_counts) <> parts
       OR cardinality(p_types) <> n OR cardinality(p_data) <> n OR cardinality(p_metadata) <> n
       OR cardinality(p_recorded_at) <> n THEN
        RAISE EXCEPTION 'evtool append: the arrays do not describe one batch' USING ERRCODE = '22023';
    END IF;

    -- The reservation: the transaction id and a block of positions are taken together
    -- under a table lock only the owner can take, so among appenders transaction-id order
    -- equals position order. A table lock needs no transaction id. Rolling the block back
    -- releases the lock at once (not at commit); the variables keep their values, and a
    -- sequence is not transactional, so the positions stay taken.
    BEGIN
        LOCK TABLE {{schema}}.append_reservation IN EXCLUSIVE MODE;
        -- Enforced, not assumed: nothing before this point may have taken an xid.
        IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
            RAISE EXCEPTION 'evtool append: a transaction id was assigned before the reservation' USING ERRCODE = 'XX000';
        END IF;
        xid := pg_current_xact_id();
        first_position := nextval('{{schema}}.position_seq');
        IF n > 1 THEN
            ignored := setval('{{schema}}.position_seq', first_position + n - 1) IS NULL;
        END IF;
        RAISE SQLSTATE 'EV000';
    EXCEPTION WHEN SQLSTATE 'EV000' THEN
        NULL;
    END;

    -- Partitions (schema 10): made ahead, by the owner, before any stream row is locked.
    IF first_position + n - 1 >= coalesce(nullif(current_setting('evtool.partitions_{{schema_name}}', true), ''), '0')::bigint THEN
        ignored := set_config('evtool.partitions_{{schema_name}}', {{schema}}.make_partitions(first_position + n - 1)::text, false) IS NULL;
    END IF;

    -- Writers of one stream take turns until they commit (the version check needs it):
    -- each stream's row is locked, in one order, so that two multi-stream appends cannot
    -- deadlock. Writers of different streams do not wait for each other here.
    IF parts = 1 THEN
        names := p_streams;
    ELSE
        SELECT array_agg(DISTINCT x COLLATE "C" ORDER BY x COLLATE "C") INTO names FROM unnest(p_streams) AS x;
    END IF;
    FOR h IN 1..cardinality(names) LOOP
        SELECT t.version, t.hash, t.position INTO found_version, found_hash, found_position
        FROM {{schema}}.streams t WHERE t.stream_id = names[h] FOR NO KEY UPDATE;
        IF NOT FOUND THEN
            INSERT INTO {{schema}}.streams (stream_id, version, hash, position) VALUES (names[h], 0, repeat('00', 32), 0)
            ON CONFLICT (stream_id) DO NOTHING;
            IF FOUND THEN
                found_version := 0; found_hash := repeat('00', 32); found_position := 0;
            ELSE
                -- Another writer created the stream first, and has committed.
                SELECT t.version, t.hash, t.position INTO STRICT found_version, found_hash, found_position
                FROM {{schema}}.streams t WHERE t.stream_id = names[h] FOR NO KEY UPDATE;
            END IF;
        END IF;
        -- Versions must rise with positions: a writer that reserved later positions than
        -- ours but took the stream first has committed them. Ours would go below its own.
        IF found_position > first_position THEN
            RAISE EXCEPTION 'evtool append: a later append to stream % committed first; call again', names[h] USING ERRCODE = 'EV001';
        END IF;
        head_version := head_version || found_version;
        head_hash := head_hash || decode(found_hash, 'hex');
        head_position := head_position || found_position;
    END LOOP;

    stream_versions := '{}';
    FOR part IN 1..parts LOOP
        h := CASE WHEN parts = 1 THEN 1 ELSE array_position(names, p_streams[part]) END;
        -- The stream's version: what is stored plus earlier parts of this batch.
        actual := head_version[h];
        IF NOT (p_kinds[part] = 0
                OR (p_kinds[part] = 1 AND actual = 0)
                OR (p_kinds[part] = 2 AND actual > 0)
                OR (p_kinds[part] = 3 AND actual = p_versions[part])) THEN
            status := 1; failed_part := part; actual_version := actual; first_position := 0;
            RETURN;
        END IF;
        bases := bases || actual;
        offsets := offsets || done;
        IF parts > 1 THEN
            event_part := event_part || array_fill(part, ARRAY[p_counts[part]]);
        END IF;
        -- Each event's chain hash (EventChain), in order, from the stream's head.
        prev := head_hash[h];
        FOR j IN 1..p_counts[part] LOOP
            i := done + j;
            prev := {{schema}}.chain_hash(prev, p_streams[part], actual + j, p_ids[i], p_types[i],
                                   coalesce(p_recorded_at[i], now()),
                                   sha256(convert_to(p_data[i]::text, 'UTF8')), sha256(convert_to(p_metadata[i]::text, 'UTF8')));
            hashes := hashes || encode(prev, 'hex');
        END LOOP;
        done := done + p_counts[part];
        head_version[h] := actual + p_counts[part];
        head_hash[h] := prev;
        head_position[h] := first_position + done - 1;
        stream_versions := stream_versions || head_version[h];
    END LOOP;
    IF done <> n THEN
        RAISE EXCEPTION 'evtool append: the part counts do not add up to the events' USING ERRCODE = '22023';
    END IF;

    -- Event ids are unique over the whole log (schema 10): a duplicate fails here, constraint
    -- events_event_id_key, and nothing is written.
    IF n = 1 THEN
        INSERT INTO {{schema}}.event_ids (event_id, position) VALUES (p_ids[1], first_position);
        INSERT INTO {{schema}}.events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id, hash)
        VALUES (first_position, p_streams[1], bases[1] + 1, p_ids[1], p_types[1], p_data[1], p_metadata[1],
                coalesce(p_recorded_at[1], now()), xid, hashes[1]);
        UPDATE {{schema}}.streams SET version = head_version[1], hash = encode(head_hash[1], 'hex'), position = head_position[1]
        WHERE stream_id = names[1];
    ELSIF parts = 1 THEN
        INSERT INTO {{schema}}.event_ids (event_id, position) SELECT p_ids[k], first_position + k - 1 FROM generate_series(1, n) AS k;
        INSERT INTO {{schema}}.events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id, hash)
        SELECT first_position + k - 1, p_streams[1], bases[1] + k, p_ids[k], p_types[k], p_data[k], p_metadata[k],
               coalesce(p_recorded_at[k], now()), xid, hashes[k]
        FROM generate_series(1, n) AS k;
        UPDATE {{schema}}.streams SET version = head_version[1], hash = encode(head_hash[1], 'hex'), position = head_position[1]
        WHERE stream_id = names[1];
    ELSE
        INSERT INTO {{schema}}.event_ids (event_id, position) SELECT p_ids[k], first_position + k - 1 FROM generate_series(1, n) AS k;
        INSERT INTO {{schema}}.events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id, hash)
        SELECT first_position + k - 1, p_streams[event_part[k]], bases[event_part[k]] + k - offsets[event_part[k]],
               p_ids[k], p_types[k], p_data[k], p_metadata[k], coalesce(p_recorded_at[k], now()), xid, hashes[k]
        FROM generate_series(1, n) AS k;
        UPDATE {{schema}}.streams t SET version = u.version, hash = encode(u.hash, 'hex'), position = u.position
        FROM unnest(names, head_version, head_hash, head_position) AS u(stream_id, version, hash, position)
        WHERE t.stream_id = u.stream_id;
    END IF;

    status := 0;
    chain_hashes := hashes;
END
$fn$;
-- append()'s callers may call it; the auditor may not.
REVOKE ALL ON FUNCTION {{schema}}.append_returning_hashes(text[], integer[], bigint[], integer[], uuid[], text[], json[], json[], timestamptz[]) FROM PUBLIC;
DO $do$
DECLARE
    grantee text;
BEGIN
    FOR grantee IN
        SELECT CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(r.rolname) END
        FROM pg_proc p
        CROSS JOIN LATERAL aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) AS a
        LEFT JOIN pg_roles r ON r.oid = a.grantee
        WHERE p.oid = '{{schema}}.append(text[], integer[], bigint[], integer[], uuid[], text[], json[], json[], timestamptz[])'::regprocedure
          AND a.privilege_type = 'EXECUTE' AND a.grantee <> p.proowner
    LOOP
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %s', '{{schema}}.append_returning_hashes(text[], integer[], bigint[], integer[], uuid[], text[], json[], json[], timestamptz[])', grantee);
    END LOOP;
END
$do$;

-- merkle_extend's callers (the app roles) may call it; the auditor may not.
REVOKE ALL ON FUNCTION {{schema}}.merkle_put(bigint, bigint, integer[], bigint[], bytea[], bigint[], bigint[], bigint[], text[]) FROM PUBLIC;
DO $do$
DECLARE
    grantee text;
BEGIN
    FOR grantee IN
        SELECT CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(r.rolname) END
        FROM pg_proc p
        CROSS JOIN LATERAL aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) AS a
        LEFT JOIN pg_roles r ON r.oid = a.grantee
        WHERE p.oid = '{{schema}}.merkle_extend(integer)'::regprocedure
          AND a.privilege_type = 'EXECUTE' AND a.grantee <> p.proowner
    LOOP
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %s', '{{schema}}.merkle_put(bigint, bigint, integer[], bigint[], bytea[], bigint[], bigint[], bigint[], text[])', grantee);
    END LOOP;
END
$do$;
-- Both functions belong to the schema's owner (as version 10's new objects do), whoever runs
-- the upgrade: a SECURITY DEFINER function runs as its owner.
DO $do$
DECLARE
    owner text := (SELECT quote_ident(n.nspowner::regrole::text) FROM pg_namespace n WHERE n.nspname = '{{schema_name}}');
BEGIN
    EXECUTE format('ALTER FUNCTION %s OWNER TO %s', '{{schema}}.append_returning_hashes(text[], integer[], bigint[], integer[], uuid[], text[], json[], json[], timestamptz[])', owner);
    EXECUTE format('ALTER FUNCTION %s OWNER TO %s', '{{schema}}.merkle_put(bigint, bigint, integer[], bigint[], bytea[], bigint[], bigint[], bigint[], text[])', owner);
END
$do$;
"""#)
}
