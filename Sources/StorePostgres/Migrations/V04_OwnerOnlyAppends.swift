// Frozen: the text of a migration that has shipped never changes (a test pins each one's
// SHA-256). A change to the schema or to the append function is a new migration at the end
// (Migrations/Migrations.swift lists them in order). Only `{{schema}}` (the quoted schema
// name) and `{{lock_key}}` (the schema's advisory-lock key, derived from the name; versions
// 1–3 used it) are substituted.

extension PostgresMigration {
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
}
