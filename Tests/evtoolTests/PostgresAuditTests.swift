import EventLog
import Foundation
import StorePostgres
import StoreSQLite
import TestSupport
import Testing

/// The audit trail on PostgreSQL: the same chain as SQLite (computed in SQL), and tampering
/// through `psql` as the table owner with the append-only trigger disabled.
@Suite("Audit: tamper evidence on PostgreSQL")
struct PostgresAuditTests {
    struct Log {
        let store: PostgresEventStore
        let url: String
        let schema: String
        let cleanup: () -> Void
    }

    /// The same three interleaved users as the SQLite tamper tests.
    static func makeLog() throws -> Log {
        let postgres = try TestStores.postgres()
        let plan = [("user-1", 1), ("user-2", 1), ("user-3", 1), ("user-1", 2), ("user-2", 2), ("user-3", 2), ("user-1", 3), ("user-2", 3), ("user-1", 4)]
        for (stream, version) in plan {
            try postgres.store.append(ProposedEvent(type: "Searched", data: Data(#"{"keyword":"\#(stream)-\#(version)"}"#.utf8),
                                                    metadata: Data(#"{"ip":"10.0.0.\#(version)"}"#.utf8)),
                                      to: stream, expectedVersion: .exactly(Int64(version - 1)))
        }
        return Log(store: postgres.store, url: postgres.url, schema: postgres.schema, cleanup: postgres.cleanup)
    }

    static func psql(_ url: String, _ sql: String) throws -> Processes.Result {
        try Processes.run(Processes.psql, [url, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql])
    }

    static func tamper(_ log: Log, _ sql: String) throws {
        let result = try psql(log.url, "ALTER TABLE \(log.schema).events DISABLE TRIGGER events_append_only; " + sql)
        #expect(result.status == 0, "\(result.errors)")
    }

    static func failure(_ store: any EventStore) throws -> VerificationFailure? {
        var verifier = try LogVerifier(store: store)
        do {
            _ = try verifier.verifyLog()
            return nil
        } catch let failure as VerificationFailure {
            return failure
        }
    }

    @Test("an untouched log verifies, and the trigger refuses UPDATE, DELETE and TRUNCATE")
    func untouched() throws {
        let log = try Self.makeLog(); defer { log.cleanup() }
        var verifier = try LogVerifier(store: log.store)
        let report = try verifier.verifyLog()
        #expect(report.events == 9 && report.streams == 3)
        for sql in ["UPDATE \(log.schema).events SET data = '{}' WHERE position = 1",
                    "DELETE FROM \(log.schema).events WHERE position = 1",
                    "TRUNCATE \(log.schema).events CASCADE"] {
            let result = try Self.psql(log.url, sql)
            #expect(result.status != 0, "\(sql)")
            #expect(result.errors.contains("append-only"), "\(result.errors)")
        }
    }

    @Test("modified, deleted, inserted, reordered: each caught with its position and stream")
    func tampering() throws {
        let cases: [(String, VerificationFailure.Kind, Int64, String)] = [
            (#"UPDATE S.events SET data = '{"keyword":"forged"}' WHERE position = 4;"#, .modified, 4, "user-1"),
            ("DELETE FROM S.events WHERE position = 4;", .deleted, 7, "user-1"),
            ("""
             ALTER TABLE S.events DROP CONSTRAINT events_stream_version_key;
             UPDATE S.events SET version = version + 1 WHERE stream_id = 'user-1' AND version >= 2;
             INSERT INTO S.events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id, hash)
             SELECT 10, 'user-1', 2, '0190f5a8-0000-7000-8000-00000000f00d', 'Favorited', '{"listingId":"L666"}', '{}', recorded_at, tx_id, hash
             FROM S.events WHERE position = 4;
             """, .inserted, 10, "user-1"),
            ("""
             UPDATE S.events SET position = 1000004 WHERE position = 4;
             UPDATE S.events SET position = 4 WHERE position = 7;
             UPDATE S.events SET position = 7 WHERE position = 1000004;
             """, .reordered, 4, "user-1"),
        ]
        for (sql, kind, position, stream) in cases {
            let log = try Self.makeLog(); defer { log.cleanup() }
            try Self.tamper(log, sql.replacingOccurrences(of: "S.", with: "\(log.schema)."))
            let failure = try Self.failure(log.store)
            #expect(failure?.kind == kind, "\(sql): \(String(describing: failure))")
            #expect(failure?.position == position && failure?.stream == stream, "\(sql): \(String(describing: failure))")
        }
    }

    @Test("a row at position 0 or below: refused by a CHECK constraint; with it dropped, verify fails before and after a seal", arguments: [0, -7])
    func rowOutsideTheLog(position: Int) throws {
        for sealed in [false, true] {
            let log = try Self.makeLog(); defer { log.cleanup() }
            if sealed {
                var verifier = try LogVerifier(store: log.store)
                let report = try verifier.verifyLog()
                try log.store.addSeal(Seal.make(after: nil, position: report.head, events: report.events, heads: report.heads))
            }
            let insert = """
                INSERT INTO \(log.schema).events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id, hash)
                SELECT \(position), 'forged', 1, '0190f5a8-0000-7000-8000-00000000f00d', 'Favorited', '{"listingId":"L666"}', '{}', recorded_at, tx_id, hash
                FROM \(log.schema).events WHERE position = 4;
                """
            let refused = try Self.psql(log.url, insert)
            #expect(refused.status != 0 && refused.errors.contains("events_position_check"), "\(refused)")
            #expect(try Self.failure(log.store) == nil)
            try Self.tamper(log, "ALTER TABLE \(log.schema).events DROP CONSTRAINT events_position_check; " + insert)
            let failure = try Self.failure(log.store)
            #expect(failure?.kind == .inserted && failure?.position == Int64(position), "\(String(describing: failure))")
            let store = log.url + (log.url.contains("?") ? "&" : "?") + "schema=\(log.schema)"
            let result = try Processes.run(Processes.evtool, ["verify", "--store", store])
            #expect(result.status == 65, "\(result)")
            #expect(result.errors.hasPrefix("Error: the log fails verification: inserted at position \(position): the events table holds a row at position \(position)"), "\(result)")
        }
    }

    @Test("a seal catches a whole stream deleted on PostgreSQL")
    func seal() throws {
        let log = try Self.makeLog(); defer { log.cleanup() }
        var verifier = try LogVerifier(store: log.store)
        let report = try verifier.verifyLog()
        try log.store.addSeal(Seal.make(after: nil, position: report.head, events: report.events, heads: report.heads))
        #expect(throws: EventStoreError.self) {
            try log.store.addSeal(Seal.make(after: nil, position: report.head, events: report.events, heads: report.heads))
        }
        var again = try LogVerifier(store: log.store)
        #expect(try again.verifyLog().seals == 1)
        try Self.tamper(log, "DELETE FROM \(log.schema).events WHERE stream_id = 'user-3';")
        let failure = try Self.failure(log.store)
        #expect(failure?.kind == .deleted && failure?.position == 9, "\(String(describing: failure))")
    }

    @Test("erasure on PostgreSQL: payloads gone from the tables, the log verifies, a forged tombstone does not")
    func erasure() throws {
        let log = try Self.makeLog(); defer { log.cleanup() }
        let outcome = try log.store.erase(Erasure.Request(stream: "user-1", reason: "GDPR #2", operatorName: "alice"))
        #expect(outcome.erasedEvents == 4 && outcome.throughPosition == 9 && outcome.position == 11 && outcome.streamVersion == 5)   // the marker at 10
        let dump = try Self.psql(log.url, "SELECT data::text || metadata::text FROM \(log.schema).events")
        #expect(!dump.output.contains("user-1-") && dump.output.contains("user-2-1"), "\(dump.output)")
        let erased = try log.store.read(stream: "user-1")
        #expect(erased.dropLast().allSatisfy { $0.data == Erasure.tombstone && $0.metadata == Erasure.tombstone } && erased.count == 5)
        #expect(erased.last.map(Erasure.isMarker) == true && erased.last.map { Erasure.markerThroughVersion($0.data) } == 4)
        var verifier = try LogVerifier(store: log.store)
        let report = try verifier.verifyLog()
        #expect(report.events == 11 && report.erasedEvents == 4)
        // Erasing again erases nothing more and still verifies.
        #expect(try log.store.erase(Erasure.Request(stream: "user-1", reason: "again", operatorName: "alice")).erasedEvents == 0)
        // The trigger allows only the erasure update; a tombstone without digests is refused.
        let refused = try Self.psql(log.url, #"UPDATE \#(log.schema).events SET data = '{"erased":true}', metadata = '{"erased":true}' WHERE stream_id = 'user-2'"#)
        #expect(refused.status != 0)
        try Self.tamper(log, #"UPDATE \#(log.schema).events SET data = '{"erased":true}', metadata = '{"erased":true}' WHERE stream_id = 'user-2';"#)
        let failure = try Self.failure(log.store)
        #expect(failure?.kind == .modified && failure?.stream == "user-2", "\(String(describing: failure))")
    }

    @Test("the same events imported into SQLite and PostgreSQL get the same hashes")
    func sameHashesOnBothStores() throws {
        let postgres = try TestStores.postgres(); defer { postgres.cleanup() }
        let sqlite = try TestStores.sqliteFile(); defer { sqlite.cleanup() }
        var parts: [StreamAppend] = []
        for user in 0..<5 {
            parts.append(StreamAppend(stream: "user-\(user)", expectedVersion: .noStream, events: (0..<4).map { index in
                ProposedEvent(type: index % 2 == 0 ? "Searched" : "Favorited",
                              data: Data(#"{"keyword":"k\#(user)-\#(index)","note":"héllo ✓"}"#.utf8),
                              metadata: Data(#"{"source":"ios"}"#.utf8),
                              recordedAt: Timestamp.date(microseconds: 1_796_000_000_000_000 + Int64(user * 10 + index) * 1_234_567))
            }))
        }
        try postgres.store.append(parts)
        try sqlite.store.append(parts)
        let fromPostgres = try postgres.store.readAll(after: 0, limit: 100)
        let fromSQLite = try sqlite.store.readAll(after: 0, limit: 100)
        #expect(fromPostgres.count == 20)
        #expect(fromPostgres.map(\.hash) == fromSQLite.map(\.hash))
        var verifier = try LogVerifier(store: postgres.store)
        #expect(try verifier.verifyLog().events == 20)
    }

    @Test("roles: the app appends and reads but cannot change, delete or truncate; the auditor only reads; the owner changes the schema")
    func roles() throws {
        let log = try Self.makeLog(); defer { log.cleanup() }
        let suffix = String(log.schema.dropFirst(2).prefix(8))
        let (owner, app, auditor) = ("owner_\(suffix)", "app_\(suffix)", "auditor_\(suffix)")
        defer {
            for role in [app, auditor, owner] {
                _ = try? Self.psql(log.url, "DROP OWNED BY \(role) CASCADE; DROP ROLE IF EXISTS \(role);")
            }
        }
        let sql = try Processes.run(Processes.evtool, ["roles", "sql", "--owner", owner, "--app", app, "--auditor", auditor, "--schema", log.schema])
        #expect(sql.status == 0, "\(sql)")
        let applied = try Processes.run(Processes.psql, [log.url, "-X", "-q", "-v", "ON_ERROR_STOP=1"], input: sql.output)
        #expect(applied.status == 0, "\(applied)")
        func url(_ role: String) -> String { log.url.replacingOccurrences(of: "://postgres@", with: "://\(role)@") }
        let s = log.schema

        // The app: appends and reads through the store, keeps views; no UPDATE, DELETE, TRUNCATE.
        let asApp = try PostgresEventStore(url: url(app), schema: s)
        try asApp.append(ProposedEvent(type: "Searched", data: Data(#"{"keyword":"opera"}"#.utf8)), to: "user-9", expectedVersion: .noStream)
        #expect(try asApp.readAll(after: 0, limit: 100).count == 10)
        #expect(try Self.psql(url(app), "INSERT INTO \(s).view_documents VALUES ('v', 1, 'k', '{}'); DELETE FROM \(s).view_documents;").status == 0)
        for statement in ["UPDATE \(s).events SET type = 'X' WHERE position = 1", "DELETE FROM \(s).events WHERE position = 1",
                          "TRUNCATE \(s).events", "ALTER TABLE \(s).events DISABLE TRIGGER events_append_only",
                          "INSERT INTO \(s).erasures VALUES (gen_random_uuid(), 99, '', '', now(), gen_random_uuid())"] {
            let result = try Self.psql(url(app), statement)
            #expect(result.status != 0 && result.errors.contains("permission denied") || result.errors.contains("must be owner"), "app: \(statement): \(result)")
        }

        // The auditor: verifies; cannot append or write anything.
        let asAuditor = try PostgresEventStore(url: url(auditor), schema: s)
        var verifier = try LogVerifier(store: asAuditor)
        #expect(try verifier.verifyLog().events == 10)
        #expect(throws: EventStoreError.self) {
            try asAuditor.append(ProposedEvent(type: "Searched", data: Data("{}".utf8)), to: "user-9", expectedVersion: .any)
        }
        for statement in ["INSERT INTO \(s).view_documents VALUES ('v', 1, 'k', '{}')", "DELETE FROM \(s).events",
                          "INSERT INTO \(s).seals VALUES (1, 1, 1, 1, '', '', '', '')"] {
            let result = try Self.psql(url(auditor), statement)
            #expect(result.status != 0 && result.errors.contains("permission denied"), "auditor: \(statement): \(result)")
        }

        // The owner: schema changes, seals and erasure.
        #expect(try Self.psql(url(owner), "COMMENT ON TABLE \(s).events IS 'evtool event log'").status == 0)
        let asOwner = try PostgresEventStore(url: url(owner), schema: s)
        #expect(try asOwner.erase(Erasure.Request(stream: "user-9", reason: "test", operatorName: "owner")).erasedEvents == 1)
        var again = try LogVerifier(store: asAuditor)
        #expect(try again.verifyLog().erasedEvents == 1)
    }

    @Test("a version 2 schema is upgraded on open: every existing event gets the hash the append would have given it")
    func upgradeFillsHashes() throws {
        let log = try Self.makeLog(); defer { log.cleanup() }
        let expected = try log.store.readAll(after: 0, limit: 100).map(\.hash)
        let s = log.schema
        let downgrade = try Self.psql(log.url, """
            ALTER TABLE \(s).events DROP CONSTRAINT events_position_check; DROP TABLE \(s).streams, \(s).append_reservation;
            ALTER TABLE \(s).events DROP COLUMN hash; DROP TABLE \(s).erasures, \(s).seals;
            DROP FUNCTION \(s).chain_hash(bytea, text, bigint, uuid, text, timestamptz, bytea, bytea);
            -- The single-table layout's view of the ids (schema 18): schema 2 had none.
            DO $$ BEGIN IF (SELECT relkind FROM pg_class WHERE oid = '\(s).event_ids'::regclass) = 'v' THEN DROP VIEW \(s).event_ids; END IF; END $$;
            UPDATE \(s).schema_version SET version = 2;
            """)
        #expect(downgrade.status == 0, "\(downgrade)")
        let reopened = try PostgresEventStore(url: log.url, schema: s)
        #expect(try reopened.readAll(after: 0, limit: 100).map(\.hash) == expected)
        try reopened.append(ProposedEvent(type: "Searched", data: Data("{}".utf8)), to: "user-1", expectedVersion: .exactly(4))
        var verifier = try LogVerifier(store: reopened)
        #expect(try verifier.verifyLog().events == 10)
    }

    @Test("evtool verify, seal and forget on a postgres:// store, through the built binary")
    func commandLine() throws {
        let log = try Self.makeLog(); defer { log.cleanup() }
        let store = log.url + (log.url.contains("?") ? "&" : "?") + "schema=\(log.schema)"
        func evtool(_ arguments: String...) throws -> Processes.Result { try Processes.run(Processes.evtool, arguments + ["--store", store]) }
        var result = try evtool("verify")
        #expect(result.status == 0 && result.output == "OK: 9 events in 3 streams, 0 seals verified\n", "\(result)")
        result = try evtool("seal")
        #expect(result.status == 0 && result.output.hasPrefix("sealed: seal 1 at position 9 (9 events in 3 streams) "), "\(result)")
        result = try evtool("forget", "--user", "user-2", "--reason", "GDPR #3", "--by", "alice")
        #expect(result.status == 0 && result.output.hasPrefix("erased 3 events of user 'user-2' (recorded as UserErased at position 11); views rebuilt"), "\(result)")
        result = try evtool("verify")
        #expect(result.output == "OK: 11 events in 4 streams, 1 seal verified (3 erased, accepted by their kept digests)\n", "\(result)")
        try Self.tamper(log, #"UPDATE \#(log.schema).events SET data = '{"keyword":"forged"}' WHERE position = 4;"#)
        result = try evtool("verify")
        #expect(result.status == 65)
        #expect(result.errors.hasPrefix("Error: the log fails verification: modified at position 4, stream 'user-1': "), "\(result)")
    }
}
