// Frozen once shipped, like every migration (see Migrations.swift).

extension PostgresMigration {
    /// Version 15 (issue 16): `append_copied`, `append_returning_hashes` for a copy of another
    /// log (`migrate`) that also takes, for each event the source had erased, the digests the
    /// source kept and its `UserErased` event's id: such an event (the tombstone) is chained
    /// from those digests, as the source chained it, and its erasure is recorded in `erasures`
    /// in the same transaction. So the copy's chain hashes, Merkle tree, checkpoints and
    /// proofs are the source's, erased events included (before, the target chained the
    /// tombstone anew, and a checkpoint of the source failed on the copy). Only the schema's
    /// owner may call it, as only the owner may record an erasure; the app and auditor roles
    /// may not. Everything else is version 13's function: the reservation, the stream locks,
    /// the version checks and the gap-safety argument are the same.
    static let version15 = PostgresMigration(version: 15, name: "append_copied: erased events copied with their digests", template: #"""
CREATE OR REPLACE FUNCTION {{schema}}.append_copied(
    p_streams text[], p_kinds integer[], p_versions bigint[], p_counts integer[],
    p_ids uuid[], p_types text[], p_data json[], p_metadata json[], p_recorded_at timestamptz[],
    p_data_sha256 text[], p_metadata_sha256 text[], p_erasure_ids uuid[],
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
            IF p_erasure_ids[i] IS NULL THEN
                prev := {{schema}}.chain_hash(prev, p_streams[part], actual + j, p_ids[i], p_types[i],
                                       coalesce(p_recorded_at[i], now()),
                                       sha256(convert_to(p_data[i]::text, 'UTF8')), sha256(convert_to(p_metadata[i]::text, 'UTF8')));
            ELSE
                -- Chained from the digests the source kept, as the source chained it.
                prev := {{schema}}.chain_hash(prev, p_streams[part], actual + j, p_ids[i], p_types[i],
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

    -- The erasures of the events copied erased, as forget records its own.
    INSERT INTO {{schema}}.erasures (event_id, position, data_sha256, metadata_sha256, erased_at, erasure_event_id)
    SELECT p_ids[k], first_position + k - 1, p_data_sha256[k], p_metadata_sha256[k], now(), p_erasure_ids[k]
    FROM generate_series(1, n) AS k WHERE p_erasure_ids[k] IS NOT NULL;

    status := 0;
    chain_hashes := hashes;
END
$fn$;
-- Only the owner (who may write erasures) may call it.
REVOKE ALL ON FUNCTION {{schema}}.append_copied(text[], integer[], bigint[], integer[], uuid[], text[], json[], json[], timestamptz[], text[], text[], uuid[]) FROM PUBLIC;
DO $do$
DECLARE
    owner text := (SELECT quote_ident(n.nspowner::regrole::text) FROM pg_namespace n WHERE n.nspname = '{{schema_name}}');
BEGIN
    EXECUTE format('ALTER FUNCTION %s OWNER TO %s', '{{schema}}.append_copied(text[], integer[], bigint[], integer[], uuid[], text[], json[], json[], timestamptz[], text[], text[], uuid[])', owner);
END
$do$;
"""#)
}
