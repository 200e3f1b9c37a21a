// Frozen once shipped, like every migration (see Migrations.swift).

extension PostgresMigration {
    /// Version 17: the first event of a new stream in one statement. Version 14's `append_one`
    /// found no stream row to move, then locked, created, read and moved it in four more
    /// statements; every user's first action took that path. Now the row is inserted with the
    /// event as its head (`ON CONFLICT DO NOTHING`, so a writer that made it first wins and the
    /// old steps decide), in the statement that inserts the event. Everything else is version
    /// 14's function; `CREATE OR REPLACE` keeps its owner and grants.
    static let version17 = PostgresMigration(version: 17, name: "one-event append, a new stream in one statement", template: #"""
CREATE OR REPLACE FUNCTION {{schema}}.append_one(
    p_stream text, p_kind integer, p_version bigint, p_id uuid, p_type text, p_data json, p_metadata json,
    p_recorded_at timestamptz,
    OUT status integer, OUT failed_part integer, OUT actual_version bigint,
    OUT stream_versions bigint[], OUT first_position bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET lock_timeout = '2s' AS $fn$
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
        LOCK TABLE {{schema}}.append_reservation IN ROW EXCLUSIVE MODE;
        IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
            RAISE EXCEPTION 'evtool append must run in its own transaction' USING ERRCODE = '25001';
        END IF;
        found_position := coalesce(pg_sequence_last_value('{{schema}}.position_seq'), 0);
        xid := pg_current_xact_id();
        first_position := nextval('{{schema}}.position_seq');
        RAISE SQLSTATE 'EV000';
    EXCEPTION WHEN SQLSTATE 'EV000' THEN
        NULL;
    END;
    IF first_position <> found_position + 1 THEN
        RAISE EXCEPTION 'evtool append: another append took a position while this one reserved; call again' USING ERRCODE = 'EV001';
    END IF;

    -- Partitions (schema 10), as in append().
    IF first_position >= coalesce(nullif(current_setting('evtool.partitions_{{schema_name}}', true), ''), '0')::bigint THEN
        ignored := set_config('evtool.partitions_{{schema_name}}', {{schema}}.make_partitions(first_position)::text, false) IS NULL;
    END IF;

    -- One statement: lock the stream's row (the UPDATE takes FOR NO KEY UPDATE, so writers of
    -- one stream take turns until they commit), check the expectation and that no
    -- later-reserved append of the stream committed first, move the head, chain the event's
    -- hash (EventChain) from the head's, and insert the event and its id.
    WITH head AS (
        UPDATE {{schema}}.streams t
        SET version = t.version + 1, position = first_position,
            hash = encode({{schema}}.chain_hash(decode(t.hash, 'hex'), p_stream, t.version + 1, p_id, p_type,
                                                coalesce(p_recorded_at, now()),
                                                sha256(convert_to(p_data::text, 'UTF8')),
                                                sha256(convert_to(p_metadata::text, 'UTF8'))), 'hex')
        WHERE t.stream_id = p_stream AND t.position < first_position
          AND (p_kind = 0 OR (p_kind = 1 AND t.version = 0) OR (p_kind = 2 AND t.version > 0)
               OR (p_kind = 3 AND t.version = p_version))
        RETURNING t.version, t.hash),
    id AS (
        INSERT INTO {{schema}}.event_ids (event_id, position) SELECT p_id, first_position FROM head)
    INSERT INTO {{schema}}.events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id, hash)
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
            INSERT INTO {{schema}}.streams AS t (stream_id, version, hash, position)
            VALUES (p_stream, 1,
                    encode({{schema}}.chain_hash(decode(repeat('00', 32), 'hex'), p_stream, 1, p_id, p_type,
                                                 coalesce(p_recorded_at, now()),
                                                 sha256(convert_to(p_data::text, 'UTF8')),
                                                 sha256(convert_to(p_metadata::text, 'UTF8'))), 'hex'),
                    first_position)
            ON CONFLICT (stream_id) DO NOTHING
            RETURNING t.version, t.hash),
        id AS (
            INSERT INTO {{schema}}.event_ids (event_id, position) SELECT p_id, first_position FROM head)
        INSERT INTO {{schema}}.events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id, hash)
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
    FROM {{schema}}.streams t WHERE t.stream_id = p_stream FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        INSERT INTO {{schema}}.streams (stream_id, version, hash, position) VALUES (p_stream, 0, repeat('00', 32), 0)
        ON CONFLICT (stream_id) DO NOTHING;
        -- Ours, or another writer's that has committed.
        SELECT t.version, t.position INTO STRICT found_version, found_position
        FROM {{schema}}.streams t WHERE t.stream_id = p_stream FOR NO KEY UPDATE;
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
        UPDATE {{schema}}.streams t
        SET version = t.version + 1, position = first_position,
            hash = encode({{schema}}.chain_hash(decode(t.hash, 'hex'), p_stream, t.version + 1, p_id, p_type,
                                                coalesce(p_recorded_at, now()),
                                                sha256(convert_to(p_data::text, 'UTF8')),
                                                sha256(convert_to(p_metadata::text, 'UTF8'))), 'hex')
        WHERE t.stream_id = p_stream AND t.position < first_position
        RETURNING t.version, t.hash),
    id AS (
        INSERT INTO {{schema}}.event_ids (event_id, position) SELECT p_id, first_position FROM head)
    INSERT INTO {{schema}}.events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id, hash)
    SELECT first_position, p_stream, head.version, p_id, p_type, p_data, p_metadata,
           coalesce(p_recorded_at, now()), xid, head.hash
    FROM head
    RETURNING 0, ARRAY[version] INTO status, stream_versions;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'evtool append: stream % did not take the event after its row was checked', p_stream USING ERRCODE = 'XX000';
    END IF;
END
$fn$;
"""#)
}
