// Frozen, like every migration (see Migrations.swift): the text of a migration that
// has shipped never changes (PostgresMigrationTests pins its SHA-256).

extension PostgresMigration {
    /// Schema version 8 (issue 19; after the kept tree's tiles, version 7): `append_one` in fewer PL/pgSQL steps
    /// per call (docs/explanation/ordering.md, "Why a one-event append costs more than a raw insert"). The same checks, the same
    /// reservation and the same one statement; the transaction-id check is made once, under
    /// the reservation's lock, and the common case (the stream exists, the expectation holds)
    /// runs straight through, with the result taken from the statement's `RETURNING`. Written
    /// as one step from the version before it: it replaces the function in place (same
    /// signature), so its callers and grants stay as they were.
    static let version8 = PostgresMigration(version: 8, name: "one-event append, fewer steps", template: #"""
-- Appends one event to p_stream with expectation p_kind (0 any, 1 no stream, 2 stream
-- exists, 3 exactly p_version), like append() with one part of one event, and returns the
-- same columns. PL/pgSQL prepares each expression again in every transaction, so the
-- common case takes as few steps as it can: the check of the arguments, the reservation,
-- one statement, one test of its result.
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
BEGIN
    IF p_stream IS NULL OR p_kind IS NULL OR p_version IS NULL OR p_id IS NULL OR p_type IS NULL
       OR p_data IS NULL OR p_metadata IS NULL THEN
        RAISE EXCEPTION 'evtool append: the event is incomplete' USING ERRCODE = '22023';
    END IF;

    -- The reservation, as in append() (docs/POSTGRES-ORDERING.md). The transaction id must be
    -- taken here, so it must not exist yet: checked once, under the lock (a transaction that
    -- already wrote is refused; nothing else runs before this point).
    BEGIN
        LOCK TABLE {{schema}}.append_reservation IN EXCLUSIVE MODE;
        IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
            RAISE EXCEPTION 'evtool append must run in its own transaction' USING ERRCODE = '25001';
        END IF;
        xid := pg_current_xact_id();
        first_position := nextval('{{schema}}.position_seq');
        RAISE SQLSTATE 'EV000';
    EXCEPTION WHEN SQLSTATE 'EV000' THEN
        NULL;
    END;

    -- One statement: lock the stream's row (the UPDATE takes FOR NO KEY UPDATE, so writers of
    -- one stream take turns until they commit), check the expectation and that no
    -- later-reserved append of the stream committed first, move the head, chain the event's
    -- hash (EventChain) from the head's, and insert the event.
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
        RETURNING t.version, t.hash)
    INSERT INTO {{schema}}.events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id, hash)
    SELECT first_position, p_stream, head.version, p_id, p_type, p_data, p_metadata,
           coalesce(p_recorded_at, now()), xid, head.hash
    FROM head
    RETURNING 0, ARRAY[version] INTO status, stream_versions;
    IF FOUND THEN
        RETURN;
    END IF;

    -- No row was updated: a new stream, an expectation that does not hold, or a later append
    -- to the stream committed first. Lock the row (creating it for a new stream, as append()
    -- does) and tell them apart; then the statement runs once more and finds the row.
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
        RETURNING t.version, t.hash)
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
