import EventLog
import Foundation
@testable import StorePostgres
import Synchronization
import Testing

/// Schema 10: the events table range-partitioned by position (docs/explanation/scale.md "Partitions"),
/// the layout a store is given at install since schema 18 (these tests ask for it):
/// partitions made ahead of the head by the owner's append functions, never missing, each
/// append-only like the table; event ids unique over the whole log; the app role unable to
/// make, attach or lock one.
@Suite("PostgreSQL: the events table partitioned by position (schema 10)", .serialized)
struct PostgresPartitionTests {
    /// Errors of writer threads.
    final class Failures: Sendable {
        private let items = Mutex<[String]>([])
        func record(_ failure: String) { items.withLock { $0.append(failure) } }
        var all: [String] { items.withLock { $0 } }
    }

    /// `url` with the partition size the store is installed with.
    static func sized(_ url: String, _ size: Int) -> String {
        url + (url.contains("?") ? "&" : "?") + "options=-c%20evtool.partition_size%3D\(size)"
    }

    /// A new store of partitions of `size` positions, dropped after `body`.
    static func withStore<T>(size: Int, _ body: (PostgresEventStore, String, String) throws -> T) throws -> T {
        let url = try TestDatabase.url()
        let schema = TestDatabase.freshSchema()
        defer { try? PostgresEventStore.dropSchema(url: url, schema: schema) }
        let store = try PostgresEventStore(url: sized(url, size), schema: schema)
        return try body(store, schema, url)
    }

    /// The partitions tile the positions from the lowest up, with no gap and no overlap.
    static func expectContiguous(_ partitions: [EventPartition], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(partitions.first?.first == nil, "the first partition starts at the lowest position", sourceLocation: sourceLocation)
        for (earlier, later) in zip(partitions, partitions.dropFirst()) {
            #expect(later.first == earlier.end, "\(earlier) then \(later)", sourceLocation: sourceLocation)
            #expect(later.name == "events_p\(later.first ?? 0)", sourceLocation: sourceLocation)
        }
    }

    @Test("a new partitioned store has the first partition and one ahead, of the size it was installed with; the default is 1,000,000")
    func newStore() throws {
        try Self.withStore(size: 10) { store, _, _ throws in
            #expect(try store.partitionSize() == 10)
            #expect(try store.partitions() == [EventPartition(name: "events_p1", first: nil, end: 11),
                                               EventPartition(name: "events_p11", first: 11, end: 21)])
        }
        // Asked for by evtool.layout alone (schema 18: a new store is one table by default).
        let url = try TestDatabase.url()
        let schema = TestDatabase.freshSchema()
        defer { try? PostgresEventStore.dropSchema(url: url, schema: schema) }
        do {
            let store = try PostgresEventStore(url: url + (url.contains("?") ? "&" : "?") + "options=-c%20evtool.layout%3Dpartitioned", schema: schema)
            #expect(try store.partitionSize() == 1_000_000)
            #expect(try store.partitions().map(\.end) == [1_000_001, 2_000_001])
        }
    }

    @Test("appends from many connections at once cross partitions of 7 positions: none fails, every event lands, a partition is always ready ahead of the head")
    func madeAheadUnderConcurrentAppends() throws {
        try Self.withStore(size: 7) { store, schema, url in
            let writers = 6, rounds = 30
            let failures = Failures()
            DispatchQueue.concurrentPerform(iterations: writers) { writer in
                do {
                    // A store (and connections) of each writer's own, as app servers have.
                    let own = try PostgresEventStore(url: url, schema: schema, maximumIdleConnections: 1, notifiesFollowers: false)
                    for round in 0..<rounds {
                        if round % 5 == 4 {
                            // A batch longer than a partition, over two streams.
                            try own.append([StreamAppend(stream: "user-\(writer)", expectedVersion: .any, events: (0..<5).map { _ in event() }),
                                            StreamAppend(stream: "batch-\(writer)", expectedVersion: .any, events: (0..<6).map { _ in event() })])
                        } else {
                            try own.append(event(), to: "user-\(writer)", expectedVersion: .any)
                        }
                    }
                } catch {
                    failures.record("writer \(writer): \(error)")
                }
            }
            #expect(failures.all == [])
            let expected = Int64(writers * (rounds / 5 * 11 + rounds - rounds / 5))
            // Every event once, in rising positions; a refused one-event reservation (schema 14)
            // leaves a gap, as an aborted append does.
            let all = try store.readAll(after: 0, limit: 10_000)
            #expect(Int64(all.count) == expected)
            #expect(zip(all, all.dropFirst()).allSatisfy { $0.position < $1.position })
            #expect(try store.headPosition() >= expected)
            let partitions = try store.partitions()
            Self.expectContiguous(partitions)
            // One whole partition beyond the one the head is in.
            let last = try #require(partitions.last)
            #expect(last.end - 7 > expected, "the last partition \(last) is ahead of the head \(expected)")
            #expect(partitions.count >= Int(expected / 7), "\(partitions)")
            // Every partition is the owner's (made by the append function as its owner), and each
            // event is in the partition of its position.
            #expect(try TestDatabase.execute("""
                SELECT count(*) FROM \(schema).events e JOIN \(schema).event_partitions() p ON e.tableoid = to_regclass('\(schema).' || p.name)
                WHERE (p.first_position IS NULL OR e.position >= p.first_position) AND e.position < p.end_position
                """) == String(expected))
            var verifier = try LogVerifier(store: store)
            #expect(try verifier.verifyLog().events == Int(expected))
        }
    }

    @Test("every partition refuses UPDATE, DELETE and TRUNCATE, addressed directly as well as through the events table; an erasure still goes through")
    func eachPartitionAppendOnly() throws {
        try Self.withStore(size: 3) { store, schema, _ in
            for user in 1...3 {
                try store.append([event(), event()], to: "user-\(user)", expectedVersion: .noStream)
            }
            let partitions = try store.partitions()
            #expect(partitions.count >= 3)
            // Row triggers fire for rows: UPDATE and DELETE where there are some, TRUNCATE everywhere.
            let holding = partitions.filter { ($0.first ?? 1) <= 6 }.map(\.name)
            var statements: [String] = []
            for table in ["events"] + holding {
                statements += ["UPDATE \(schema).\(table) SET type = 'Forged'", "DELETE FROM \(schema).\(table)"]
            }
            statements += (["events"] + partitions.map(\.name)).map { "TRUNCATE \(schema).\($0)" }
            for statement in statements {
                do {
                    try TestDatabase.execute(statement)
                    Issue.record("allowed: \(statement)")
                } catch {
                    #expect("\(error)".contains("evtool events are append-only"), "\(statement): \(error)")
                }
            }
            #expect(try TestDatabase.execute("SELECT count(*) FROM \(schema).events") == "6")
            // The one change allowed: an erasure, in whatever partition the user's events are.
            let outcome = try store.erase(Erasure.Request(stream: "user-2", reason: "test", operatorName: "owner"))
            #expect(outcome.erasedEvents == 2)
            var verifier = try LogVerifier(store: store)
            #expect(try verifier.verifyLog().erasedEvents == 2)
        }
    }

    @Test("event ids are unique over every partition: a duplicate of an id in an earlier partition is refused and names the id; events(withIDs:) finds events in any partition")
    func eventIDsUniqueAcrossPartitions() throws {
        try Self.withStore(size: 2) { store, schema, _ in
            let first = UUID()
            try store.append(event(id: first), to: "user-1", expectedVersion: .noStream)
            for round in 0..<6 { try store.append(event(), to: "user-\(round % 2 + 1)", expectedVersion: .any) }
            #expect(try store.partitions().count >= 4)
            #expect(throws: EventStoreError.duplicateEventID(first)) {
                try store.append(event(id: first), to: "user-3", expectedVersion: .any)
            }
            #expect(throws: EventStoreError.duplicateEventID(first)) {
                try store.append([event(), event(id: first)], to: "user-3", expectedVersion: .any)
            }
            #expect(try store.headPosition() == 7)
            #expect(try TestDatabase.execute("SELECT count(*) FROM \(schema).event_ids") == "7")
            let ids = try store.readAll(after: 0, limit: 100).map(\.id)
            let found = try store.events(withIDs: [ids[0], ids[6], UUID()])
            #expect(Set(found.map(\.id)) == [ids[0], ids[6]])
        }
    }

    @Test("the app role cannot make, attach, detach or lock a partition, nor write the event ids; its appends make partitions as the owner; a session that sets the partition hint itself only appends slower")
    func appRoleCannotPartition() throws {
        let url = try TestDatabase.url()
        let name = TestDatabase.freshSchema()
        let suffix = String(name.dropFirst(2).prefix(8))
        let (owner, app, auditor) = ("ownerp_\(suffix)", "appp_\(suffix)", "auditorp_\(suffix)")
        defer {
            try? PostgresEventStore.dropSchema(url: url, schema: name)
            for role in [app, auditor, owner] { _ = try? TestDatabase.execute("DROP OWNED BY \(role) CASCADE; DROP ROLE IF EXISTS \(role);") }
        }
        _ = try PostgresEventStore(url: Self.sized(url, 4), schema: name)
        try TestDatabase.execute(try PostgresRoles.sql(schema: name, owner: owner, app: app, auditor: auditor))
        let roleURL = { (role: String) in
            url.replacingOccurrences(of: "://postgres@", with: "://\(role)@") + (url.contains("?") ? "&" : "?") + "options=-c%20statement_timeout%3D8000"
        }
        let asApp = try PostgresEventStore(url: roleURL(app), schema: name, notifiesFollowers: false)
        for round in 0..<10 { try asApp.append(event(), to: "user-\(round % 3)", expectedVersion: .any) }
        let partitions = try PostgresEventStore(url: url, schema: name).partitions()   // the catalog function is the owner's
        #expect(partitions.count >= 4)
        #expect(try TestDatabase.execute("""
            SELECT string_agg(DISTINCT c.relowner::regrole::text, ',') FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = '\(name).events'::regclass
            """) == owner)
        let s = "\(name)"
        let newest = try #require(partitions.last?.name)
        var forgeries = [
            "CREATE TABLE \(s).events_p999 (LIKE \(s).events)",
            "ALTER TABLE \(s).events DETACH PARTITION \(s).\(newest)",
            "ALTER TABLE \(s).events ATTACH PARTITION \(s).events_p1 FOR VALUES FROM (MINVALUE) TO (5)",
            "SELECT \(s).make_partitions(1000)",
            "UPDATE \(s).partitioning SET size = 1",
            "INSERT INTO \(s).event_ids VALUES (gen_random_uuid(), 99)",
            "DELETE FROM \(s).event_ids",
            "INSERT INTO \(s).\(newest) (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id, hash) SELECT 99, 'x', 1, gen_random_uuid(), 'Forged', '{}', '{}', now(), '0', repeat('0', 64)",
            "SELECT * FROM \(s).events_p1",
            "DROP TABLE \(s).\(newest)",
        ]
        for mode in ["ROW SHARE", "ROW EXCLUSIVE", "SHARE UPDATE EXCLUSIVE", "SHARE", "SHARE ROW EXCLUSIVE", "EXCLUSIVE", "ACCESS EXCLUSIVE"] {
            forgeries.append("LOCK TABLE \(s).partitioning IN \(mode) MODE NOWAIT")
            forgeries.append("LOCK TABLE \(s).\(newest) IN \(mode) MODE NOWAIT")
            forgeries.append("LOCK TABLE \(s).event_ids IN \(mode) MODE NOWAIT")
        }
        let connection = try PostgresConnection(conninfo: roleURL(app))
        _ = try connection.execute("BEGIN")
        for statement in forgeries {
            let outcome = PostgresRoleMatrixTests.attempt(connection, statement)
            #expect(!outcome.allowed, "the app was allowed: \(statement)")
            #expect(outcome.error.contains("permission denied") || outcome.error.contains("must be owner"), "\(statement): \(outcome.error)")
        }
        _ = try connection.execute("COMMIT")
        // A session that claims partitions are ready far ahead (or never) only affects itself:
        // with the hint at 0 every append asks make_partitions, and all still land.
        let hinted = try PostgresEventStore(url: roleURL(app) + "%20-c%20evtool.partitions_\(name)%3D0", schema: name, notifiesFollowers: false)
        for _ in 0..<6 { try hinted.append(event(), to: "user-9", expectedVersion: .any) }
        #expect(try asApp.headPosition() == 16)
        var verifier = try LogVerifier(store: try PostgresEventStore(url: roleURL(auditor), schema: name))
        #expect(try verifier.verifyLog().events == 16)
    }
}

extension PostgresPartitionTests {
    @Test("a schema-9 store with evtool's roles upgrades: the app and the auditor read the partitioned table and the event ids, not a partition; the app appends, the auditor verifies")
    func upgradeKeepsRoles() throws {
        let url = try TestDatabase.url()
        let name = TestDatabase.freshSchema()
        let suffix = String(name.dropFirst(2).prefix(8))
        let (owner, app, auditor) = ("owner9_\(suffix)", "app9_\(suffix)", "auditor9_\(suffix)")
        defer {
            try? PostgresEventStore.dropSchema(url: url, schema: name)
            for role in [app, auditor, owner] { _ = try? TestDatabase.execute("DROP OWNED BY \(role) CASCADE; DROP ROLE IF EXISTS \(role);") }
        }
        let schema = try PostgresSchema(name: name)
        for step in 0..<9 {
            try TestDatabase.execute(schema.migrations[step] + "\nUPDATE \(schema.quoted).schema_version SET version = \(step + 1);")
        }
        try PostgresMigrationTests.appendWithOldFunction(name)
        // Version 9's roles script: today's without the event ids.
        let script = PostgresMigrationTests.rolesBeforeSchema13(try PostgresRoles.sql(schema: name, owner: owner, app: app, auditor: auditor))
            .replacingOccurrences(of: ", \(schema.quoted).event_ids", with: "")
        try TestDatabase.execute(script)
        _ = try PostgresEventStore(url: url, schema: name)
        #expect(try TestDatabase.execute("SELECT version FROM \(name).schema_version") == String(PostgresSchema.currentVersion))
        for role in [app, auditor] {
            #expect(try TestDatabase.execute("SELECT has_table_privilege('\(role)', '\(name).events', 'SELECT')") == "t")
            #expect(try TestDatabase.execute("SELECT has_table_privilege('\(role)', '\(name).event_ids', 'SELECT')") == "t")
            #expect(try TestDatabase.execute("SELECT has_table_privilege('\(role)', '\(name).events_p1', 'SELECT')") == "f")
            #expect(try TestDatabase.execute("SELECT has_table_privilege('\(role)', '\(name).event_ids', 'INSERT')") == "f")
        }
        let roleURL = { (role: String) in
            url.replacingOccurrences(of: "://postgres@", with: "://\(role)@") + (url.contains("?") ? "&" : "?") + "options=-c%20statement_timeout%3D8000"
        }
        let asApp = try PostgresEventStore(url: roleURL(app), schema: name, notifiesFollowers: false)
        #expect(try asApp.append(event(), to: "user-1", expectedVersion: .exactly(3)).positions == 5...5)
        #expect(try asApp.readAll(after: 0, limit: 10).count == 5)
        var verifier = try LogVerifier(store: try PostgresEventStore(url: roleURL(auditor), schema: name))
        #expect(try verifier.verifyLog().events == 5)
    }
}
