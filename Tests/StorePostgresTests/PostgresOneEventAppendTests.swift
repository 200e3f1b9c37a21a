import EventLog
import Foundation
@testable import StorePostgres
import Synchronization
import Testing

/// The one-event append (`append_one`) of schema version 8: a store made by the release before
/// it upgrades with its callers unchanged, and the function keeps every refusal and the retry
/// of `append` (docs/explanation/ordering.md).
@Suite("PostgreSQL: the one-event append of schema version 8", .serialized)
struct PostgresOneEventAppendTests {
    static let signature = "append_one(text, integer, bigint, uuid, text, json, json, timestamptz)"

    /// The statement a caller other than evtool sends: one event to `stream`.
    static func call(_ schema: String, _ stream: String, kind: Int = 0, version: Int = 0, type: String = "Searched") -> String {
        "SELECT status, stream_versions, first_position FROM \(schema).append_one('\(stream)', \(kind), \(version), gen_random_uuid(), '\(type)', '{\"keyword\":\"jazz\"}', '{\"by\":\"test\"}', NULL)"
    }

    /// Today's roles script as version 6's release wrote it: its kept tree was two tables, and
    /// there were no archives (the grants of later tables are what changed since).
    static func version6Roles(_ script: String, schema: String) -> String {
        script.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { (!$0.contains("\(schema).archives") || $0.contains("merkle_tiles")) && !$0.contains(".merkle_put(") && !$0.contains(".append_returning_hashes(") && !$0.contains(".unfinished_copy ") }
            .map { line in
                line.replacingOccurrences(of: ", \(schema).archives, \(schema).archived_heads", with: "")
                    .replacingOccurrences(of: ", \(schema).event_ids", with: "")
                    .replacingOccurrences(of: "\(schema).merkle_tiles", with: "\(schema).merkle_leaves, \(schema).merkle_nodes")
            }
            .joined(separator: "\n")
    }

    @Test("a store made by schema version 6 (its own append_one, its roles) upgrades: the app still appends one event, the auditor still cannot, the chain carries on from the old heads")
    func upgradeFromVersion6() throws {
        let url = try TestDatabase.url()
        let name = TestDatabase.freshSchema()
        let suffix = String(name.dropFirst(2).prefix(8))
        let (owner, app, auditor) = ("owner8_\(suffix)", "app8_\(suffix)", "auditor8_\(suffix)")
        defer {
            try? PostgresEventStore.dropSchema(url: url, schema: name)
            for role in [app, auditor, owner] { _ = try? TestDatabase.execute("DROP OWNED BY \(role) CASCADE; DROP ROLE IF EXISTS \(role);") }
        }
        let schema = try PostgresSchema(name: name)
        let version6 = try #require(PostgresMigration.all.firstIndex { $0.template == PostgresMigration.version6.template })
        for step in 0...version6 {
            try TestDatabase.execute(schema.migrations[step] + "\nUPDATE \(schema.quoted).schema_version SET version = \(step + 1);")
        }
        // Events through version 6's own one-event function: a new stream, an existing one, a
        // second stream; then the roles script of that release.
        try TestDatabase.execute(Self.call(name, "user-1", kind: 1))
        try TestDatabase.execute(Self.call(name, "user-1", kind: 3, version: 1, type: "Favorited"))
        try TestDatabase.execute(Self.call(name, "user-2"))
        try TestDatabase.execute(Self.version6Roles(try PostgresRoles.sql(schema: name, owner: owner, app: app, auditor: auditor), schema: schema.quoted))
        let source = "SELECT prosrc LIKE '%FOR attempt IN 1..2%' FROM pg_proc WHERE oid = '\(schema.quoted).\(Self.signature)'::regprocedure"
        #expect(try TestDatabase.execute(source) == "t", "version 6's append_one is installed")

        // The upgrade (by the superuser, as evtool init would run it).
        let store = try PostgresEventStore(url: url, schema: name)
        #expect(try TestDatabase.execute("SELECT version FROM \(name).schema_version") == String(PostgresSchema.currentVersion))
        #expect(try TestDatabase.execute(source) == "f", "the upgrade replaced append_one")
        #expect(try TestDatabase.execute("""
            SELECT p.proowner::regrole::text FROM pg_proc p WHERE p.oid = '\(schema.quoted).\(Self.signature)'::regprocedure
            """) == owner, "append_one still runs as the store's owner")
        let callable = { (role: String) in
            try TestDatabase.execute("SELECT has_function_privilege('\(role)', '\(schema.quoted).\(Self.signature)', 'EXECUTE')")
        }
        #expect(try callable(app) == "t")
        #expect(try callable(auditor) == "f")
        #expect(try TestDatabase.execute("""
            SELECT count(*) FROM pg_proc p, aclexplode(p.proacl) a WHERE p.oid = '\(schema.quoted).\(Self.signature)'::regprocedure AND a.grantee = 0
            """) == "0", "PUBLIC must not be able to call append_one")

        // The app appends one event at a time, through the upgraded function, from the old heads.
        let roleURL = { (role: String) in
            url.replacingOccurrences(of: "://postgres@", with: "://\(role)@") + (url.contains("?") ? "&" : "?") + "options=-c%20statement_timeout%3D8000"
        }
        let appStore = try PostgresEventStore(url: roleURL(app), schema: name, notifiesFollowers: false)
        #expect(try appStore.append(event(), to: "user-1", expectedVersion: .exactly(2)).streamVersion == 3)
        #expect(try appStore.append(event(), to: "user-3", expectedVersion: .noStream).streamVersion == 1)
        #expect(throws: EventStoreError.wrongExpectedVersion(stream: "user-2", expected: .noStream, actual: 1)) {
            try appStore.append(event(), to: "user-2", expectedVersion: .noStream)
        }
        let auditorConnection = try PostgresConnection(conninfo: roleURL(auditor))
        #expect(throws: PostgresError.self) { try auditorConnection.execute(Self.call(name, "user-9")) }
        #expect(try TestDatabase.execute("SELECT count(*) FROM \(name).events WHERE stream_id = 'user-9'") == "0")

        var verifier = try LogVerifier(store: store)
        let report = try verifier.verifyLog()
        #expect(report.events == 5 && report.streams == 3)
        #expect(try TestDatabase.execute("""
            SELECT count(*) FROM \(name).streams s JOIN \(name).events e ON e.stream_id = s.stream_id AND e.version = s.version
            WHERE e.hash = s.hash AND e.position = s.position
            """) == "3", "every head is its stream's last event")
    }

    @Test("a transaction left open after a one-event append holds no lock other appends wait for: batched and one-event appends of other streams go on at once")
    func openTransactionBlocksNoAppend() throws {
        try TestDatabase.withStore { store, name in
            let idle = try PostgresConnection(conninfo: try TestDatabase.url())
            try idle.execute("BEGIN")
            try idle.execute(Self.call(name, "user-idle"))
            // Still open. The store's appends wait 2 s for a lock at most (lock_timeout), then fail.
            #expect(try store.append([event(), event(), event()], to: "user-batch", expectedVersion: .noStream).streamVersion == 3)
            #expect(try store.append(event(), to: "user-one", expectedVersion: .noStream).streamVersion == 1)
            try idle.execute("COMMIT")
            #expect(try TestDatabase.execute("SELECT count(*) FROM \(name).events") == "5")
        }
    }

    @Test("append_one refuses a transaction that already wrote (25001) and an incomplete event (22023); nothing is written")
    func refusals() throws {
        try TestDatabase.withStore { store, name in
            try store.append(event(), to: "user-1", expectedVersion: .noStream)
            let connection = try PostgresConnection(conninfo: try TestDatabase.url())
            let sqlState = { (sql: String) -> String? in
                do {
                    _ = try connection.execute(sql)
                    return nil
                } catch let error as PostgresError {
                    return error.sqlState?.rawValue
                } catch {
                    return "\(error)"
                }
            }
            // The transaction has an id before the call (it wrote a view row).
            try connection.execute("BEGIN")
            try connection.execute("INSERT INTO \(name).projections VALUES ('p', 1, 1, 0, true, now())")
            #expect(sqlState(Self.call(name, "user-1")) == "25001")
            try connection.execute("ROLLBACK")
            // The same with a transaction id taken explicitly.
            #expect(sqlState("BEGIN; SELECT pg_current_xact_id(); \(Self.call(name, "user-1")); COMMIT") == "25001")
            try connection.execute("ROLLBACK")
            for argument in ["p_stream", "p_kind", "p_version", "p_id", "p_type", "p_data", "p_metadata"] {
                let values = ["p_stream": "'user-1'", "p_kind": "0", "p_version": "0", "p_id": "gen_random_uuid()",
                              "p_type": "'Searched'", "p_data": "'{}'", "p_metadata": "'{}'"]
                let list = ["p_stream", "p_kind", "p_version", "p_id", "p_type", "p_data", "p_metadata"]
                    .map { $0 == argument ? "NULL" : values[$0] ?? "" }.joined(separator: ", ")
                #expect(sqlState("SELECT * FROM \(name).append_one(\(list), NULL)") == "22023", "NULL \(argument)")
            }
            #expect(try TestDatabase.execute("SELECT count(*) FROM \(name).events") == "1")
            #expect(try TestDatabase.execute("SELECT count(*) FROM \(name).projections") == "0")
            #expect(try store.append(event(), to: "user-1", expectedVersion: .exactly(1)).streamVersion == 2)
        }
    }

    @Test("one event to a stream whose later-reserved append committed first: the function refuses (EV001), the store calls again, the chain and versions stay in position order")
    func laterAppendCommittedFirst() throws {
        try TestDatabase.withStore { store, name in
            try store.append(event(), to: "s", expectedVersion: .noStream)
            // Hold s's row (as the owner), so that a one-event append to s reserves its position
            // and then waits in its UPDATE of the row.
            let blocker = try PostgresConnection(conninfo: try TestDatabase.url())
            try blocker.execute("BEGIN")
            try blocker.execute("SELECT 1 FROM \(name).streams WHERE stream_id = 's' FOR UPDATE")
            let outcome = Outcome()
            let appended = Mutex<AppendResult?>(nil)
            let writer = Thread {
                do {
                    let result = try store.append(event("Favorited"), to: "s", expectedVersion: .any)
                    appended.withLock { $0 = result }
                    outcome.set("appended")
                } catch { outcome.set(error) }
            }
            writer.start()
            var waiting = "0"
            for _ in 0..<500 where waiting == "0" {
                Thread.sleep(forTimeInterval: 0.01)
                waiting = try TestDatabase.execute("""
                    SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%\(name)%append_one%'
                    """) ?? "0"
            }
            #expect(waiting == "1")
            // Meanwhile a writer that reserved the next position appends to s and commits first
            // (written here by hand, as the function would: the chained hash, the new head).
            let waiterPosition = try #require(Int64(PostgresResultText.value(try blocker.execute("SELECT last_value FROM \(name).position_seq")) ?? ""))
            let later = waiterPosition + 1
            try blocker.execute("""
                SELECT setval('\(name).position_seq', \(later));
                WITH head AS (
                    UPDATE \(name).streams t SET version = 2, position = \(later),
                        hash = encode(\(name).chain_hash(decode(t.hash, 'hex'), 's', 2, '00000000-0000-4000-8000-000000000002', 'Later',
                                                         '2026-01-02T03:04:05.123456Z', sha256(convert_to('{}', 'UTF8')),
                                                         sha256(convert_to('{}', 'UTF8'))), 'hex')
                    WHERE t.stream_id = 's' RETURNING t.hash)
                INSERT INTO \(name).events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id, hash)
                SELECT \(later), 's', 2, '00000000-0000-4000-8000-000000000002', 'Later', '{}', '{}',
                       '2026-01-02T03:04:05.123456Z', pg_current_xact_id(), head.hash FROM head;
                COMMIT
                """)
            let result = outcome.wait()
            #expect((result as? Outcome.TextResult)?.text == "appended", "\(String(describing: result))")
            let retried = try #require(appended.withLock { $0 })
            #expect(retried.streamVersion == 3)
            #expect(retried.positions.lowerBound > later, "the first try's position \(waiterPosition) is a gap; the second is above \(later): \(retried)")
            let log = try store.readAll(after: 0, limit: 100)
            #expect(log.map(\.version) == [1, 2, 3] && log.map(\.type) == ["Searched", "Later", "Favorited"], "\(log.map { ($0.position, $0.version, $0.type) })")
            #expect(!log.contains { $0.position == waiterPosition })
            var verifier = try LogVerifier(store: store)
            #expect(try verifier.verifyLog().events == 3)
        }
    }
    @Test("a new stream's first event is one statement: the stream's row is inserted with the event as its head, never inserted and then moved")
    func newStreamInOneStatement() throws {
        try TestDatabase.withStore { _, name in
            let connection = try PostgresConnection(conninfo: try TestDatabase.url())
            // The rows this connection's backend has written to a table and not yet reported
            // (pg_stat_xact_user_tables: in PostgreSQL 15 they pile up across transactions until
            // the backend reports them, so each check takes the difference around one call).
            func counts(_ table: String) throws -> (inserted: Int, updated: Int) {
                let text = PostgresResultText.value(try connection.execute("""
                    SELECT n_tup_ins || ' ' || n_tup_upd FROM pg_stat_xact_user_tables WHERE relid = '\(name).\(table)'::regclass
                    """)) ?? ""
                let numbers = text.split(separator: " ").compactMap { Int($0) }
                return (numbers.first ?? -1, numbers.last ?? -1)
            }
            func written(_ call: String) throws -> String {
                try connection.execute("BEGIN")
                let before = try counts("streams")
                let status = PostgresResultText.value(try connection.execute(call))
                let after = try counts("streams")
                try connection.execute("COMMIT")
                return "status \(status ?? "none"): \(after.inserted - before.inserted) inserted, \(after.updated - before.updated) updated"
            }
            for (stream, kind, version) in [("user-new-any", 0, 0), ("user-new-none", 1, 0), ("user-new-exactly-0", 3, 0)] {
                #expect(try written(Self.call(name, stream, kind: kind, version: version)) == "status 0: 1 inserted, 0 updated", "\(stream)")
            }
            // An existing stream moves its row (one update, no insert).
            #expect(try written(Self.call(name, "user-new-any", kind: 3, version: 1)) == "status 0: 0 inserted, 1 updated")
            #expect(try TestDatabase.execute("SELECT string_agg(stream_id || ':' || version, ',' ORDER BY position) FROM \(name).events")
                    == "user-new-any:1,user-new-none:1,user-new-exactly-0:1,user-new-any:2")
        }
    }

    @Test("writers racing for a new stream's first event: with any version every event is taken, versions follow positions and the chain verifies; with no stream exactly one is taken")
    func newStreamRace() throws {
        try TestDatabase.withStore { store, _ in
            let writers = 8, each = 10
            let failures = Mutex<[String]>([])
            let threads = (0..<writers).map { writer in
                Thread {
                    for _ in 0..<each {
                        do { try store.append(event(), to: "hot", expectedVersion: .any) } catch { failures.withLock { $0.append("\(error)") } }
                    }
                }
            }
            threads.forEach { $0.start() }
            let once = Mutex<(taken: Int, refused: [Int64])>((0, []))
            let racers = (0..<writers).map { _ in
                Thread {
                    do {
                        try store.append(event(), to: "once", expectedVersion: .noStream)
                        once.withLock { $0.taken += 1 }
                    } catch EventStoreError.wrongExpectedVersion(_, _, let actual) {
                        once.withLock { $0.refused.append(actual) }
                    } catch { failures.withLock { $0.append("\(error)") } }
                }
            }
            racers.forEach { $0.start() }
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline, try store.readAll(after: 0, limit: 1_000).count < writers * each + 1 || once.withLock({ $0.taken + $0.refused.count }) < writers {
                Thread.sleep(forTimeInterval: 0.02)
            }
            #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
            let log = try store.readAll(after: 0, limit: 1_000)
            let hot = log.filter { $0.streamID == "hot" }
            #expect(hot.map(\.version) == Array(1...Int64(writers * each)), "versions of hot in position order")
            #expect(once.withLock { $0.taken } == 1)
            #expect(once.withLock { $0.refused } == Array(repeating: 1, count: writers - 1))
            var verifier = try LogVerifier(store: store)
            #expect(try verifier.verifyLog().events == UInt64(writers * each + 1))
        }
    }
}
