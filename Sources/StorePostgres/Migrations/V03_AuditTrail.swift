// Frozen: the text of a migration that has shipped never changes (a test pins each one's
// SHA-256). A change to the schema or to the append function is a new migration at the end
// (Migrations/Migrations.swift lists them in order). Only `{{schema}}` (the quoted schema
// name) and `{{lock_key}}` (the schema's advisory-lock key, derived from the name; versions
// 1–3 used it) are substituted.

extension PostgresMigration {
    /// Version 3: the audit trail (docs/explanation/audit.md): each event's link in its stream's hash chain, computed in SQL by `chain_hash` exactly as ``EventLog/EventChain`` does in Swift and filled for existing rows; the digests of erased payloads; seals; the one update allowed on events (an erasure); the append function computing hashes.
    static let version3 = PostgresMigration(version: 3, name: "audit trail", template: #"""
ALTER TABLE {{schema}}.events ADD COLUMN hash text NOT NULL DEFAULT '';

-- EventChain (Sources/EventLog/EventChain.swift): SHA-256 of the tag, the previous hash
-- (32 bytes), then length-prefixed stream id, version (8 bytes), event id, type,
-- recording time in UTC microseconds text, and the SHA-256 of data and of metadata.
CREATE FUNCTION {{schema}}.chain_hash(prev bytea, stream text, version bigint, id uuid, type text,
                                recorded_at timestamptz, data_sha bytea, metadata_sha bytea)
RETURNS bytea LANGUAGE sql STABLE PARALLEL SAFE AS $fn$
    SELECT sha256(convert_to('evtool-chain-v1', 'UTF8') || prev
        || int8send(octet_length(convert_to(stream, 'UTF8'))::bigint) || convert_to(stream, 'UTF8')
        || int8send(version)
        || int8send(36::bigint) || convert_to(id::text, 'UTF8')
        || int8send(octet_length(convert_to(type, 'UTF8'))::bigint) || convert_to(type, 'UTF8')
        || int8send(27::bigint) || convert_to(to_char(recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), 'UTF8')
        || int8send(32::bigint) || data_sha || int8send(32::bigint) || metadata_sha)
$fn$;

ALTER TABLE {{schema}}.events DISABLE TRIGGER events_append_only;
DO $do$
DECLARE
    r record;
    prev bytea;
    current_stream text := NULL;
BEGIN
    FOR r IN SELECT position, stream_id, version, event_id, type, data, metadata, recorded_at
             FROM {{schema}}.events ORDER BY stream_id, version LOOP
        IF current_stream IS DISTINCT FROM r.stream_id THEN
            prev := decode(repeat('00', 32), 'hex');
            current_stream := r.stream_id;
        END IF;
        prev := {{schema}}.chain_hash(prev, r.stream_id, r.version, r.event_id, r.type, r.recorded_at,
                               sha256(convert_to(r.data::text, 'UTF8')), sha256(convert_to(r.metadata::text, 'UTF8')));
        UPDATE {{schema}}.events SET hash = encode(prev, 'hex') WHERE position = r.position;
    END LOOP;
END
$do$;
ALTER TABLE {{schema}}.events ENABLE TRIGGER events_append_only;

CREATE TABLE {{schema}}.erasures (
    event_id uuid PRIMARY KEY,
    position bigint NOT NULL UNIQUE,
    data_sha256 text NOT NULL,
    metadata_sha256 text NOT NULL,
    erased_at timestamptz NOT NULL,
    erasure_event_id uuid NOT NULL
);
COMMENT ON TABLE {{schema}}.erasures IS 'evtool audit: digests of erased payloads, so the hash chain still verifies';

CREATE TABLE {{schema}}.seals (
    seal bigint PRIMARY KEY,
    position bigint NOT NULL,
    events bigint NOT NULL,
    streams bigint NOT NULL,
    heads_sha256 text NOT NULL,
    previous_hash text NOT NULL,
    hash text NOT NULL,
    sealed_at text NOT NULL
);
COMMENT ON TABLE {{schema}}.seals IS 'evtool audit: digests over every stream head, chained';

-- The one change allowed on an event: an erasure (data and metadata become the
-- tombstone, nothing else changes, and the erasures table holds the digests).
CREATE OR REPLACE FUNCTION {{schema}}.refuse_change() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
    IF TG_OP = 'UPDATE' AND TG_TABLE_NAME = 'events'
       AND NEW.data::text = '{"erased":true}' AND NEW.metadata::text = '{"erased":true}'
       AND (NEW.position, NEW.stream_id, NEW.version, NEW.event_id, NEW.type, NEW.recorded_at, NEW.tx_id, NEW.hash)
           IS NOT DISTINCT FROM (OLD.position, OLD.stream_id, OLD.version, OLD.event_id, OLD.type, OLD.recorded_at, OLD.tx_id, OLD.hash)
       AND EXISTS (SELECT 1 FROM {{schema}}.erasures x WHERE x.event_id = OLD.event_id AND x.position = OLD.position) THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'evtool % are append-only (% refused)', TG_TABLE_NAME, TG_OP USING ERRCODE = '55000';
END
$fn$;
CREATE TRIGGER erasures_append_only BEFORE UPDATE OR DELETE ON {{schema}}.erasures
    FOR EACH ROW EXECUTE FUNCTION {{schema}}.refuse_change();
CREATE TRIGGER erasures_no_truncate BEFORE TRUNCATE ON {{schema}}.erasures
    FOR EACH STATEMENT EXECUTE FUNCTION {{schema}}.refuse_change();
CREATE TRIGGER seals_append_only BEFORE UPDATE OR DELETE ON {{schema}}.seals
    FOR EACH ROW EXECUTE FUNCTION {{schema}}.refuse_change();
CREATE TRIGGER seals_no_truncate BEFORE TRUNCATE ON {{schema}}.seals
    FOR EACH STATEMENT EXECUTE FUNCTION {{schema}}.refuse_change();

-- Appends events to one or more streams ("parts") in the caller's autocommit
-- transaction: all of them or none. Part i has stream p_streams[i], expectation
-- p_kinds[i] (0 any, 1 no stream, 2 stream exists, 3 exactly p_versions[i]) and the
-- next p_counts[i] events of the event arrays. A NULL recorded_at means now().
-- Returns status 0, each part's new version and the first position (the parts'
-- positions follow each other), or status 1, the 1-based failed part and that
-- stream's actual version when an expectation does not hold.
CREATE OR REPLACE FUNCTION {{schema}}.append(
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
            heads bytea[] := '{}';
            part_last bytea[] := '{}';
            hashes text[] := '{}';
            prev bytea;
            head_hash text;
            i integer;
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
                -- With the stream's head hash, under the same stream lock (the chain's link).
                SELECT e.version, e.hash INTO actual, head_hash FROM {{schema}}.events e
                WHERE e.stream_id = p_streams[part] ORDER BY e.version DESC LIMIT 1;
                IF NOT FOUND THEN actual := 0; head_hash := repeat('00', 32); END IF;
                heads := heads || decode(head_hash, 'hex');
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
            -- Each event's chain hash (EventChain), in order; a part whose stream an earlier
            -- part of this batch also appends to chains from that part's last event.
            FOR part IN 1..parts LOOP
                prev := heads[part];
                FOR earlier IN REVERSE part - 1..1 LOOP
                    IF p_streams[earlier] = p_streams[part] THEN prev := part_last[earlier]; EXIT; END IF;
                END LOOP;
                FOR j IN 1..p_counts[part] LOOP
                    i := offsets[part] + j;
                    prev := {{schema}}.chain_hash(prev, p_streams[part], bases[part] + j, p_ids[i], p_types[i],
                                           coalesce(p_recorded_at[i], now()),
                                           sha256(convert_to(p_data[i]::text, 'UTF8')), sha256(convert_to(p_metadata[i]::text, 'UTF8')));
                    hashes := hashes || encode(prev, 'hex');
                END LOOP;
                part_last := part_last || prev;
            END LOOP;

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
        INSERT INTO {{schema}}.events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id, hash)
        SELECT first_position + k - 1, p_streams[1], bases[1] + k, p_ids[k], p_types[k], p_data[k], p_metadata[k],
               coalesce(p_recorded_at[k], now()), xid, hashes[k]
        FROM generate_series(1, n) AS k;
    ELSE
        INSERT INTO {{schema}}.events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id, hash)
        SELECT first_position + k - 1, p_streams[event_part[k]], bases[event_part[k]] + k - offsets[event_part[k]],
               p_ids[k], p_types[k], p_data[k], p_metadata[k], coalesce(p_recorded_at[k], now()), xid, hashes[k]
        FROM generate_series(1, n) AS k;
    END IF;

    status := 0;
END
$fn$;
"""#)
}
