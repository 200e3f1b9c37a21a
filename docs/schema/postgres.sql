-- The schema of a new evtool PostgreSQL store (schema version 19) in the schema `evtool`,
-- as pg_dump --schema-only --no-owner --no-privileges prints it (without its version and
-- session lines). Written by scripts/schema.sh; SchemaFileTests fails when a store made now
-- differs. The migrations that make it: Sources/StorePostgres/Migrations/ (one file a step, V14_OptimisticReservation.swift …).

--
-- PostgreSQL database dump
--

--
-- Name: evtool; Type: SCHEMA; Schema: -; Owner: -
--

CREATE SCHEMA evtool;

--
-- Name: append(text[], integer[], bigint[], integer[], uuid[], text[], json[], json[], timestamp with time zone[]); Type: FUNCTION; Schema: evtool; Owner: -
--

CREATE FUNCTION evtool.append(p_streams text[], p_kinds integer[], p_versions bigint[], p_counts integer[], p_ids uuid[], p_types text[], p_data json[], p_metadata json[], p_recorded_at timestamp with time zone[], OUT status integer, OUT failed_part integer, OUT actual_version bigint, OUT stream_versions bigint[], OUT first_position bigint) RETURNS record
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET lock_timeout TO '2s'
    AS $$
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
        LOCK TABLE "evtool".append_reservation IN EXCLUSIVE MODE;
        -- Enforced, not assumed: nothing before this point may have taken an xid.
        IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
            RAISE EXCEPTION 'evtool append: a transaction id was assigned before the reservation' USING ERRCODE = 'XX000';
        END IF;
        xid := pg_current_xact_id();
        first_position := nextval('"evtool".position_seq');
        IF n > 1 THEN
            ignored := setval('"evtool".position_seq', first_position + n - 1) IS NULL;
        END IF;
        RAISE SQLSTATE 'EV000';
    EXCEPTION WHEN SQLSTATE 'EV000' THEN
        NULL;
    END;

    -- Partitions (schema 10): made ahead, by the owner, before any stream row is locked.
    IF first_position + n - 1 >= coalesce(nullif(current_setting('evtool.partitions_evtool', true), ''), '0')::bigint THEN
        ignored := set_config('evtool.partitions_evtool', "evtool".make_partitions(first_position + n - 1)::text, false) IS NULL;
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
        FROM "evtool".streams t WHERE t.stream_id = names[h] FOR NO KEY UPDATE;
        IF NOT FOUND THEN
            INSERT INTO "evtool".streams (stream_id, version, hash, position) VALUES (names[h], 0, repeat('00', 32), 0)
            ON CONFLICT (stream_id) DO NOTHING;
            IF FOUND THEN
                found_version := 0; found_hash := repeat('00', 32); found_position := 0;
            ELSE
                -- Another writer created the stream first, and has committed.
                SELECT t.version, t.hash, t.position INTO STRICT found_version, found_hash, found_position
                FROM "evtool".streams t WHERE t.stream_id = names[h] FOR NO KEY UPDATE;
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
            prev := "evtool".chain_hash(prev, p_streams[part], actual + j, p_ids[i], p_types[i],
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
        INSERT INTO "evtool".events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id, hash)
        VALUES (first_position, p_streams[1], bases[1] + 1, p_ids[1], p_types[1], p_data[1], p_metadata[1],
                coalesce(p_recorded_at[1], now()), xid, hashes[1]);
        UPDATE "evtool".streams SET version = head_version[1], hash = encode(head_hash[1], 'hex'), position = head_position[1]
        WHERE stream_id = names[1];
    ELSIF parts = 1 THEN
        INSERT INTO "evtool".events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id, hash)
        SELECT first_position + e.k - 1, p_streams[1], bases[1] + e.k, e.id, e.type, e.data, e.metadata,
               coalesce(e.recorded_at, now()), xid, e.hash
        FROM unnest(p_ids, p_types, p_data, p_metadata, p_recorded_at, hashes)
             WITH ORDINALITY AS e(id, type, data, metadata, recorded_at, hash, k);
        UPDATE "evtool".streams SET version = head_version[1], hash = encode(head_hash[1], 'hex'), position = head_position[1]
        WHERE stream_id = names[1];
    ELSE
        INSERT INTO "evtool".events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id, hash)
        SELECT first_position + e.k - 1, s.stream_id, bases[s.part] + e.k - offsets[s.part],
               e.id, e.type, e.data, e.metadata, coalesce(e.recorded_at, now()), xid, e.hash
        FROM unnest(p_ids, p_types, p_data, p_metadata, p_recorded_at, hashes)
             WITH ORDINALITY AS e(id, type, data, metadata, recorded_at, hash, k)
        JOIN unnest(p_streams) WITH ORDINALITY AS s(stream_id, part) ON s.part = event_part[e.k]
        ORDER BY e.k;
        UPDATE "evtool".streams t SET version = u.version, hash = encode(u.hash, 'hex'), position = u.position
        FROM unnest(names, head_version, head_hash, head_position) AS u(stream_id, version, hash, position)
        WHERE t.stream_id = u.stream_id;
    END IF;

    status := 0;
END
$$;

--
-- Name: append_copied(text[], integer[], bigint[], integer[], uuid[], text[], json[], json[], timestamp with time zone[], text[], text[], uuid[]); Type: FUNCTION; Schema: evtool; Owner: -
--

CREATE FUNCTION evtool.append_copied(p_streams text[], p_kinds integer[], p_versions bigint[], p_counts integer[], p_ids uuid[], p_types text[], p_data json[], p_metadata json[], p_recorded_at timestamp with time zone[], p_data_sha256 text[], p_metadata_sha256 text[], p_erasure_ids uuid[], OUT status integer, OUT failed_part integer, OUT actual_version bigint, OUT stream_versions bigint[], OUT first_position bigint, OUT chain_hashes text[]) RETURNS record
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET lock_timeout TO '2s'
    AS $_$
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
       OR cardinality(p_recorded_at) <> n OR cardinality(p_data_sha256) <> n OR cardinality(p_metadata_sha256) <> n
       OR cardinality(p_erasure_ids) <> n THEN
        RAISE EXCEPTION 'evtool append: the arrays do not describe one batch' USING ERRCODE = '22023';
    END IF;
    -- An event copied erased is the tombstone, with the two digests its source kept.
    FOR i IN 1..n LOOP
        IF p_erasure_ids[i] IS NOT NULL AND NOT (p_data[i]::text = '{"erased":true}' AND p_metadata[i]::text = '{"erased":true}'
                                                 AND p_data_sha256[i] ~ '^[0-9a-f]{64}$' AND p_metadata_sha256[i] ~ '^[0-9a-f]{64}$') THEN
            RAISE EXCEPTION 'evtool append: event % is copied as erased but is not a tombstone with two SHA-256 digests', i USING ERRCODE = '22023';
        END IF;
    END LOOP;

    -- The reservation: the transaction id and a block of positions are taken together
    -- under a table lock only the owner can take, so among appenders transaction-id order
    -- equals position order. A table lock needs no transaction id. Rolling the block back
    -- releases the lock at once (not at commit); the variables keep their values, and a
    -- sequence is not transactional, so the positions stay taken.
    BEGIN
        LOCK TABLE "evtool".append_reservation IN EXCLUSIVE MODE;
        -- Enforced, not assumed: nothing before this point may have taken an xid.
        IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
            RAISE EXCEPTION 'evtool append: a transaction id was assigned before the reservation' USING ERRCODE = 'XX000';
        END IF;
        xid := pg_current_xact_id();
        first_position := nextval('"evtool".position_seq');
        IF n > 1 THEN
            ignored := setval('"evtool".position_seq', first_position + n - 1) IS NULL;
        END IF;
        RAISE SQLSTATE 'EV000';
    EXCEPTION WHEN SQLSTATE 'EV000' THEN
        NULL;
    END;

    -- Partitions (schema 10): made ahead, by the owner, before any stream row is locked.
    IF first_position + n - 1 >= coalesce(nullif(current_setting('evtool.partitions_evtool', true), ''), '0')::bigint THEN
        ignored := set_config('evtool.partitions_evtool', "evtool".make_partitions(first_position + n - 1)::text, false) IS NULL;
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
        FROM "evtool".streams t WHERE t.stream_id = names[h] FOR NO KEY UPDATE;
        IF NOT FOUND THEN
            INSERT INTO "evtool".streams (stream_id, version, hash, position) VALUES (names[h], 0, repeat('00', 32), 0)
            ON CONFLICT (stream_id) DO NOTHING;
            IF FOUND THEN
                found_version := 0; found_hash := repeat('00', 32); found_position := 0;
            ELSE
                -- Another writer created the stream first, and has committed.
                SELECT t.version, t.hash, t.position INTO STRICT found_version, found_hash, found_position
                FROM "evtool".streams t WHERE t.stream_id = names[h] FOR NO KEY UPDATE;
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
            IF p_erasure_ids[i] IS NULL THEN
                prev := "evtool".chain_hash(prev, p_streams[part], actual + j, p_ids[i], p_types[i],
                                       coalesce(p_recorded_at[i], now()),
                                       sha256(convert_to(p_data[i]::text, 'UTF8')), sha256(convert_to(p_metadata[i]::text, 'UTF8')));
            ELSE
                -- Chained from the digests the source kept, as the source chained it.
                prev := "evtool".chain_hash(prev, p_streams[part], actual + j, p_ids[i], p_types[i],
                                       coalesce(p_recorded_at[i], now()),
                                       decode(p_data_sha256[i], 'hex'), decode(p_metadata_sha256[i], 'hex'));
            END IF;
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
        INSERT INTO "evtool".events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id, hash)
        VALUES (first_position, p_streams[1], bases[1] + 1, p_ids[1], p_types[1], p_data[1], p_metadata[1],
                coalesce(p_recorded_at[1], now()), xid, hashes[1]);
        UPDATE "evtool".streams SET version = head_version[1], hash = encode(head_hash[1], 'hex'), position = head_position[1]
        WHERE stream_id = names[1];
    ELSIF parts = 1 THEN
        INSERT INTO "evtool".events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id, hash)
        SELECT first_position + e.k - 1, p_streams[1], bases[1] + e.k, e.id, e.type, e.data, e.metadata,
               coalesce(e.recorded_at, now()), xid, e.hash
        FROM unnest(p_ids, p_types, p_data, p_metadata, p_recorded_at, hashes)
             WITH ORDINALITY AS e(id, type, data, metadata, recorded_at, hash, k);
        UPDATE "evtool".streams SET version = head_version[1], hash = encode(head_hash[1], 'hex'), position = head_position[1]
        WHERE stream_id = names[1];
    ELSE
        INSERT INTO "evtool".events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id, hash)
        SELECT first_position + e.k - 1, s.stream_id, bases[s.part] + e.k - offsets[s.part],
               e.id, e.type, e.data, e.metadata, coalesce(e.recorded_at, now()), xid, e.hash
        FROM unnest(p_ids, p_types, p_data, p_metadata, p_recorded_at, hashes)
             WITH ORDINALITY AS e(id, type, data, metadata, recorded_at, hash, k)
        JOIN unnest(p_streams) WITH ORDINALITY AS s(stream_id, part) ON s.part = event_part[e.k]
        ORDER BY e.k;
        UPDATE "evtool".streams t SET version = u.version, hash = encode(u.hash, 'hex'), position = u.position
        FROM unnest(names, head_version, head_hash, head_position) AS u(stream_id, version, hash, position)
        WHERE t.stream_id = u.stream_id;
    END IF;

    -- The erasures of the events copied erased, as forget records its own.
    INSERT INTO "evtool".erasures (event_id, position, data_sha256, metadata_sha256, erased_at, erasure_event_id)
    SELECT p_ids[k], first_position + k - 1, p_data_sha256[k], p_metadata_sha256[k], now(), p_erasure_ids[k]
    FROM generate_series(1, n) AS k WHERE p_erasure_ids[k] IS NOT NULL;

    status := 0;
    chain_hashes := hashes;
END
$_$;

--
-- Name: append_one(text, integer, bigint, uuid, text, json, json, timestamp with time zone); Type: FUNCTION; Schema: evtool; Owner: -
--

CREATE FUNCTION evtool.append_one(p_stream text, p_kind integer, p_version bigint, p_id uuid, p_type text, p_data json, p_metadata json, p_recorded_at timestamp with time zone, OUT status integer, OUT failed_part integer, OUT actual_version bigint, OUT stream_versions bigint[], OUT first_position bigint) RETURNS record
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET lock_timeout TO '2s'
    AS $$
DECLARE
    xid xid8;
    found_version bigint;
    found_position bigint;
    ignored boolean;
BEGIN
    IF p_stream IS NULL OR p_kind IS NULL OR p_version IS NULL OR p_id IS NULL OR p_type IS NULL
       OR p_data IS NULL OR p_metadata IS NULL THEN
        RAISE EXCEPTION 'evtool append: the event is incomplete' USING ERRCODE = '22023';
    END IF;

    -- The reservation without a lock that writers wait for (schema 14, docs/POSTGRES-ORDERING.md
    -- "The one-event reservation"). The transaction id and the position must be taken in the
    -- same order by every writer: read the sequence, take the transaction id (the
    -- transaction's first), take the next position, and refuse (EV001: nothing is written,
    -- the client calls again in a new transaction) when any other position was taken in
    -- between. Of two appends whose ids and positions are in opposite orders, one took its
    -- id and its position around the other's: that one is refused. Batched appends reserve
    -- a block (nextval, then setval) under the table's EXCLUSIVE lock; the ROW EXCLUSIVE
    -- lock taken here conflicts with it and with nothing else, so a block is never reserved
    -- while a one-event append is between its steps. Like theirs, it is released as soon as
    -- the position is taken (the exception block's subtransaction ends), so a transaction
    -- left open after an append holds no lock that other appends wait for.
    BEGIN
        LOCK TABLE "evtool".append_reservation IN ROW EXCLUSIVE MODE;
        IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
            RAISE EXCEPTION 'evtool append must run in its own transaction' USING ERRCODE = '25001';
        END IF;
        found_position := coalesce(pg_sequence_last_value('"evtool".position_seq'), 0);
        xid := pg_current_xact_id();
        first_position := nextval('"evtool".position_seq');
        RAISE SQLSTATE 'EV000';
    EXCEPTION WHEN SQLSTATE 'EV000' THEN
        NULL;
    END;
    IF first_position <> found_position + 1 THEN
        RAISE EXCEPTION 'evtool append: another append took a position while this one reserved; call again' USING ERRCODE = 'EV001';
    END IF;

    -- Partitions (schema 10), as in append().
    IF first_position >= coalesce(nullif(current_setting('evtool.partitions_evtool', true), ''), '0')::bigint THEN
        ignored := set_config('evtool.partitions_evtool', "evtool".make_partitions(first_position)::text, false) IS NULL;
    END IF;

    -- One statement: lock the stream's row (the UPDATE takes FOR NO KEY UPDATE, so writers of
    -- one stream take turns until they commit), check the expectation and that no
    -- later-reserved append of the stream committed first, move the head, chain the event's
    -- hash (EventChain) from the head's, and insert the event and its id.
    WITH head AS (
        UPDATE "evtool".streams t
        SET version = t.version + 1, position = first_position,
            hash = encode("evtool".chain_hash(decode(t.hash, 'hex'), p_stream, t.version + 1, p_id, p_type,
                                                coalesce(p_recorded_at, now()),
                                                sha256(convert_to(p_data::text, 'UTF8')),
                                                sha256(convert_to(p_metadata::text, 'UTF8'))), 'hex')
        WHERE t.stream_id = p_stream AND t.position < first_position
          AND (p_kind = 0 OR (p_kind = 1 AND t.version = 0) OR (p_kind = 2 AND t.version > 0)
               OR (p_kind = 3 AND t.version = p_version))
        RETURNING t.version, t.hash)
    INSERT INTO "evtool".events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id, hash)
    SELECT first_position, p_stream, head.version, p_id, p_type, p_data, p_metadata,
           coalesce(p_recorded_at, now()), xid, head.hash
    FROM head
    RETURNING 0, ARRAY[version] INTO status, stream_versions;
    IF FOUND THEN
        RETURN;
    END IF;

    -- No row was updated. A new stream, when the expectation allows one: its row is made with
    -- this event as its head, and the event inserted, in one statement (its chain starts from
    -- 32 zero bytes, as every stream's does). A writer that made the row first, committed or
    -- not, wins: ON CONFLICT waits for it and inserts nothing, and the steps below decide.
    IF p_kind = 0 OR p_kind = 1 OR (p_kind = 3 AND p_version = 0) THEN
        WITH head AS (
            INSERT INTO "evtool".streams AS t (stream_id, version, hash, position)
            VALUES (p_stream, 1,
                    encode("evtool".chain_hash(decode(repeat('00', 32), 'hex'), p_stream, 1, p_id, p_type,
                                                 coalesce(p_recorded_at, now()),
                                                 sha256(convert_to(p_data::text, 'UTF8')),
                                                 sha256(convert_to(p_metadata::text, 'UTF8'))), 'hex'),
                    first_position)
            ON CONFLICT (stream_id) DO NOTHING
            RETURNING t.version, t.hash)
        INSERT INTO "evtool".events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id, hash)
        SELECT first_position, p_stream, head.version, p_id, p_type, p_data, p_metadata,
               coalesce(p_recorded_at, now()), xid, head.hash
        FROM head
        RETURNING 0, ARRAY[version] INTO status, stream_versions;
        IF FOUND THEN
            RETURN;
        END IF;
    END IF;

    -- Still nothing: an expectation that does not hold, a later append to the stream that
    -- committed first, or a new stream another writer made meanwhile. Lock the row (creating
    -- it for a new stream, as append() does) and tell them apart; then the statement runs
    -- once more and finds the row.
    SELECT t.version, t.position INTO found_version, found_position
    FROM "evtool".streams t WHERE t.stream_id = p_stream FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        INSERT INTO "evtool".streams (stream_id, version, hash, position) VALUES (p_stream, 0, repeat('00', 32), 0)
        ON CONFLICT (stream_id) DO NOTHING;
        -- Ours, or another writer's that has committed.
        SELECT t.version, t.position INTO STRICT found_version, found_position
        FROM "evtool".streams t WHERE t.stream_id = p_stream FOR NO KEY UPDATE;
    END IF;
    IF found_position > first_position THEN
        RAISE EXCEPTION 'evtool append: a later append to stream % committed first; call again', p_stream USING ERRCODE = 'EV001';
    END IF;
    IF NOT (p_kind = 0 OR (p_kind = 1 AND found_version = 0) OR (p_kind = 2 AND found_version > 0)
            OR (p_kind = 3 AND found_version = p_version)) THEN
        status := 1; failed_part := 1; actual_version := found_version; first_position := 0;
        RETURN;
    END IF;
    WITH head AS (
        UPDATE "evtool".streams t
        SET version = t.version + 1, position = first_position,
            hash = encode("evtool".chain_hash(decode(t.hash, 'hex'), p_stream, t.version + 1, p_id, p_type,
                                                coalesce(p_recorded_at, now()),
                                                sha256(convert_to(p_data::text, 'UTF8')),
                                                sha256(convert_to(p_metadata::text, 'UTF8'))), 'hex')
        WHERE t.stream_id = p_stream AND t.position < first_position
        RETURNING t.version, t.hash)
    INSERT INTO "evtool".events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id, hash)
    SELECT first_position, p_stream, head.version, p_id, p_type, p_data, p_metadata,
           coalesce(p_recorded_at, now()), xid, head.hash
    FROM head
    RETURNING 0, ARRAY[version] INTO status, stream_versions;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'evtool append: stream % did not take the event after its row was checked', p_stream USING ERRCODE = 'XX000';
    END IF;
END
$$;

--
-- Name: append_returning_hashes(text[], integer[], bigint[], integer[], uuid[], text[], json[], json[], timestamp with time zone[]); Type: FUNCTION; Schema: evtool; Owner: -
--

CREATE FUNCTION evtool.append_returning_hashes(p_streams text[], p_kinds integer[], p_versions bigint[], p_counts integer[], p_ids uuid[], p_types text[], p_data json[], p_metadata json[], p_recorded_at timestamp with time zone[], OUT status integer, OUT failed_part integer, OUT actual_version bigint, OUT stream_versions bigint[], OUT first_position bigint, OUT chain_hashes text[]) RETURNS record
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET lock_timeout TO '2s'
    AS $$
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
        LOCK TABLE "evtool".append_reservation IN EXCLUSIVE MODE;
        -- Enforced, not assumed: nothing before this point may have taken an xid.
        IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
            RAISE EXCEPTION 'evtool append: a transaction id was assigned before the reservation' USING ERRCODE = 'XX000';
        END IF;
        xid := pg_current_xact_id();
        first_position := nextval('"evtool".position_seq');
        IF n > 1 THEN
            ignored := setval('"evtool".position_seq', first_position + n - 1) IS NULL;
        END IF;
        RAISE SQLSTATE 'EV000';
    EXCEPTION WHEN SQLSTATE 'EV000' THEN
        NULL;
    END;

    -- Partitions (schema 10): made ahead, by the owner, before any stream row is locked.
    IF first_position + n - 1 >= coalesce(nullif(current_setting('evtool.partitions_evtool', true), ''), '0')::bigint THEN
        ignored := set_config('evtool.partitions_evtool', "evtool".make_partitions(first_position + n - 1)::text, false) IS NULL;
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
        FROM "evtool".streams t WHERE t.stream_id = names[h] FOR NO KEY UPDATE;
        IF NOT FOUND THEN
            INSERT INTO "evtool".streams (stream_id, version, hash, position) VALUES (names[h], 0, repeat('00', 32), 0)
            ON CONFLICT (stream_id) DO NOTHING;
            IF FOUND THEN
                found_version := 0; found_hash := repeat('00', 32); found_position := 0;
            ELSE
                -- Another writer created the stream first, and has committed.
                SELECT t.version, t.hash, t.position INTO STRICT found_version, found_hash, found_position
                FROM "evtool".streams t WHERE t.stream_id = names[h] FOR NO KEY UPDATE;
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
            prev := "evtool".chain_hash(prev, p_streams[part], actual + j, p_ids[i], p_types[i],
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
        INSERT INTO "evtool".events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id, hash)
        VALUES (first_position, p_streams[1], bases[1] + 1, p_ids[1], p_types[1], p_data[1], p_metadata[1],
                coalesce(p_recorded_at[1], now()), xid, hashes[1]);
        UPDATE "evtool".streams SET version = head_version[1], hash = encode(head_hash[1], 'hex'), position = head_position[1]
        WHERE stream_id = names[1];
    ELSIF parts = 1 THEN
        INSERT INTO "evtool".events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id, hash)
        SELECT first_position + e.k - 1, p_streams[1], bases[1] + e.k, e.id, e.type, e.data, e.metadata,
               coalesce(e.recorded_at, now()), xid, e.hash
        FROM unnest(p_ids, p_types, p_data, p_metadata, p_recorded_at, hashes)
             WITH ORDINALITY AS e(id, type, data, metadata, recorded_at, hash, k);
        UPDATE "evtool".streams SET version = head_version[1], hash = encode(head_hash[1], 'hex'), position = head_position[1]
        WHERE stream_id = names[1];
    ELSE
        INSERT INTO "evtool".events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id, hash)
        SELECT first_position + e.k - 1, s.stream_id, bases[s.part] + e.k - offsets[s.part],
               e.id, e.type, e.data, e.metadata, coalesce(e.recorded_at, now()), xid, e.hash
        FROM unnest(p_ids, p_types, p_data, p_metadata, p_recorded_at, hashes)
             WITH ORDINALITY AS e(id, type, data, metadata, recorded_at, hash, k)
        JOIN unnest(p_streams) WITH ORDINALITY AS s(stream_id, part) ON s.part = event_part[e.k]
        ORDER BY e.k;
        UPDATE "evtool".streams t SET version = u.version, hash = encode(u.hash, 'hex'), position = u.position
        FROM unnest(names, head_version, head_hash, head_position) AS u(stream_id, version, hash, position)
        WHERE t.stream_id = u.stream_id;
    END IF;

    status := 0;
    chain_hashes := hashes;
END
$$;

--
-- Name: chain_hash(bytea, text, bigint, uuid, text, timestamp with time zone, bytea, bytea); Type: FUNCTION; Schema: evtool; Owner: -
--

CREATE FUNCTION evtool.chain_hash(prev bytea, stream text, version bigint, id uuid, type text, recorded_at timestamp with time zone, data_sha bytea, metadata_sha bytea) RETURNS bytea
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$
    SELECT sha256(convert_to('evtool-chain-v1', 'UTF8') || prev
        || int8send(octet_length(convert_to(stream, 'UTF8'))::bigint) || convert_to(stream, 'UTF8')
        || int8send(version)
        || int8send(36::bigint) || convert_to(id::text, 'UTF8')
        || int8send(octet_length(convert_to(type, 'UTF8'))::bigint) || convert_to(type, 'UTF8')
        || int8send(27::bigint) || convert_to(to_char(recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), 'UTF8')
        || int8send(32::bigint) || data_sha || int8send(32::bigint) || metadata_sha)
$$;

--
-- Name: event_partitions(); Type: FUNCTION; Schema: evtool; Owner: -
--

CREATE FUNCTION evtool.event_partitions(OUT name text, OUT first_position bigint, OUT end_position bigint) RETURNS SETOF record
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $_$
    SELECT c.relname::text, CASE WHEN b[1] = 'MINVALUE' THEN NULL ELSE b[1]::bigint END, b[2]::bigint
    FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid
    CROSS JOIN LATERAL regexp_match(pg_get_expr(c.relpartbound, c.oid),
                                    '^FOR VALUES FROM \(''?(MINVALUE|-?[0-9]+)''?\) TO \(''?(-?[0-9]+)''?\)$') AS b
    WHERE i.inhparent = '"evtool".events'::regclass
    ORDER BY b[2]::bigint
$_$;

--
-- Name: make_partitions(bigint); Type: FUNCTION; Schema: evtool; Owner: -
--

CREATE FUNCTION evtool.make_partitions(p_last bigint) RETURNS bigint
    LANGUAGE sql IMMUTABLE
    AS $$
        -- The single-table layout (schema 18): no partitions to make.
        SELECT 9223372036854775807::bigint
    $$;

--
-- Name: merkle_extend(integer); Type: FUNCTION; Schema: evtool; Owner: -
--

CREATE FUNCTION evtool.merkle_extend(p_limit integer, OUT tree_size bigint, OUT last_position bigint, OUT added integer, OUT held_back boolean) RETURNS record
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET lock_timeout TO '2s'
    SET plan_cache_mode TO 'force_generic_plan'
    AS $_$
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
    LOCK TABLE "evtool".merkle_tiles IN EXCLUSIVE MODE;
    SELECT t.idx * 16 + length(t.hashes) / 32, t.last_position INTO old_size, last_position
      FROM "evtool".merkle_tiles t WHERE t.level = 0 ORDER BY t.idx DESC LIMIT 1;
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
                      FROM "evtool".events e
                     WHERE e.position > last_position AND (upto IS NULL OR e.position < upto)
                     ORDER BY e.position LIMIT p_limit) AS e;
        EXCEPTION WHEN invalid_parameter_value THEN
            -- decode refused a hash (a byte that is not a hex digit, or an odd count): find it.
            SELECT min(e.position) INTO bad_position
              FROM (SELECT e.position, e.hash FROM "evtool".events e
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
            INSERT INTO "evtool".merkle_tiles AS t (level, idx, hashes, first_position, last_position)
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
$_$;

--
-- Name: merkle_put(bigint, bigint, integer[], bigint[], bytea[], bigint[], bigint[], bigint[], text[]); Type: FUNCTION; Schema: evtool; Owner: -
--

CREATE FUNCTION evtool.merkle_put(p_size bigint, p_new_size bigint, p_levels integer[], p_idx bigint[], p_hashes bytea[], p_first bigint[], p_last bigint[], p_check_positions bigint[], p_check_hashes text[], OUT tree_size bigint, OUT last_position bigint, OUT checked boolean, OUT written boolean) RETURNS record
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET lock_timeout TO '2s'
    SET plan_cache_mode TO 'force_generic_plan'
    AS $$
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
    LOCK TABLE "evtool".merkle_tiles IN EXCLUSIVE MODE;
    SELECT t.idx * 16 + length(t.hashes) / 32, t.last_position INTO tree_size, last_position
      FROM "evtool".merkle_tiles t WHERE t.level = 0 ORDER BY t.idx DESC LIMIT 1;
    IF NOT FOUND THEN
        tree_size := 0;
        last_position := 0;
    END IF;
    written := false;
    SELECT count(*) = coalesce(cardinality(p_check_positions), 0) INTO checked
      FROM unnest(p_check_positions, p_check_hashes) AS c(position, hash)
      JOIN "evtool".events e ON e.position = c.position AND e.hash = c.hash;
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
        UPDATE "evtool".merkle_tiles t SET hashes = k.hashes, last_position = k.last
          FROM k WHERE k.idx * 16 < (p_size >> k.level) AND t.level = k.level AND t.idx = k.idx
        RETURNING t.level, t.idx, t.last_position),
    fresh AS (
        INSERT INTO "evtool".merkle_tiles (level, idx, hashes, first_position, last_position)
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
$$;

--
-- Name: merkle_tile_change(); Type: FUNCTION; Schema: evtool; Owner: -
--

CREATE FUNCTION evtool.merkle_tile_change() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.level = OLD.level AND NEW.idx = OLD.idx
       AND NEW.first_position IS NOT DISTINCT FROM OLD.first_position
       AND length(NEW.hashes) > length(OLD.hashes)
       AND substring(NEW.hashes FROM 1 FOR length(OLD.hashes)) = OLD.hashes THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'evtool: the Merkle tree is append-only (a tile only grows)' USING ERRCODE = '55000';
END
$$;

--
-- Name: merkle_tile_root(bytea); Type: FUNCTION; Schema: evtool; Owner: -
--

CREATE FUNCTION evtool.merkle_tile_root(p_hashes bytea) RETURNS bytea
    LANGUAGE plpgsql IMMUTABLE STRICT
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
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
$$;

--
-- Name: refuse_change(); Type: FUNCTION; Schema: evtool; Owner: -
--

CREATE FUNCTION evtool.refuse_change() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
DECLARE
    is_events boolean := TG_TABLE_NAME = 'events' OR coalesce(pg_partition_root(TG_RELID) = '"evtool".events'::regclass, false);
BEGIN
    -- Nested: PL/pgSQL reads every field an IF names, and other tables' rows have no data.
    IF is_events THEN
        IF TG_OP = 'UPDATE'
           AND NEW.data::text = '{"erased":true}' AND NEW.metadata::text = '{"erased":true}'
           AND (NEW.position, NEW.stream_id, NEW.version, NEW.event_id, NEW.type, NEW.recorded_at, NEW.tx_id, NEW.hash)
               IS NOT DISTINCT FROM (OLD.position, OLD.stream_id, OLD.version, OLD.event_id, OLD.type, OLD.recorded_at, OLD.tx_id, OLD.hash)
           AND EXISTS (SELECT 1 FROM "evtool".erasures x WHERE x.event_id = OLD.event_id AND x.position = OLD.position) THEN
            RETURN NEW;
        END IF;
        IF TG_OP = 'DELETE' AND OLD.position < (SELECT max(a.position) FROM "evtool".archives a) THEN
            RETURN OLD;
        END IF;
    END IF;
    RAISE EXCEPTION 'evtool % are append-only (% refused%)', CASE WHEN is_events THEN 'events' ELSE TG_TABLE_NAME END, TG_OP,
        CASE WHEN is_events AND TG_TABLE_NAME <> 'events' THEN ' on partition ' || TG_TABLE_NAME ELSE '' END
        USING ERRCODE = '55000';
END
$$;

--
-- Name: append_reservation; Type: TABLE; Schema: evtool; Owner: -
--

CREATE TABLE evtool.append_reservation (
);

--
-- Name: TABLE append_reservation; Type: COMMENT; Schema: evtool; Owner: -
--

COMMENT ON TABLE evtool.append_reservation IS 'evtool: locked for microseconds by each append while it takes its transaction id and positions; holds no rows';

--
-- Name: archived_heads; Type: TABLE; Schema: evtool; Owner: -
--

CREATE TABLE evtool.archived_heads (
    stream_id text NOT NULL,
    version bigint NOT NULL,
    hash text NOT NULL,
    state text
);

--
-- Name: TABLE archived_heads; Type: COMMENT; Schema: evtool; Owner: -
--

COMMENT ON TABLE evtool.archived_heads IS 'evtool audit: each stream''s head (and the runner''s decision state) as of the latest archive boundary';

--
-- Name: archives; Type: TABLE; Schema: evtool; Owner: -
--

CREATE TABLE evtool.archives (
    archive bigint NOT NULL,
    "position" bigint NOT NULL,
    events bigint NOT NULL,
    file_events bigint NOT NULL,
    file_sha256 text NOT NULL,
    file_name text NOT NULL,
    heads_sha256 text NOT NULL,
    tree_root text NOT NULL,
    archived_at text NOT NULL,
    CONSTRAINT archives_archive_check CHECK ((archive >= 1))
);

--
-- Name: TABLE archives; Type: COMMENT; Schema: evtool; Owner: -
--

COMMENT ON TABLE evtool.archives IS 'evtool audit: every archive taken (evtool archive): the events below position are in the file with that SHA-256';

--
-- Name: erasures; Type: TABLE; Schema: evtool; Owner: -
--

CREATE TABLE evtool.erasures (
    event_id uuid NOT NULL,
    "position" bigint NOT NULL,
    data_sha256 text NOT NULL,
    metadata_sha256 text NOT NULL,
    erased_at timestamp with time zone NOT NULL,
    erasure_event_id uuid NOT NULL
);

--
-- Name: TABLE erasures; Type: COMMENT; Schema: evtool; Owner: -
--

COMMENT ON TABLE evtool.erasures IS 'evtool audit: digests of erased payloads, so the hash chain still verifies';

--
-- Name: events; Type: TABLE; Schema: evtool; Owner: -
--

CREATE TABLE evtool.events (
    "position" bigint NOT NULL,
    stream_id text NOT NULL,
    version bigint NOT NULL,
    event_id uuid NOT NULL,
    type text NOT NULL,
    data json NOT NULL,
    metadata json NOT NULL,
    recorded_at timestamp with time zone NOT NULL,
    tx_id xid8 NOT NULL,
    hash text DEFAULT ''::text NOT NULL,
    CONSTRAINT events_position_check CHECK ((("position" >= 1) AND (version >= 1)))
);

--
-- Name: TABLE events; Type: COMMENT; Schema: evtool; Owner: -
--

COMMENT ON TABLE evtool.events IS 'evtool event log: append-only; position is the global order, tx_id the appending transaction (see docs/ARCHITECTURE.md); one table (the single-table layout, docs/explanation/scale.md)';

--
-- Name: event_ids; Type: VIEW; Schema: evtool; Owner: -
--

CREATE VIEW evtool.event_ids AS
 SELECT e.event_id,
    e."position"
   FROM evtool.events e;

--
-- Name: VIEW event_ids; Type: COMMENT; Schema: evtool; Owner: -
--

COMMENT ON VIEW evtool.event_ids IS 'evtool: every event id in the log with its position; in the single-table layout a view of the events table, whose events_event_id_key keeps ids unique';

--
-- Name: merkle_tiles; Type: TABLE; Schema: evtool; Owner: -
--

CREATE TABLE evtool.merkle_tiles (
    level integer NOT NULL,
    idx bigint NOT NULL,
    hashes bytea NOT NULL,
    first_position bigint,
    last_position bigint,
    CONSTRAINT merkle_tiles_hashes_check CHECK ((((length(hashes) >= 32) AND (length(hashes) <= 512)) AND ((length(hashes) % 32) = 0))),
    CONSTRAINT merkle_tiles_idx_check CHECK ((idx >= 0)),
    CONSTRAINT merkle_tiles_level_check CHECK (((level >= 0) AND ((level % 4) = 0)))
);

--
-- Name: TABLE merkle_tiles; Type: COMMENT; Schema: evtool; Owner: -
--

COMMENT ON TABLE evtool.merkle_tiles IS 'evtool audit: the Merkle tree''s tiles (16 hashes of one level a row), derived from the log by merkle_extend; verify recomputes them';

--
-- Name: partitioning; Type: TABLE; Schema: evtool; Owner: -
--

CREATE TABLE evtool.partitioning (
    id integer NOT NULL,
    size bigint NOT NULL,
    CONSTRAINT partitioning_id_check CHECK ((id = 1)),
    CONSTRAINT partitioning_size_check CHECK ((size >= 1))
);

--
-- Name: TABLE partitioning; Type: COMMENT; Schema: evtool; Owner: -
--

COMMENT ON TABLE evtool.partitioning IS 'evtool: the size (in positions) of the events partitions made ahead of the head';

--
-- Name: position_seq; Type: SEQUENCE; Schema: evtool; Owner: -
--

CREATE SEQUENCE evtool.position_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: projections; Type: TABLE; Schema: evtool; Owner: -
--

CREATE TABLE evtool.projections (
    name text NOT NULL,
    generation integer NOT NULL,
    version integer NOT NULL,
    "position" bigint NOT NULL,
    active boolean NOT NULL,
    updated_at timestamp with time zone NOT NULL
);

--
-- Name: TABLE projections; Type: COMMENT; Schema: evtool; Owner: -
--

COMMENT ON TABLE evtool.projections IS 'evtool views: one row per generation of each view, with its checkpoint (the last position applied)';

--
-- Name: schema_version; Type: TABLE; Schema: evtool; Owner: -
--

CREATE TABLE evtool.schema_version (
    id integer NOT NULL,
    version integer NOT NULL,
    CONSTRAINT schema_version_id_check CHECK ((id = 1))
);

--
-- Name: seals; Type: TABLE; Schema: evtool; Owner: -
--

CREATE TABLE evtool.seals (
    seal bigint NOT NULL,
    "position" bigint NOT NULL,
    events bigint NOT NULL,
    streams bigint NOT NULL,
    heads_sha256 text NOT NULL,
    previous_hash text NOT NULL,
    hash text NOT NULL,
    sealed_at text NOT NULL
);

--
-- Name: TABLE seals; Type: COMMENT; Schema: evtool; Owner: -
--

COMMENT ON TABLE evtool.seals IS 'evtool audit: digests over every stream head, chained';

--
-- Name: signed_checkpoints; Type: TABLE; Schema: evtool; Owner: -
--

CREATE TABLE evtool.signed_checkpoints (
    checkpoint bigint NOT NULL,
    seal bigint NOT NULL,
    size bigint NOT NULL,
    note text NOT NULL,
    recorded_at text NOT NULL,
    CONSTRAINT signed_checkpoints_checkpoint_check CHECK ((checkpoint >= 1)),
    CONSTRAINT signed_checkpoints_size_check CHECK ((size >= 0))
);

--
-- Name: TABLE signed_checkpoints; Type: COMMENT; Schema: evtool; Owner: -
--

COMMENT ON TABLE evtool.signed_checkpoints IS 'evtool audit: the checkpoints seal --key signed, as printed';

--
-- Name: streams; Type: TABLE; Schema: evtool; Owner: -
--

CREATE TABLE evtool.streams (
    stream_id text NOT NULL,
    version bigint NOT NULL,
    hash text NOT NULL,
    "position" bigint NOT NULL
);

--
-- Name: TABLE streams; Type: COMMENT; Schema: evtool; Owner: -
--

COMMENT ON TABLE evtool.streams IS 'evtool: each stream''s head (version, chain hash, position of its last event), written only by the append function';

--
-- Name: unfinished_copy; Type: TABLE; Schema: evtool; Owner: -
--

CREATE TABLE evtool.unfinished_copy (
    id integer NOT NULL,
    source text NOT NULL,
    started_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT unfinished_copy_id_check CHECK ((id = 1))
);

--
-- Name: view_documents; Type: TABLE; Schema: evtool; Owner: -
--

CREATE TABLE evtool.view_documents (
    projection text NOT NULL,
    generation integer NOT NULL,
    key text NOT NULL,
    document json NOT NULL
);

--
-- Name: TABLE view_documents; Type: COMMENT; Schema: evtool; Owner: -
--

COMMENT ON TABLE evtool.view_documents IS 'evtool views: one JSON document per key of a view, e.g. favorites of one user';

--
-- Name: archived_heads archived_heads_pkey; Type: CONSTRAINT; Schema: evtool; Owner: -
--

ALTER TABLE ONLY evtool.archived_heads
    ADD CONSTRAINT archived_heads_pkey PRIMARY KEY (stream_id);

--
-- Name: archives archives_pkey; Type: CONSTRAINT; Schema: evtool; Owner: -
--

ALTER TABLE ONLY evtool.archives
    ADD CONSTRAINT archives_pkey PRIMARY KEY (archive);

--
-- Name: erasures erasures_pkey; Type: CONSTRAINT; Schema: evtool; Owner: -
--

ALTER TABLE ONLY evtool.erasures
    ADD CONSTRAINT erasures_pkey PRIMARY KEY (event_id);

--
-- Name: erasures erasures_position_key; Type: CONSTRAINT; Schema: evtool; Owner: -
--

ALTER TABLE ONLY evtool.erasures
    ADD CONSTRAINT erasures_position_key UNIQUE ("position");

--
-- Name: events events_event_id_key; Type: CONSTRAINT; Schema: evtool; Owner: -
--

ALTER TABLE ONLY evtool.events
    ADD CONSTRAINT events_event_id_key UNIQUE (event_id);

--
-- Name: events events_pkey; Type: CONSTRAINT; Schema: evtool; Owner: -
--

ALTER TABLE ONLY evtool.events
    ADD CONSTRAINT events_pkey PRIMARY KEY ("position");

--
-- Name: events events_stream_version_key; Type: CONSTRAINT; Schema: evtool; Owner: -
--

ALTER TABLE ONLY evtool.events
    ADD CONSTRAINT events_stream_version_key UNIQUE (stream_id, version);

--
-- Name: merkle_tiles merkle_tiles_pkey; Type: CONSTRAINT; Schema: evtool; Owner: -
--

ALTER TABLE ONLY evtool.merkle_tiles
    ADD CONSTRAINT merkle_tiles_pkey PRIMARY KEY (level, idx);

--
-- Name: partitioning partitioning_pkey; Type: CONSTRAINT; Schema: evtool; Owner: -
--

ALTER TABLE ONLY evtool.partitioning
    ADD CONSTRAINT partitioning_pkey PRIMARY KEY (id);

--
-- Name: projections projections_pkey; Type: CONSTRAINT; Schema: evtool; Owner: -
--

ALTER TABLE ONLY evtool.projections
    ADD CONSTRAINT projections_pkey PRIMARY KEY (name, generation);

--
-- Name: schema_version schema_version_pkey; Type: CONSTRAINT; Schema: evtool; Owner: -
--

ALTER TABLE ONLY evtool.schema_version
    ADD CONSTRAINT schema_version_pkey PRIMARY KEY (id);

--
-- Name: seals seals_pkey; Type: CONSTRAINT; Schema: evtool; Owner: -
--

ALTER TABLE ONLY evtool.seals
    ADD CONSTRAINT seals_pkey PRIMARY KEY (seal);

--
-- Name: signed_checkpoints signed_checkpoints_pkey; Type: CONSTRAINT; Schema: evtool; Owner: -
--

ALTER TABLE ONLY evtool.signed_checkpoints
    ADD CONSTRAINT signed_checkpoints_pkey PRIMARY KEY (checkpoint);

--
-- Name: streams streams_pkey; Type: CONSTRAINT; Schema: evtool; Owner: -
--

ALTER TABLE ONLY evtool.streams
    ADD CONSTRAINT streams_pkey PRIMARY KEY (stream_id);

--
-- Name: unfinished_copy unfinished_copy_pkey; Type: CONSTRAINT; Schema: evtool; Owner: -
--

ALTER TABLE ONLY evtool.unfinished_copy
    ADD CONSTRAINT unfinished_copy_pkey PRIMARY KEY (id);

--
-- Name: view_documents view_documents_pkey; Type: CONSTRAINT; Schema: evtool; Owner: -
--

ALTER TABLE ONLY evtool.view_documents
    ADD CONSTRAINT view_documents_pkey PRIMARY KEY (projection, generation, key);

--
-- Name: merkle_tiles_last_position; Type: INDEX; Schema: evtool; Owner: -
--

CREATE INDEX merkle_tiles_last_position ON evtool.merkle_tiles USING btree (last_position) WHERE (level = 0);

--
-- Name: archives archives_append_only; Type: TRIGGER; Schema: evtool; Owner: -
--

CREATE TRIGGER archives_append_only BEFORE DELETE OR UPDATE ON evtool.archives FOR EACH ROW EXECUTE FUNCTION evtool.refuse_change();

--
-- Name: archives archives_no_truncate; Type: TRIGGER; Schema: evtool; Owner: -
--

CREATE TRIGGER archives_no_truncate BEFORE TRUNCATE ON evtool.archives FOR EACH STATEMENT EXECUTE FUNCTION evtool.refuse_change();

--
-- Name: erasures erasures_append_only; Type: TRIGGER; Schema: evtool; Owner: -
--

CREATE TRIGGER erasures_append_only BEFORE DELETE OR UPDATE ON evtool.erasures FOR EACH ROW EXECUTE FUNCTION evtool.refuse_change();

--
-- Name: erasures erasures_no_truncate; Type: TRIGGER; Schema: evtool; Owner: -
--

CREATE TRIGGER erasures_no_truncate BEFORE TRUNCATE ON evtool.erasures FOR EACH STATEMENT EXECUTE FUNCTION evtool.refuse_change();

--
-- Name: events events_append_only; Type: TRIGGER; Schema: evtool; Owner: -
--

CREATE TRIGGER events_append_only BEFORE DELETE OR UPDATE ON evtool.events FOR EACH ROW EXECUTE FUNCTION evtool.refuse_change();

--
-- Name: events events_no_truncate; Type: TRIGGER; Schema: evtool; Owner: -
--

CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON evtool.events FOR EACH STATEMENT EXECUTE FUNCTION evtool.refuse_change();

--
-- Name: merkle_tiles merkle_tiles_append_only; Type: TRIGGER; Schema: evtool; Owner: -
--

CREATE TRIGGER merkle_tiles_append_only BEFORE DELETE OR UPDATE ON evtool.merkle_tiles FOR EACH ROW EXECUTE FUNCTION evtool.merkle_tile_change();

--
-- Name: merkle_tiles merkle_tiles_no_truncate; Type: TRIGGER; Schema: evtool; Owner: -
--

CREATE TRIGGER merkle_tiles_no_truncate BEFORE TRUNCATE ON evtool.merkle_tiles FOR EACH STATEMENT EXECUTE FUNCTION evtool.refuse_change();

--
-- Name: seals seals_append_only; Type: TRIGGER; Schema: evtool; Owner: -
--

CREATE TRIGGER seals_append_only BEFORE DELETE OR UPDATE ON evtool.seals FOR EACH ROW EXECUTE FUNCTION evtool.refuse_change();

--
-- Name: seals seals_no_truncate; Type: TRIGGER; Schema: evtool; Owner: -
--

CREATE TRIGGER seals_no_truncate BEFORE TRUNCATE ON evtool.seals FOR EACH STATEMENT EXECUTE FUNCTION evtool.refuse_change();

--
-- Name: signed_checkpoints signed_checkpoints_append_only; Type: TRIGGER; Schema: evtool; Owner: -
--

CREATE TRIGGER signed_checkpoints_append_only BEFORE DELETE OR UPDATE ON evtool.signed_checkpoints FOR EACH ROW EXECUTE FUNCTION evtool.refuse_change();

--
-- Name: signed_checkpoints signed_checkpoints_no_truncate; Type: TRIGGER; Schema: evtool; Owner: -
--

CREATE TRIGGER signed_checkpoints_no_truncate BEFORE TRUNCATE ON evtool.signed_checkpoints FOR EACH STATEMENT EXECUTE FUNCTION evtool.refuse_change();

--
-- PostgreSQL database dump complete
--
