// Frozen: the text of a migration that has shipped never changes (a test pins each one's
// SHA-256). A change to the schema or to the append function is a new migration at the end
// (Migrations/Migrations.swift lists them in order). Only `{{schema}}` (the quoted schema
// name) and `{{lock_key}}` (the schema's advisory-lock key, derived from the name; versions
// 1–3 used it) are substituted.

extension PostgresMigration {
    /// Version 1: the events table, the position sequence and the append function.
    static let version1 = PostgresMigration(version: 1, name: "events", template: #"""
CREATE SCHEMA IF NOT EXISTS {{schema}};

CREATE TABLE {{schema}}.schema_version (
    id integer PRIMARY KEY CHECK (id = 1),
    version integer NOT NULL
);
INSERT INTO {{schema}}.schema_version (id, version) VALUES (1, 0);

CREATE SEQUENCE {{schema}}.position_seq AS bigint MINVALUE 1 START 1;

CREATE TABLE {{schema}}.events (
    position bigint PRIMARY KEY,
    stream_id text NOT NULL,
    version bigint NOT NULL,
    event_id uuid NOT NULL CONSTRAINT events_event_id_key UNIQUE,
    type text NOT NULL,
    data json NOT NULL,
    metadata json NOT NULL,
    recorded_at timestamptz NOT NULL,
    tx_id xid8 NOT NULL,
    CONSTRAINT events_stream_version_key UNIQUE (stream_id, version)
);
COMMENT ON TABLE {{schema}}.events IS 'evtool event log: append-only; position is the global order, tx_id the appending transaction (see docs/ARCHITECTURE.md)';

CREATE FUNCTION {{schema}}.refuse_change() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
    RAISE EXCEPTION 'evtool events are append-only' USING ERRCODE = '55000';
END
$fn$;
CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON {{schema}}.events
    FOR EACH ROW EXECUTE FUNCTION {{schema}}.refuse_change();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON {{schema}}.events
    FOR EACH STATEMENT EXECUTE FUNCTION {{schema}}.refuse_change();

-- Appends events to one or more streams ("parts") in the caller's autocommit
-- transaction: all of them or none. Part i has stream p_streams[i], expectation
-- p_kinds[i] (0 any, 1 no stream, 2 stream exists, 3 exactly p_versions[i]) and the
-- next p_counts[i] events of the event arrays. A NULL recorded_at means now().
-- Returns status 0, each part's new version and the first position (the parts'
-- positions follow each other), or status 1, the 1-based failed part and that
-- stream's actual version when an expectation does not hold.
CREATE FUNCTION {{schema}}.append(
    p_streams text[], p_kinds integer[], p_versions bigint[], p_counts integer[],
    p_ids uuid[], p_types text[], p_data json[], p_metadata json[], p_recorded_at timestamptz[],
    OUT status integer, OUT failed_part integer, OUT actual_version bigint,
    OUT stream_versions bigint[], OUT first_position bigint)
LANGUAGE plpgsql AS $fn$
DECLARE
    n integer := cardinality(p_ids);
    parts integer := cardinality(p_streams);
    actual bigint;
    xid xid8;
    bases bigint[] := '{}';
    offsets integer[] := '{}';
    event_part integer[] := '{}';
    done integer := 0;
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

    -- Writers of one stream take turns until they commit (the version check needs it);
    -- writers of different streams do not wait for each other here. Locks are taken
    -- in key order so that two multi-stream appends cannot deadlock.
    IF parts = 1 THEN
        ignored := pg_advisory_xact_lock(hashtextextended(p_streams[1], {{lock_key}})) IS NULL;
    ELSE
        PERFORM pg_advisory_xact_lock(k)
        FROM (SELECT DISTINCT hashtextextended(x, {{lock_key}}) AS k FROM unnest(p_streams) AS x ORDER BY 1) AS keys;
    END IF;

    stream_versions := '{}';
    FOR part IN 1..parts LOOP
        -- The stream's version: what is stored plus earlier parts of this batch.
                SELECT coalesce(max(e.version), 0) INTO actual FROM {{schema}}.events e WHERE e.stream_id = p_streams[part];
        FOR earlier IN 1..part - 1 LOOP
            IF p_streams[earlier] = p_streams[part] THEN actual := actual + p_counts[earlier]; END IF;
        END LOOP;
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
        done := done + p_counts[part];
        stream_versions := stream_versions || (actual + p_counts[part]);
    END LOOP;
    IF done <> n THEN
        RAISE EXCEPTION 'evtool append: the part counts do not add up to the events' USING ERRCODE = '22023';
    END IF;

    -- The reservation: the transaction id and a block of positions are taken together
    -- under one session-level lock, so among appenders transaction-id order equals
    -- position order. The lock is held for microseconds, not until commit. Nothing in
    -- it fails in practice; should it (a cancel arriving just then), the session keeps
    -- the lock until it calls pg_advisory_unlock_all() or disconnects, which evtool's
    -- client does after every failed append. (An EXCEPTION block here would release it
    -- in the function, but its subtransaction costs a fifth of an append.)
    ignored := pg_advisory_lock(1702261762, {{lock_key}}) IS NULL;
    -- Enforced, not assumed: nothing since the check above may have taken an xid.
    IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
        ignored := pg_advisory_unlock(1702261762, {{lock_key}});
        RAISE EXCEPTION 'evtool append: a transaction id was assigned before the reservation' USING ERRCODE = 'XX000';
    END IF;
    xid := pg_current_xact_id();
    first_position := nextval('{{schema}}.position_seq');
    IF n > 1 THEN
        ignored := setval('{{schema}}.position_seq', first_position + n - 1) IS NULL;
    END IF;
    ignored := pg_advisory_unlock(1702261762, {{lock_key}});

    IF parts = 1 THEN
        INSERT INTO {{schema}}.events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id)
        SELECT first_position + k - 1, p_streams[1], bases[1] + k, p_ids[k], p_types[k], p_data[k], p_metadata[k],
               coalesce(p_recorded_at[k], now()), xid
        FROM generate_series(1, n) AS k;
    ELSE
        INSERT INTO {{schema}}.events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id)
        SELECT first_position + k - 1, p_streams[event_part[k]], bases[event_part[k]] + k - offsets[event_part[k]],
               p_ids[k], p_types[k], p_data[k], p_metadata[k], coalesce(p_recorded_at[k], now()), xid
        FROM generate_series(1, n) AS k;
    END IF;

    status := 0;
END
$fn$;
"""#)
}
