import EventLog

/// The SQL that sets up least-privilege roles for one store's schema (docs/explanation/audit.md):
///
/// - the owner owns every object: schema changes, `evtool seal` and `evtool forget`;
/// - the app appends through the append function (`SECURITY DEFINER`: it runs as the owner
///   and computes the hash chain) and reads events, and maintains views and checkpoints; it
///   cannot insert, change, delete or truncate an event itself, nor move the position
///   sequence, nor take any lock appends wait for;
/// - the auditor reads the log, its audit trail and the views, and changes nothing.
public enum PostgresRoles {
    /// The statements, for a superuser or a role with CREATEROLE to run once the store's
    /// schema exists (evtool creates it on first open). Roles that exist are kept and given
    /// the privileges; they are created with LOGIN and no password (set one with ALTER ROLE).
    /// - Throws: ``EventLog/EventStoreError/invalidInput(_:)`` for a name that is not a plain
    ///   lowercase identifier, or for the same name used twice.
    public static func sql(schema: String, owner: String, app: String, auditor: String) throws -> String {
        let names = [schema, owner, app, auditor]
        for name in names {
            guard (try? PostgresSchema(name: name)) != nil else {
                throw EventStoreError.invalidInput("'\(name)' must be 1…63 characters of a-z, 0-9 and _, not start with a digit or pg_")
            }
        }
        guard Set([owner, app, auditor]).count == 3 else { throw EventStoreError.invalidInput("the owner, app and auditor roles must be three different roles") }
        let s = "\"\(schema)\""
        let (o, a, r) = ("\"\(owner)\"", "\"\(app)\"", "\"\(auditor)\"")
        var text = "-- evtool roles for schema \(schema): owner \(owner), app \(app), auditor \(auditor)\nBEGIN;\n"
        for role in [owner, app, auditor] {
            text += "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '\(role)') THEN CREATE ROLE \"\(role)\" LOGIN; END IF; END $$;\n"
        }
        text += """
            -- The owner owns the schema and everything in it.
            ALTER SCHEMA \(s) OWNER TO \(o);
            DO $$
            DECLARE object record;
            BEGIN
                FOR object IN SELECT c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                              WHERE n.nspname = '\(schema)' AND c.relkind IN ('r', 'S', 'v', 'p') LOOP
                    EXECUTE format('ALTER %s %I.%I OWNER TO %I',
                                   CASE object.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW' ELSE 'TABLE' END,
                                   '\(schema)', object.relname, '\(owner)');
                END LOOP;
                FOR object IN SELECT p.oid::regprocedure AS signature FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                              WHERE n.nspname = '\(schema)' LOOP
                    EXECUTE format('ALTER FUNCTION %s OWNER TO %I', object.signature, '\(owner)');
                END LOOP;
            END $$;
            REVOKE ALL ON SCHEMA \(s) FROM PUBLIC;
            REVOKE ALL ON ALL TABLES IN SCHEMA \(s) FROM PUBLIC, \(a), \(r);
            REVOKE ALL ON ALL SEQUENCES IN SCHEMA \(s) FROM PUBLIC, \(a), \(r);
            REVOKE ALL ON ALL FUNCTIONS IN SCHEMA \(s) FROM PUBLIC;
            GRANT USAGE ON SCHEMA \(s) TO \(a), \(r);

            -- The app: appends only through the append function (which runs as the owner and
            -- computes the chain), reads, views and checkpoints. No privilege on the events
            -- table but SELECT, none on the position sequence, the streams' heads or the
            -- reservation table: it can neither write a row itself, move the sequence, nor take
            -- a lock that appends wait for.
            GRANT SELECT ON \(s).events, \(s).streams, \(s).schema_version, \(s).erasures, \(s).seals TO \(a);
            GRANT SELECT, INSERT, UPDATE, DELETE ON \(s).projections, \(s).view_documents TO \(a);
            GRANT EXECUTE ON FUNCTION \(s).append(text[], integer[], bigint[], integer[], uuid[], text[], json[], json[], timestamptz[]) TO \(a);
            GRANT EXECUTE ON FUNCTION \(s).append_one(text, integer, bigint, uuid, text, json, json, timestamptz) TO \(a);
            GRANT EXECUTE ON FUNCTION \(s).append_returning_hashes(text[], integer[], bigint[], integer[], uuid[], text[], json[], json[], timestamptz[]) TO \(a);
            GRANT EXECUTE ON FUNCTION \(s).chain_hash(bytea, text, bigint, uuid, text, timestamptz, bytea, bytea) TO \(a);
            -- The kept Merkle tree: read, and extended only through merkle_put (the next tiles,
            -- computed in the app; no kept hash can be changed) or merkle_extend (which runs as
            -- the owner and computes every hash from the events).
            GRANT SELECT ON \(s).merkle_tiles, \(s).signed_checkpoints TO \(a);
            GRANT EXECUTE ON FUNCTION \(s).merkle_extend(integer) TO \(a);
            GRANT EXECUTE ON FUNCTION \(s).merkle_put(bigint, bigint, integer[], bigint[], bytea[], bigint[], bigint[], bigint[], text[]) TO \(a);
            -- Archives (written by the owner's evtool archive): the heads and decision states appends and commands carry on from.
            -- And every event id ever appended (schema 10), read to tell a retried append from a new one.
            GRANT SELECT ON \(s).archives, \(s).archived_heads, \(s).event_ids TO \(a);

            -- The auditor: reads the log, its audit trail and the views; changes nothing.
            GRANT SELECT ON \(s).events, \(s).streams, \(s).schema_version, \(s).erasures, \(s).seals,
                            \(s).projections, \(s).view_documents TO \(r);
            GRANT SELECT ON \(s).merkle_tiles, \(s).signed_checkpoints, \(s).archives, \(s).archived_heads, \(s).event_ids TO \(r);
            -- Both read the record of a copy into the schema not yet complete (schema 16; the owner's evtool migrate writes it).
            GRANT SELECT ON \(s).unfinished_copy TO \(a), \(r);
            GRANT EXECUTE ON FUNCTION \(s).chain_hash(bytea, text, bigint, uuid, text, timestamptz, bytea, bytea) TO \(r);
            COMMIT;

            """
        return text
    }
}
