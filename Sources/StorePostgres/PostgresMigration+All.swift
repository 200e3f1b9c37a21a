// Frozen: the text of a migration that has shipped never changes (a test pins each one's
// SHA-256). A change to the schema or to the append function is a new migration at the end.
// Only `{{schema}}` (the quoted schema name) and `{{lock_key}}` (the schema's advisory-lock
// key, derived from the name; versions 1–3 used it) are substituted.

extension PostgresMigration {
    /// Every migration, in the order they are applied; the store's `schema_version` is how
    /// many of them it has applied.
    static let all: [PostgresMigration] = [version1, version2, version3, version4, version5, version6, version7, version8, version9, version10, version11, version12, version13, version14, version15, version16]

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

    /// Version 2: views and their checkpoints, beside the log, so that a batch of view changes and the checkpoint it reached commit in one transaction.
    static let version2 = PostgresMigration(version: 2, name: "views", template: #"""
CREATE TABLE {{schema}}.projections (
    name text NOT NULL,
    generation integer NOT NULL,
    version integer NOT NULL,
    position bigint NOT NULL,
    active boolean NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (name, generation)
);
COMMENT ON TABLE {{schema}}.projections IS 'evtool views: one row per generation of each view, with its checkpoint (the last position applied)';

CREATE TABLE {{schema}}.view_documents (
    projection text NOT NULL,
    generation integer NOT NULL,
    key text NOT NULL,
    document json NOT NULL,
    PRIMARY KEY (projection, generation, key)
);
COMMENT ON TABLE {{schema}}.view_documents IS 'evtool views: one JSON document per key of a view, e.g. favorites of one user';
"""#)

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

    /// Version 4: appends that no role but the owner can stall or forge (docs/explanation/ordering.md): out-of-range positions refused by a CHECK constraint, each stream's head in an owner-only `streams` table whose row lock replaces the per-stream advisory lock, the reservation under a table lock only the owner can take, and the append function as `SECURITY DEFINER` with a `lock_timeout`.
    static let version4 = PostgresMigration(version: 4, name: "owner-only appends", template: #"""
-- Rows appends cannot produce are refused: positions and versions start at 1. NOT VALID:
-- rows a store already holds are not checked here (verify reports them), new rows are.
-- ALTER TABLE comes first: its lock waits for appends in flight and holds new ones until
-- this upgrade commits, so the backfill below sees every stream's head.
ALTER TABLE {{schema}}.events ADD CONSTRAINT events_position_check CHECK (position >= 1 AND version >= 1) NOT VALID;

-- Each stream's head: its version, the chain hash and the position of its last event. The
-- append function locks the stream's row (SELECT … FOR NO KEY UPDATE) so that writers of one
-- stream take turns; row locks need UPDATE privilege, which only the owner has. Version 0:
-- a stream that has no events yet.
CREATE TABLE {{schema}}.streams (
    stream_id text PRIMARY KEY,
    version bigint NOT NULL,
    hash text NOT NULL,
    position bigint NOT NULL
);
COMMENT ON TABLE {{schema}}.streams IS 'evtool: each stream''s head (version, chain hash, position of its last event), written only by the append function';
INSERT INTO {{schema}}.streams (stream_id, version, hash, position)
SELECT DISTINCT ON (stream_id) stream_id, version, hash, position FROM {{schema}}.events ORDER BY stream_id, version DESC;

-- The reservation's lock (docs/POSTGRES-ORDERING.md): the append function takes it IN
-- EXCLUSIVE MODE inside a block that it then rolls back, which releases it before the
-- insert. That mode needs UPDATE, DELETE or TRUNCATE on the table, which only the owner has;
-- the ACCESS SHARE lock a SELECT takes does not conflict with it.
CREATE TABLE {{schema}}.append_reservation ();
COMMENT ON TABLE {{schema}}.append_reservation IS 'evtool: locked for microseconds by each append while it takes its transaction id and positions; holds no rows';

-- Appends events to one or more streams ("parts") in the caller's autocommit
-- transaction: all of them or none. Part i has stream p_streams[i], expectation
-- p_kinds[i] (0 any, 1 no stream, 2 stream exists, 3 exactly p_versions[i]) and the
-- next p_counts[i] events of the event arrays. A NULL recorded_at means now().
-- Returns status 0, each part's new version and the first position (the parts'
-- positions follow each other), or status 1, the 1-based failed part and that
-- stream's actual version when an expectation does not hold. SQLSTATE EV001 means a
-- writer of the same stream that reserved later positions committed first: call again.
-- It runs as its owner (SECURITY DEFINER): other roles need no privilege on the tables,
-- and no lock it waits for can be taken by a role other than the owner; lock_timeout
-- turns any unexpected wait into an error (55P03) instead of a hang.
CREATE OR REPLACE FUNCTION {{schema}}.append(
    p_streams text[], p_kinds integer[], p_versions bigint[], p_counts integer[],
    p_ids uuid[], p_types text[], p_data json[], p_metadata json[], p_recorded_at timestamptz[],
    OUT status integer, OUT failed_part integer, OUT actual_version bigint,
    OUT stream_versions bigint[], OUT first_position bigint)
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

    IF n = 1 THEN
        INSERT INTO {{schema}}.events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id, hash)
        VALUES (first_position, p_streams[1], bases[1] + 1, p_ids[1], p_types[1], p_data[1], p_metadata[1],
                coalesce(p_recorded_at[1], now()), xid, hashes[1]);
        UPDATE {{schema}}.streams SET version = head_version[1], hash = encode(head_hash[1], 'hex'), position = head_position[1]
        WHERE stream_id = names[1];
    ELSIF parts = 1 THEN
        INSERT INTO {{schema}}.events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id, hash)
        SELECT first_position + k - 1, p_streams[1], bases[1] + k, p_ids[k], p_types[k], p_data[k], p_metadata[k],
               coalesce(p_recorded_at[k], now()), xid, hashes[k]
        FROM generate_series(1, n) AS k;
        UPDATE {{schema}}.streams SET version = head_version[1], hash = encode(head_hash[1], 'hex'), position = head_position[1]
        WHERE stream_id = names[1];
    ELSE
        INSERT INTO {{schema}}.events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id, hash)
        SELECT first_position + k - 1, p_streams[event_part[k]], bases[event_part[k]] + k - offsets[event_part[k]],
               p_ids[k], p_types[k], p_data[k], p_metadata[k], coalesce(p_recorded_at[k], now()), xid, hashes[k]
        FROM generate_series(1, n) AS k;
        UPDATE {{schema}}.streams t SET version = u.version, hash = encode(u.hash, 'hex'), position = u.position
        FROM unnest(names, head_version, head_hash, head_position) AS u(stream_id, version, hash, position)
        WHERE t.stream_id = u.stream_id;
    END IF;

    status := 0;
END
$fn$;
"""#)

    /// Version 5: `append_one`, the one-event append in as few PL/pgSQL steps as it can take (docs/explanation/ordering.md, "Why a one-event append costs more than a raw insert"): the same checks and reservation as `append`, then one statement that locks, checks, moves and chains the stream's head (`UPDATE … RETURNING`) and inserts the event. The app keeps exactly the callers `append` has.
    static let version5 = PostgresMigration(version: 5, name: "one-event append", template: #"""
-- Appends one event to p_stream with expectation p_kind (0 any, 1 no stream, 2 stream
-- exists, 3 exactly p_version), like append() with one part of one event, and returns the
-- same columns. PL/pgSQL prepares each expression again in every transaction, so this
-- function takes as few steps as it can: the reservation, then one statement for the
-- common case (the stream exists and the expectation holds). A function of that name left
-- by hand (a schema taken back to an earlier version) is replaced, grants and all.
DROP FUNCTION IF EXISTS {{schema}}.append_one(text, integer, bigint, uuid, text, json, json, timestamptz);
CREATE FUNCTION {{schema}}.append_one(
    p_stream text, p_kind integer, p_version bigint, p_id uuid, p_type text, p_data json, p_metadata json,
    p_recorded_at timestamptz,
    OUT status integer, OUT failed_part integer, OUT actual_version bigint,
    OUT stream_versions bigint[], OUT first_position bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET lock_timeout = '2s' AS $fn$
DECLARE
    xid xid8;
    new_version bigint;
    found_version bigint;
    found_position bigint;
BEGIN
    -- As in append(): the transaction id is taken inside the reservation.
    IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
        RAISE EXCEPTION 'evtool append must run in its own transaction' USING ERRCODE = '25001';
    END IF;
    IF p_stream IS NULL OR p_kind IS NULL OR p_version IS NULL OR p_id IS NULL OR p_type IS NULL
       OR p_data IS NULL OR p_metadata IS NULL THEN
        RAISE EXCEPTION 'evtool append: the event is incomplete' USING ERRCODE = '22023';
    END IF;

    -- The reservation, exactly as in append() (docs/POSTGRES-ORDERING.md).
    BEGIN
        LOCK TABLE {{schema}}.append_reservation IN EXCLUSIVE MODE;
        IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
            RAISE EXCEPTION 'evtool append: a transaction id was assigned before the reservation' USING ERRCODE = 'XX000';
        END IF;
        xid := pg_current_xact_id();
        first_position := nextval('{{schema}}.position_seq');
        RAISE SQLSTATE 'EV000';
    EXCEPTION WHEN SQLSTATE 'EV000' THEN
        NULL;
    END;

    FOR attempt IN 1..2 LOOP
        -- One statement: lock the stream's row (the UPDATE takes FOR NO KEY UPDATE, so
        -- writers of one stream take turns until they commit), check the expectation and
        -- that no later-reserved append of the stream committed first, move the head, chain
        -- the event's hash (EventChain) from the head's, and insert the event.
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
        RETURNING version INTO new_version;
        IF FOUND THEN
            status := 0; stream_versions := ARRAY[new_version];
            RETURN;
        END IF;
        IF attempt = 2 THEN
            RAISE EXCEPTION 'evtool append: stream % did not take the event after its row was checked', p_stream USING ERRCODE = 'XX000';
        END IF;

        -- No row was updated: a new stream, an expectation that does not hold, or a later
        -- append to the stream committed first. Lock the row (creating it for a new
        -- stream, as append() does) and tell them apart; then the statement above runs once
        -- more and finds the row.
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
    END LOOP;
END
$fn$;

-- The same callers as append(): a new function is executable by PUBLIC, so append_one
-- takes append()'s EXECUTE grants instead (after evtool's roles script, only the owner
-- and the app role).
REVOKE ALL ON FUNCTION {{schema}}.append_one(text, integer, bigint, uuid, text, json, json, timestamptz) FROM PUBLIC;
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
          AND a.privilege_type = 'EXECUTE'
    LOOP
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %s',
                       '{{schema}}.append_one(text, integer, bigint, uuid, text, json, json, timestamptz)', grantee);
    END LOOP;
END
$do$;
"""#)

    /// Version 6: the log's Merkle tree, kept (docs/explanation/audit.md): owner-only tables of its leaves, of every perfect subtree's root and of the checkpoints `seal --key` signed, and `merkle_extend`, the follower that extends it from the events (`SECURITY DEFINER`, so the app role can extend it but no role but the owner can write a node).
    static let version6 = PostgresMigration(version: 6, name: "kept Merkle tree", template: #"""
-- Runs again over what it made (IF NOT EXISTS, OR REPLACE), as a re-run upgrade may.
-- Leaf i is the i-th event in position order: SHA-256(0x00 || its chain hash's 32 bytes).
CREATE TABLE IF NOT EXISTS {{schema}}.merkle_leaves (
    leaf bigint PRIMARY KEY CHECK (leaf >= 0),
    position bigint NOT NULL UNIQUE,
    hash bytea NOT NULL CHECK (length(hash) = 32)
);
COMMENT ON TABLE {{schema}}.merkle_leaves IS 'evtool audit: the Merkle tree''s leaves, derived from the log by merkle_extend; verify recomputes them';
-- The root of the subtree of leaves [idx << level, (idx + 1) << level): SHA-256(0x01 || left || right).
CREATE TABLE IF NOT EXISTS {{schema}}.merkle_nodes (
    level integer NOT NULL CHECK (level >= 1),
    idx bigint NOT NULL CHECK (idx >= 0),
    hash bytea NOT NULL CHECK (length(hash) = 32),
    PRIMARY KEY (level, idx)
);
COMMENT ON TABLE {{schema}}.merkle_nodes IS 'evtool audit: the roots of the Merkle tree''s perfect subtrees, derived from the log by merkle_extend; verify recomputes them';

-- Every checkpoint 'evtool seal --key' made, as printed; 'evtool verify' checks each.
CREATE TABLE IF NOT EXISTS {{schema}}.signed_checkpoints (
    checkpoint bigint PRIMARY KEY CHECK (checkpoint >= 1),
    seal bigint NOT NULL,
    size bigint NOT NULL CHECK (size >= 0),
    note text NOT NULL,
    recorded_at text NOT NULL
);
COMMENT ON TABLE {{schema}}.signed_checkpoints IS 'evtool audit: the checkpoints seal --key signed, as printed';

-- Append-only, like the seals (the owner writes them; nobody changes them).
CREATE OR REPLACE TRIGGER merkle_leaves_append_only BEFORE UPDATE OR DELETE ON {{schema}}.merkle_leaves
    FOR EACH ROW EXECUTE FUNCTION {{schema}}.refuse_change();
CREATE OR REPLACE TRIGGER merkle_leaves_no_truncate BEFORE TRUNCATE ON {{schema}}.merkle_leaves
    FOR EACH STATEMENT EXECUTE FUNCTION {{schema}}.refuse_change();
CREATE OR REPLACE TRIGGER merkle_nodes_append_only BEFORE UPDATE OR DELETE ON {{schema}}.merkle_nodes
    FOR EACH ROW EXECUTE FUNCTION {{schema}}.refuse_change();
CREATE OR REPLACE TRIGGER merkle_nodes_no_truncate BEFORE TRUNCATE ON {{schema}}.merkle_nodes
    FOR EACH STATEMENT EXECUTE FUNCTION {{schema}}.refuse_change();
CREATE OR REPLACE TRIGGER signed_checkpoints_append_only BEFORE UPDATE OR DELETE ON {{schema}}.signed_checkpoints
    FOR EACH ROW EXECUTE FUNCTION {{schema}}.refuse_change();
CREATE OR REPLACE TRIGGER signed_checkpoints_no_truncate BEFORE TRUNCATE ON {{schema}}.signed_checkpoints
    FOR EACH STATEMENT EXECUTE FUNCTION {{schema}}.refuse_change();

-- Extends the tree by at most p_limit events after its last leaf, in position order, and only
-- events no running transaction can still precede (as readAll hands them out). One extender at
-- a time (a table lock only the owner can take; readers are not blocked). Returns the tree's
-- size, the position of its last leaf, how many leaves this call added, and whether committed
-- events were held back behind a transaction still running (the caller may call again soon).
CREATE OR REPLACE FUNCTION {{schema}}.merkle_extend(p_limit integer, OUT tree_size bigint, OUT last_position bigint, OUT added integer,
                                         OUT held_back boolean)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET lock_timeout = '2s' AS $fn$
DECLARE
    old_size bigint;
    lvl integer;
    made bigint;
    malformed bigint;
BEGIN
    LOCK TABLE {{schema}}.merkle_leaves IN EXCLUSIVE MODE;
    SELECT l.leaf + 1, l.position INTO old_size, last_position FROM {{schema}}.merkle_leaves l ORDER BY l.leaf DESC LIMIT 1;
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
    INSERT INTO {{schema}}.merkle_leaves (leaf, position, hash)
        SELECT old_size + row_number() OVER (ORDER BY e.position) - 1, e.position, sha256('\x00'::bytea || decode(e.hash, 'hex'))
        FROM (SELECT e.position, e.hash FROM {{schema}}.events e WHERE e.position > last_position ORDER BY e.position LIMIT added) AS e;
    SELECT l.position INTO last_position FROM {{schema}}.merkle_leaves l WHERE l.leaf = tree_size - 1;
    -- Level by level, the subtrees the new leaves complete: at level lvl, indexes
    -- [old_size >> lvl, tree_size >> lvl), each the hash of its two children.
    lvl := 1;
    WHILE (tree_size >> lvl) > (old_size >> lvl) LOOP
        IF lvl = 1 THEN
            INSERT INTO {{schema}}.merkle_nodes (level, idx, hash)
                SELECT 1, a.leaf >> 1, sha256('\x01'::bytea || a.hash || b.hash)
                FROM {{schema}}.merkle_leaves a JOIN {{schema}}.merkle_leaves b ON b.leaf = a.leaf + 1
                WHERE a.leaf >= (old_size >> 1) << 1 AND a.leaf < (tree_size >> 1) << 1 AND a.leaf % 2 = 0;
        ELSE
            INSERT INTO {{schema}}.merkle_nodes (level, idx, hash)
                SELECT lvl, a.idx >> 1, sha256('\x01'::bytea || a.hash || b.hash)
                FROM {{schema}}.merkle_nodes a JOIN {{schema}}.merkle_nodes b ON b.level = a.level AND b.idx = a.idx + 1
                WHERE a.level = lvl - 1 AND a.idx >= (old_size >> lvl) << 1 AND a.idx < (tree_size >> lvl) << 1 AND a.idx % 2 = 0;
        END IF;
        GET DIAGNOSTICS made = ROW_COUNT;
        IF made <> (tree_size >> lvl) - (old_size >> lvl) THEN
            RAISE EXCEPTION 'evtool: the kept Merkle tree of % leaves lacks subtrees at level %; run evtool verify', old_size, lvl - 1
                USING ERRCODE = 'XX001';
        END IF;
        lvl := lvl + 1;
    END LOOP;
END
$fn$;

-- Like the seals: written by the owner only (through merkle_extend), read by every role that
-- reads the seals; merkle_extend takes append()'s callers, as append_one did.
REVOKE ALL ON FUNCTION {{schema}}.merkle_extend(integer) FROM PUBLIC;
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
          AND a.privilege_type = 'EXECUTE'
    LOOP
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %s', '{{schema}}.merkle_extend(integer)', grantee);
    END LOOP;
    FOR grantee IN
        SELECT quote_ident(r.rolname)
        FROM pg_class c
        CROSS JOIN LATERAL aclexplode(c.relacl) AS a
        JOIN pg_roles r ON r.oid = a.grantee
        WHERE c.oid = '{{schema}}.seals'::regclass AND a.privilege_type = 'SELECT' AND r.oid <> c.relowner
    LOOP
        EXECUTE format('GRANT SELECT ON %s, %s, %s TO %s', '{{schema}}.merkle_leaves', '{{schema}}.merkle_nodes', '{{schema}}.signed_checkpoints', grantee);
    END LOOP;
END
$do$;
"""#)

    /// Version 9: archives (`evtool archive`, docs/explanation/audit.md "Archives"): each archive's record,
    /// each stream's head (and decision state) as of the latest boundary, and the one DELETE
    /// allowed on events: rows below a recorded boundary, in the archive's own transaction.
    static let version9 = PostgresMigration(version: 9, name: "archives", template: #"""
CREATE TABLE IF NOT EXISTS {{schema}}.archives (
    archive bigint PRIMARY KEY CHECK (archive >= 1),
    position bigint NOT NULL,
    events bigint NOT NULL,
    file_events bigint NOT NULL,
    file_sha256 text NOT NULL,
    file_name text NOT NULL,
    heads_sha256 text NOT NULL,
    tree_root text NOT NULL,
    archived_at text NOT NULL
);
COMMENT ON TABLE {{schema}}.archives IS 'evtool audit: every archive taken (evtool archive): the events below position are in the file with that SHA-256';
CREATE TABLE IF NOT EXISTS {{schema}}.archived_heads (
    stream_id text PRIMARY KEY,
    version bigint NOT NULL,
    hash text NOT NULL,
    state text
);
COMMENT ON TABLE {{schema}}.archived_heads IS 'evtool audit: each stream''s head (and the runner''s decision state) as of the latest archive boundary';

-- The changes allowed on an event: an erasure (data and metadata become the tombstone,
-- nothing else changes, and the erasures table holds the digests), and the DELETE of a row
-- below a recorded archive boundary (in the archive's transaction, which records it first).
CREATE OR REPLACE FUNCTION {{schema}}.refuse_change() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
    IF TG_OP = 'UPDATE' AND TG_TABLE_NAME = 'events'
       AND NEW.data::text = '{"erased":true}' AND NEW.metadata::text = '{"erased":true}'
       AND (NEW.position, NEW.stream_id, NEW.version, NEW.event_id, NEW.type, NEW.recorded_at, NEW.tx_id, NEW.hash)
           IS NOT DISTINCT FROM (OLD.position, OLD.stream_id, OLD.version, OLD.event_id, OLD.type, OLD.recorded_at, OLD.tx_id, OLD.hash)
       AND EXISTS (SELECT 1 FROM {{schema}}.erasures x WHERE x.event_id = OLD.event_id AND x.position = OLD.position) THEN
        RETURN NEW;
    END IF;
    IF TG_OP = 'DELETE' AND TG_TABLE_NAME = 'events'
       AND OLD.position < (SELECT max(a.position) FROM {{schema}}.archives a) THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'evtool % are append-only (% refused)', TG_TABLE_NAME, TG_OP USING ERRCODE = '55000';
END
$fn$;
CREATE OR REPLACE TRIGGER archives_append_only BEFORE UPDATE OR DELETE ON {{schema}}.archives
    FOR EACH ROW EXECUTE FUNCTION {{schema}}.refuse_change();
CREATE OR REPLACE TRIGGER archives_no_truncate BEFORE TRUNCATE ON {{schema}}.archives
    FOR EACH STATEMENT EXECUTE FUNCTION {{schema}}.refuse_change();

-- Owner-only: written by the owner (evtool archive), read by every role that reads the seals.
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
        EXECUTE format('GRANT SELECT ON %s, %s TO %s', '{{schema}}.archives', '{{schema}}.archived_heads', grantee);
    END LOOP;
END
$do$;
"""#)
}
