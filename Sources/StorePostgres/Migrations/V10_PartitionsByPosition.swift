// Frozen once shipped, like every migration (see Migrations.swift).

extension PostgresMigration {
    /// Version 10 (issue 17): the events table range-partitioned by position
    /// (docs/explanation/scale.md "Partitions"). The table a store has is kept, in place, as the first
    /// partition (from the lowest position to the next multiple of the partition size above
    /// the last position reserved); partitions after it are made ahead of the head by the
    /// owner's append functions (`make_partitions`, `SECURITY DEFINER`: no other role can
    /// create, attach or lock one). Unique indexes must include the partition key, so event
    /// ids are kept unique across the whole log by an owner-only table, `event_ids`, written by
    /// the append functions in the statement that inserts the event; versions stay unique per
    /// stream by the `streams` row lock (schema 4). Each partition refuses UPDATE, DELETE and
    /// TRUNCATE as the table does. Runs again over what it made (a re-run upgrade may): the
    /// conversion is skipped when the table is partitioned already.
    static let version10 = PostgresMigration(version: 10, name: "events partitioned by position", template: #"""
-- Appends in flight finish first; new ones wait for this upgrade to commit.
LOCK TABLE {{schema}}.append_reservation IN EXCLUSIVE MODE;
LOCK TABLE {{schema}}.events IN ACCESS EXCLUSIVE MODE;

-- The size of the partitions made from now on (positions per partition): 1,000,000, or the
-- evtool.partition_size setting of the session that installs or upgrades the store. The owner
-- may change it (UPDATE … SET size); partitions made afterwards take the new size.
CREATE TABLE IF NOT EXISTS {{schema}}.partitioning (
    id integer PRIMARY KEY CHECK (id = 1),
    size bigint NOT NULL CHECK (size >= 1)
);
COMMENT ON TABLE {{schema}}.partitioning IS 'evtool: the size (in positions) of the events partitions made ahead of the head';
INSERT INTO {{schema}}.partitioning (id, size)
VALUES (1, coalesce(nullif(current_setting('evtool.partition_size', true), '')::bigint, 1000000))
ON CONFLICT (id) DO NOTHING;

-- Each partition of the events table, in position order: its name, its first position (NULL
-- for the first partition, which starts at the lowest position) and the position after its last.
CREATE OR REPLACE FUNCTION {{schema}}.event_partitions(OUT name text, OUT first_position bigint, OUT end_position bigint)
RETURNS SETOF record LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $fn$
    SELECT c.relname::text, CASE WHEN b[1] = 'MINVALUE' THEN NULL ELSE b[1]::bigint END, b[2]::bigint
    FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid
    CROSS JOIN LATERAL regexp_match(pg_get_expr(c.relpartbound, c.oid),
                                    '^FOR VALUES FROM \(''?(MINVALUE|-?[0-9]+)''?\) TO \(''?(-?[0-9]+)''?\)$') AS b
    WHERE i.inhparent = '{{schema}}.events'::regclass
    ORDER BY b[2]::bigint
$fn$;

-- Makes the partitions positions up to p_last need, and one partition beyond them, so that an
-- append never waits for one in the common case. Returns the position from which an append must
-- call again. Called by the append functions (as the owner) when their last position reaches
-- the position this returned; one maker at a time (a lock of the owner's table, which no other
-- role can take); a maker that finds another at work returns at once when the partition it
-- needs exists already, and waits for it otherwise.
CREATE OR REPLACE FUNCTION {{schema}}.make_partitions(p_last bigint) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET lock_timeout = '2s' AS $fn$
DECLARE
    size bigint;
    top bigint;
    made text;
BEGIN
    SELECT p.size INTO STRICT size FROM {{schema}}.partitioning p;
    SELECT max(p.end_position) INTO top FROM {{schema}}.event_partitions() p;
    IF top IS NOT NULL AND top > p_last + size THEN
        RETURN top - size;
    END IF;
    IF top IS NOT NULL AND top > p_last THEN
        -- The partition this append needs exists: make the next one unless another maker is at it.
        BEGIN
            LOCK TABLE {{schema}}.partitioning IN EXCLUSIVE MODE NOWAIT;
        EXCEPTION WHEN lock_not_available THEN
            RETURN p_last + 1;
        END;
    ELSE
        LOCK TABLE {{schema}}.partitioning IN EXCLUSIVE MODE;
    END IF;
    SELECT p.size INTO STRICT size FROM {{schema}}.partitioning p;
    SELECT max(p.end_position) INTO top FROM {{schema}}.event_partitions() p;
    top := coalesce(top, 1);
    WHILE top <= p_last + size LOOP
        made := 'events_p' || top;
        IF to_regclass(format('%s.%I', '{{schema}}', made)) IS NOT NULL THEN
            -- Made by the maker this one waited for, and invisible to a transaction whose snapshot
            -- is older (REPEATABLE READ, SERIALIZABLE); the catalog cache knows it.
            IF pg_partition_root(to_regclass(format('%s.%I', '{{schema}}', made))) IS DISTINCT FROM '{{schema}}.events'::regclass THEN
                RAISE EXCEPTION 'evtool: a table %.% exists but is not a partition of the events table', '{{schema}}', made
                    USING ERRCODE = 'XX000';
            END IF;
            top := top + size;
            CONTINUE;
        END IF;
        EXECUTE format('CREATE TABLE %s.%I (LIKE %s.events INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', '{{schema}}', made, '{{schema}}');
        EXECUTE format('CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON %s.%I FOR EACH STATEMENT EXECUTE FUNCTION %s.refuse_change()',
                       '{{schema}}', made, '{{schema}}');
        EXECUTE format('COMMENT ON TABLE %s.%I IS %L', '{{schema}}', made,
                       format('evtool event log: the partition of positions %s to %s (append-only)', top, top + size - 1));
        -- Not CREATE TABLE … PARTITION OF, which locks the events table against reads and appends
        -- until commit: ATTACH takes a lock that neither waits for them nor holds them back.
        EXECUTE format('ALTER TABLE %s.events ATTACH PARTITION %s.%I FOR VALUES FROM (%s) TO (%s)',
                       '{{schema}}', '{{schema}}', made, top, top + size);
        top := top + size;
    END LOOP;
    RETURN top - size;
END
$fn$;
REVOKE ALL ON FUNCTION {{schema}}.make_partitions(bigint) FROM PUBLIC;

-- The changes allowed on an event (as in version 9), on the events table and on each of its
-- partitions: an erasure, and the DELETE of a row below a recorded archive boundary.
CREATE OR REPLACE FUNCTION {{schema}}.refuse_change() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
    is_events boolean := TG_TABLE_NAME = 'events' OR coalesce(pg_partition_root(TG_RELID) = '{{schema}}.events'::regclass, false);
BEGIN
    -- Nested: PL/pgSQL reads every field an IF names, and other tables' rows have no data.
    IF is_events THEN
        IF TG_OP = 'UPDATE'
           AND NEW.data::text = '{"erased":true}' AND NEW.metadata::text = '{"erased":true}'
           AND (NEW.position, NEW.stream_id, NEW.version, NEW.event_id, NEW.type, NEW.recorded_at, NEW.tx_id, NEW.hash)
               IS NOT DISTINCT FROM (OLD.position, OLD.stream_id, OLD.version, OLD.event_id, OLD.type, OLD.recorded_at, OLD.tx_id, OLD.hash)
           AND EXISTS (SELECT 1 FROM {{schema}}.erasures x WHERE x.event_id = OLD.event_id AND x.position = OLD.position) THEN
            RETURN NEW;
        END IF;
        IF TG_OP = 'DELETE' AND OLD.position < (SELECT max(a.position) FROM {{schema}}.archives a) THEN
            RETURN OLD;
        END IF;
    END IF;
    RAISE EXCEPTION 'evtool % are append-only (% refused%)', CASE WHEN is_events THEN 'events' ELSE TG_TABLE_NAME END, TG_OP,
        CASE WHEN is_events AND TG_TABLE_NAME <> 'events' THEN ' on partition ' || TG_TABLE_NAME ELSE '' END
        USING ERRCODE = '55000';
END
$fn$;

-- The conversion, once: the table becomes the first partition of a partitioned table of the
-- same name, with the same columns, constraints and triggers; its own unique indexes go (a
-- partitioned table's must include the position), its event ids move to event_ids.
DO $do$
DECLARE
    size bigint;
    top bigint;
    grant_row record;
BEGIN
    IF (SELECT c.relkind FROM pg_class c WHERE c.oid = '{{schema}}.events'::regclass) <> 'r' THEN
        RETURN;
    END IF;
    SELECT p.size INTO STRICT size FROM {{schema}}.partitioning p;
    SELECT CASE WHEN s.is_called THEN s.last_value ELSE s.last_value - 1 END INTO STRICT top FROM {{schema}}.position_seq s;
    top := greatest(top, coalesce((SELECT max(e.position) FROM {{schema}}.events e), 0), 0);

    ALTER TABLE {{schema}}.events RENAME TO events_p1;
    ALTER INDEX {{schema}}.events_pkey RENAME TO events_p1_pkey;
    ALTER TABLE {{schema}}.events_p1 DROP CONSTRAINT events_stream_version_key;
    DROP TRIGGER events_append_only ON {{schema}}.events_p1;

    -- Event ids, unique over the whole log (archived events included): the append functions
    -- insert each event's id here in the statement that inserts the event.
    CREATE TABLE IF NOT EXISTS {{schema}}.event_ids (
        event_id uuid NOT NULL,
        position bigint NOT NULL
    );
    INSERT INTO {{schema}}.event_ids (event_id, position) SELECT e.event_id, e.position FROM {{schema}}.events_p1 e;
    ALTER TABLE {{schema}}.events_p1 DROP CONSTRAINT events_event_id_key;
    ALTER TABLE {{schema}}.event_ids ADD CONSTRAINT events_event_id_key PRIMARY KEY (event_id);

    CREATE TABLE {{schema}}.events (LIKE {{schema}}.events_p1 INCLUDING DEFAULTS) PARTITION BY RANGE (position);
    ALTER TABLE {{schema}}.events ADD CONSTRAINT events_pkey PRIMARY KEY (position);
    -- Reads of a stream by version; unique only with the position (the partition key), so it
    -- does not make versions unique: the streams table's row lock does.
    ALTER TABLE {{schema}}.events ADD CONSTRAINT events_stream_version_key UNIQUE (stream_id, version, position);
    ALTER TABLE {{schema}}.events ADD CONSTRAINT events_position_check CHECK (position >= 1 AND version >= 1) NOT VALID;
    CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON {{schema}}.events
        FOR EACH ROW EXECUTE FUNCTION {{schema}}.refuse_change();
    CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON {{schema}}.events
        FOR EACH STATEMENT EXECUTE FUNCTION {{schema}}.refuse_change();
    EXECUTE format('ALTER TABLE %s.events ATTACH PARTITION %s.events_p1 FOR VALUES FROM (MINVALUE) TO (%s)',
                   '{{schema}}', '{{schema}}', 1 + size * (top / size + 1));
    -- Whoever had a privilege on the table has it on the partitioned table (and reads the event
    -- ids); nobody but the owner keeps one on a partition itself.
    FOR grant_row IN
        SELECT CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(r.rolname) END AS grantee, a.privilege_type AS privilege
        FROM pg_class c
        CROSS JOIN LATERAL aclexplode(c.relacl) AS a
        LEFT JOIN pg_roles r ON r.oid = a.grantee
        WHERE c.oid = '{{schema}}.events_p1'::regclass AND a.grantee <> c.relowner
    LOOP
        EXECUTE format('GRANT %s ON %s TO %s', grant_row.privilege, '{{schema}}.events', grant_row.grantee);
        IF grant_row.privilege = 'SELECT' THEN
            EXECUTE format('GRANT SELECT ON %s TO %s', '{{schema}}.event_ids', grant_row.grantee);
        END IF;
        EXECUTE format('REVOKE ALL ON %s FROM %s', '{{schema}}.events_p1', grant_row.grantee);
    END LOOP;
END
$do$;
COMMENT ON TABLE {{schema}}.events IS 'evtool event log: append-only; position is the global order, tx_id the appending transaction (see docs/ARCHITECTURE.md); range-partitioned by position (docs/SCALE.md)';
COMMENT ON TABLE {{schema}}.event_ids IS 'evtool: every event id ever appended (archived ones included), unique; written only by the append functions';
CREATE OR REPLACE TRIGGER event_ids_append_only BEFORE UPDATE OR DELETE ON {{schema}}.event_ids
    FOR EACH ROW EXECUTE FUNCTION {{schema}}.refuse_change();
CREATE OR REPLACE TRIGGER event_ids_no_truncate BEFORE TRUNCATE ON {{schema}}.event_ids
    FOR EACH STATEMENT EXECUTE FUNCTION {{schema}}.refuse_change();
-- The partition after the first, made now.
SELECT {{schema}}.make_partitions(coalesce((SELECT max(p.end_position) FROM {{schema}}.event_partitions() p), 1) - 1);

-- What this upgrade made belongs to the schema's owner (evtool's roles make it the store's owner
-- role), whoever runs the upgrade: the append functions run as that owner, and so does
-- make_partitions, which makes the partitions from now on.
DO $do$
DECLARE
    owner text := (SELECT quote_ident(n.nspowner::regrole::text) FROM pg_namespace n WHERE n.nspname = '{{schema_name}}');
    part record;
BEGIN
    EXECUTE format('ALTER TABLE %s.events OWNER TO %s', '{{schema}}', owner);
    FOR part IN SELECT p.name FROM {{schema}}.event_partitions() p LOOP
        EXECUTE format('ALTER TABLE %s.%I OWNER TO %s', '{{schema}}', part.name, owner);
    END LOOP;
    EXECUTE format('ALTER TABLE %s.event_ids OWNER TO %s', '{{schema}}', owner);
    EXECUTE format('ALTER TABLE %s.partitioning OWNER TO %s', '{{schema}}', owner);
    EXECUTE format('ALTER FUNCTION %s.event_partitions() OWNER TO %s', '{{schema}}', owner);
    EXECUTE format('ALTER FUNCTION %s.make_partitions(bigint) OWNER TO %s', '{{schema}}', owner);
END
$do$;

-- Appends events to one or more streams ("parts"), as in version 4. Changed for partitions,
-- and nothing else: after the reservation, the partitions the reserved positions need are
-- made when the last position reaches the point the session last learnt (a session setting,
-- evtool.partitions_SCHEMA; a session that sets it itself only makes its own appends call
-- make_partitions more often, or fail for want of a partition), and each event's id goes into
-- event_ids.
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
END
$fn$;

-- Appends one event, as in version 8. Changed for partitions, and nothing else: the same
-- partition step as append() after the reservation, and the event's id inserted into
-- event_ids by the statement that inserts the event (a data-modifying WITH of the same
-- statement, so the common case is still one statement).
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
