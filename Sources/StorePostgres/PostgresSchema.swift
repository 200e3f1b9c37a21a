import Foundation

/// The database objects of one store, in a schema of the user's choosing, and the SQL that
/// installs and upgrades them.
struct PostgresSchema: Sendable {
    /// The newest schema version this release knows.
    static let currentVersion = 3

    /// The schema name, checked to be a plain lowercase identifier.
    let name: String
    /// The schema name quoted for SQL text.
    let quoted: String
    /// A 32-bit key derived from the name; advisory locks of different schemas do not collide.
    let lockKey: Int32

    /// First half of the two-key advisory locks: `evt` and a lock number.
    static let installLockClass: Int32 = 0x6576_7401
    static let reservationLockClass: Int32 = 0x6576_7402
    static let leaseLockClass: Int32 = 0x6576_7403

    /// Checks and wraps a schema name.
    /// - Throws: ``EventLog/EventStoreError/invalidInput(_:)`` unless the name is 1…63
    ///   characters of `a-z`, `0-9` and `_`, not starting with a digit.
    init(name: String) throws {
        let bytes = Array(name.utf8)
        let valid = !bytes.isEmpty && bytes.count <= 63 && !(bytes[0] >= UInt8(ascii: "0") && bytes[0] <= UInt8(ascii: "9"))
            && bytes.allSatisfy { ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "_") }
        guard valid, !name.hasPrefix("pg_") else {
            throw PostgresSchemaNameError(name: name)
        }
        self.name = name
        self.quoted = "\"\(name)\""
        // FNV-1a: stable across processes and releases (Swift's Hasher is seeded per process).
        var hash: UInt32 = 2_166_136_261
        for byte in bytes { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        self.lockKey = Int32(bitPattern: hash)
    }

    /// The NOTIFY channel on which appends to this schema are announced.
    var channel: String { "evtool_\(name)" }

    // MARK: - Migrations

    /// The SQL that takes the schema from version `index` to `index + 1`.
    var migrations: [String] {
        [version1, version2, version3]
    }

    /// The ASCII text `{"erased":true}`, what an erased payload becomes (``EventLog/Erasure/tombstone``).
    static let tombstone = #"{"erased":true}"#

    /// Version 3: the audit trail (docs/AUDIT.md): each event's link in its stream's hash
    /// chain, computed in SQL by `chain_hash` exactly as ``EventLog/EventChain`` does in Swift
    /// and filled for existing rows here; the digests of erased payloads; seals; the one
    /// update allowed on events (an erasure); the append function computing hashes.
    private var version3: String {
        let s = quoted
        return """
        ALTER TABLE \(s).events ADD COLUMN hash text NOT NULL DEFAULT '';

        -- EventChain (Sources/EventLog/EventChain.swift): SHA-256 of the tag, the previous hash
        -- (32 bytes), then length-prefixed stream id, version (8 bytes), event id, type,
        -- recording time in UTC microseconds text, and the SHA-256 of data and of metadata.
        CREATE FUNCTION \(s).chain_hash(prev bytea, stream text, version bigint, id uuid, type text,
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

        ALTER TABLE \(s).events DISABLE TRIGGER events_append_only;
        DO $do$
        DECLARE
            r record;
            prev bytea;
            current_stream text := NULL;
        BEGIN
            FOR r IN SELECT position, stream_id, version, event_id, type, data, metadata, recorded_at
                     FROM \(s).events ORDER BY stream_id, version LOOP
                IF current_stream IS DISTINCT FROM r.stream_id THEN
                    prev := decode(repeat('00', 32), 'hex');
                    current_stream := r.stream_id;
                END IF;
                prev := \(s).chain_hash(prev, r.stream_id, r.version, r.event_id, r.type, r.recorded_at,
                                       sha256(convert_to(r.data::text, 'UTF8')), sha256(convert_to(r.metadata::text, 'UTF8')));
                UPDATE \(s).events SET hash = encode(prev, 'hex') WHERE position = r.position;
            END LOOP;
        END
        $do$;
        ALTER TABLE \(s).events ENABLE TRIGGER events_append_only;

        CREATE TABLE \(s).erasures (
            event_id uuid PRIMARY KEY,
            position bigint NOT NULL UNIQUE,
            data_sha256 text NOT NULL,
            metadata_sha256 text NOT NULL,
            erased_at timestamptz NOT NULL,
            erasure_event_id uuid NOT NULL
        );
        COMMENT ON TABLE \(s).erasures IS 'evtool audit: digests of erased payloads, so the hash chain still verifies';

        CREATE TABLE \(s).seals (
            seal bigint PRIMARY KEY,
            position bigint NOT NULL,
            events bigint NOT NULL,
            streams bigint NOT NULL,
            heads_sha256 text NOT NULL,
            previous_hash text NOT NULL,
            hash text NOT NULL,
            sealed_at text NOT NULL
        );
        COMMENT ON TABLE \(s).seals IS 'evtool audit: digests over every stream head, chained';

        -- The one change allowed on an event: an erasure (data and metadata become the
        -- tombstone, nothing else changes, and the erasures table holds the digests).
        CREATE OR REPLACE FUNCTION \(s).refuse_change() RETURNS trigger LANGUAGE plpgsql AS $fn$
        BEGIN
            IF TG_OP = 'UPDATE' AND TG_TABLE_NAME = 'events'
               AND NEW.data::text = '\(Self.tombstone)' AND NEW.metadata::text = '\(Self.tombstone)'
               AND (NEW.position, NEW.stream_id, NEW.version, NEW.event_id, NEW.type, NEW.recorded_at, NEW.tx_id, NEW.hash)
                   IS NOT DISTINCT FROM (OLD.position, OLD.stream_id, OLD.version, OLD.event_id, OLD.type, OLD.recorded_at, OLD.tx_id, OLD.hash)
               AND EXISTS (SELECT 1 FROM \(s).erasures x WHERE x.event_id = OLD.event_id AND x.position = OLD.position) THEN
                RETURN NEW;
            END IF;
            RAISE EXCEPTION 'evtool % are append-only (% refused)', TG_TABLE_NAME, TG_OP USING ERRCODE = '55000';
        END
        $fn$;
        CREATE TRIGGER erasures_append_only BEFORE UPDATE OR DELETE ON \(s).erasures
            FOR EACH ROW EXECUTE FUNCTION \(s).refuse_change();
        CREATE TRIGGER erasures_no_truncate BEFORE TRUNCATE ON \(s).erasures
            FOR EACH STATEMENT EXECUTE FUNCTION \(s).refuse_change();
        CREATE TRIGGER seals_append_only BEFORE UPDATE OR DELETE ON \(s).seals
            FOR EACH ROW EXECUTE FUNCTION \(s).refuse_change();
        CREATE TRIGGER seals_no_truncate BEFORE TRUNCATE ON \(s).seals
            FOR EACH STATEMENT EXECUTE FUNCTION \(s).refuse_change();

        \(appendFunction(hashing: true))
        """
    }

    /// Version 2: views and their checkpoints, beside the log, so that a batch of view
    /// changes and the checkpoint it reached commit in one transaction.
    private var version2: String {
        let s = quoted
        return """
        CREATE TABLE \(s).projections (
            name text NOT NULL,
            generation integer NOT NULL,
            version integer NOT NULL,
            position bigint NOT NULL,
            active boolean NOT NULL,
            updated_at timestamptz NOT NULL,
            PRIMARY KEY (name, generation)
        );
        COMMENT ON TABLE \(s).projections IS 'evtool views: one row per generation of each view, with its checkpoint (the last position applied)';

        CREATE TABLE \(s).view_documents (
            projection text NOT NULL,
            generation integer NOT NULL,
            key text NOT NULL,
            document json NOT NULL,
            PRIMARY KEY (projection, generation, key)
        );
        COMMENT ON TABLE \(s).view_documents IS 'evtool views: one JSON document per key of a view, e.g. favorites of one user';
        """
    }

    /// Version 1: the events table, the position sequence and the append function.
    private var version1: String {
        let s = quoted
        return """
        CREATE SCHEMA IF NOT EXISTS \(s);

        CREATE TABLE \(s).schema_version (
            id integer PRIMARY KEY CHECK (id = 1),
            version integer NOT NULL
        );
        INSERT INTO \(s).schema_version (id, version) VALUES (1, 0);

        CREATE SEQUENCE \(s).position_seq AS bigint MINVALUE 1 START 1;

        CREATE TABLE \(s).events (
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
        COMMENT ON TABLE \(s).events IS 'evtool event log: append-only; position is the global order, tx_id the appending transaction (see docs/ARCHITECTURE.md)';

        CREATE FUNCTION \(s).refuse_change() RETURNS trigger LANGUAGE plpgsql AS $fn$
        BEGIN
            RAISE EXCEPTION 'evtool events are append-only' USING ERRCODE = '55000';
        END
        $fn$;
        CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON \(s).events
            FOR EACH ROW EXECUTE FUNCTION \(s).refuse_change();
        CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON \(s).events
            FOR EACH STATEMENT EXECUTE FUNCTION \(s).refuse_change();

        \(appendFunction(hashing: false))
        """
    }

    /// The append function; with `hashing`, it reads each stream's head hash with its version
    /// and stores every event's chain hash (version 3 on).
    private func appendFunction(hashing: Bool) -> String {
        let s = quoted
        let create = hashing ? "CREATE OR REPLACE FUNCTION" : "CREATE FUNCTION"
        let piece0 = hashing ? """

                        heads bytea[] := '{}';
                        part_last bytea[] := '{}';
                        hashes text[] := '{}';
                        prev bytea;
                        head_hash text;
                        i integer;
            """ : ""
        let piece1 = hashing ? """
                            -- With the stream's head hash, under the same stream lock (the chain's link).
                            SELECT e.version, e.hash INTO actual, head_hash FROM \(s).events e
                            WHERE e.stream_id = p_streams[part] ORDER BY e.version DESC LIMIT 1;
                            IF NOT FOUND THEN actual := 0; head_hash := repeat('00', 32); END IF;
                            heads := heads || decode(head_hash, 'hex');
            """ : """
                            SELECT coalesce(max(e.version), 0) INTO actual FROM \(s).events e WHERE e.stream_id = p_streams[part];
            """
        let piece2 = hashing ? """

                        -- Each event's chain hash (EventChain), in order; a part whose stream an earlier
                        -- part of this batch also appends to chains from that part's last event.
                        FOR part IN 1..parts LOOP
                            prev := heads[part];
                            FOR earlier IN REVERSE part - 1..1 LOOP
                                IF p_streams[earlier] = p_streams[part] THEN prev := part_last[earlier]; EXIT; END IF;
                            END LOOP;
                            FOR j IN 1..p_counts[part] LOOP
                                i := offsets[part] + j;
                                prev := \(s).chain_hash(prev, p_streams[part], bases[part] + j, p_ids[i], p_types[i],
                                                       coalesce(p_recorded_at[i], now()),
                                                       sha256(convert_to(p_data[i]::text, 'UTF8')), sha256(convert_to(p_metadata[i]::text, 'UTF8')));
                                hashes := hashes || encode(prev, 'hex');
                            END LOOP;
                            part_last := part_last || prev;
                        END LOOP;
            """ : ""
        return """
        -- Appends events to one or more streams ("parts") in the caller's autocommit
        -- transaction: all of them or none. Part i has stream p_streams[i], expectation
        -- p_kinds[i] (0 any, 1 no stream, 2 stream exists, 3 exactly p_versions[i]) and the
        -- next p_counts[i] events of the event arrays. A NULL recorded_at means now().
        -- Returns status 0, each part's new version and the first position (the parts'
        -- positions follow each other), or status 1, the 1-based failed part and that
        -- stream's actual version when an expectation does not hold.
        \(create) \(s).append(
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
            ignored boolean;   -- PERFORM runs a full query; an assignment is a cheap expression\(piece0)
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
                ignored := pg_advisory_xact_lock(hashtextextended(p_streams[1], \(lockKey))) IS NULL;
            ELSE
                PERFORM pg_advisory_xact_lock(k)
                FROM (SELECT DISTINCT hashtextextended(x, \(lockKey)) AS k FROM unnest(p_streams) AS x ORDER BY 1) AS keys;
            END IF;

            stream_versions := '{}';
            FOR part IN 1..parts LOOP
                -- The stream's version: what is stored plus earlier parts of this batch.
        \(piece1)
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
            END IF;\(piece2)

            -- The reservation: the transaction id and a block of positions are taken together
            -- under one session-level lock, so among appenders transaction-id order equals
            -- position order. The lock is held for microseconds, not until commit. Nothing in
            -- it fails in practice; should it (a cancel arriving just then), the session keeps
            -- the lock until it calls pg_advisory_unlock_all() or disconnects, which evtool's
            -- client does after every failed append. (An EXCEPTION block here would release it
            -- in the function, but its subtransaction costs a fifth of an append.)
            ignored := pg_advisory_lock(\(Self.reservationLockClass), \(lockKey)) IS NULL;
            -- Enforced, not assumed: nothing since the check above may have taken an xid.
            IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
                ignored := pg_advisory_unlock(\(Self.reservationLockClass), \(lockKey));
                RAISE EXCEPTION 'evtool append: a transaction id was assigned before the reservation' USING ERRCODE = 'XX000';
            END IF;
            xid := pg_current_xact_id();
            first_position := nextval('\(s).position_seq');
            IF n > 1 THEN
                ignored := setval('\(s).position_seq', first_position + n - 1) IS NULL;
            END IF;
            ignored := pg_advisory_unlock(\(Self.reservationLockClass), \(lockKey));

            IF parts = 1 THEN
                INSERT INTO \(s).events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id\(hashing ? ", hash" : ""))
                SELECT first_position + k - 1, p_streams[1], bases[1] + k, p_ids[k], p_types[k], p_data[k], p_metadata[k],
                       coalesce(p_recorded_at[k], now()), xid\(hashing ? ", hashes[k]" : "")
                FROM generate_series(1, n) AS k;
            ELSE
                INSERT INTO \(s).events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id\(hashing ? ", hash" : ""))
                SELECT first_position + k - 1, p_streams[event_part[k]], bases[event_part[k]] + k - offsets[event_part[k]],
                       p_ids[k], p_types[k], p_data[k], p_metadata[k], coalesce(p_recorded_at[k], now()), xid\(hashing ? ", hashes[k]" : "")
                FROM generate_series(1, n) AS k;
            END IF;

            status := 0;
        END
        $fn$;
        """
    }

    // MARK: - Statements

    var appendSQL: String {
        "SELECT status, failed_part, actual_version, stream_versions, first_position FROM \(quoted).append($1, $2, $3, $4, $5, $6, $7, $8, $9)"
    }
    static let appendTypes: [UInt32] = [
        PostgresType.textArray, PostgresType.int4Array, PostgresType.int8Array, PostgresType.int4Array,
        PostgresType.uuidArray, PostgresType.textArray, PostgresType.jsonArray, PostgresType.jsonArray,
        PostgresType.timestamptzArray,
    ]

    var columns: String { "position, stream_id, version, event_id, type, data, metadata, recorded_at, hash" }

    /// Rows after a position, each with whether it is safe to hand out (see docs/POSTGRES-ORDERING.md).
    var readAllSQL: String {
        """
        SELECT \(columns), tx_id < (SELECT pg_snapshot_xmin(pg_current_snapshot())) \
        FROM \(quoted).events WHERE position > $1 ORDER BY position LIMIT $2
        """
    }
    var readForwardsSQL: String {
        "SELECT \(columns) FROM \(quoted).events WHERE stream_id = $1 AND version >= $2 ORDER BY version LIMIT $3"
    }
    var readBackwardsSQL: String {
        "SELECT \(columns) FROM \(quoted).events WHERE stream_id = $1 AND version <= $2 ORDER BY version DESC LIMIT $3"
    }
    var versionSQL: String {
        "SELECT coalesce(max(version), 0)::bigint FROM \(quoted).events WHERE stream_id = $1"
    }
    var headSQL: String {
        "SELECT coalesce(max(position), 0)::bigint FROM \(quoted).events"
    }
    var existingIDsSQL: String {
        "SELECT event_id FROM \(quoted).events WHERE event_id = ANY($1)"
    }
}

/// A schema name that is not a plain lowercase identifier.
struct PostgresSchemaNameError: Error, CustomStringConvertible {
    let name: String
    var description: String {
        "schema name '\(name)' must be 1…63 characters of a-z, 0-9 and _, not start with a digit or pg_"
    }
}
