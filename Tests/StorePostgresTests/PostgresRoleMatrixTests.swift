import EventLog
import Foundation
@testable import StorePostgres
import Testing

/// The role matrix (docs/explanation/audit.md): a store set up with the SQL `evtool roles sql` prints
/// (``PostgresRoles/sql(schema:owner:app:auditor:)``), and each role that is not the owner
/// trying to block appends (advisory locks on every key the store uses, LOCK TABLE in every
/// mode, row locks), forge (writing the tables, calling internal functions), reorder (the
/// position sequence, positions) or exhaust the others. Appends by the app must still
/// complete promptly and the log must verify.
@Suite("Roles: no role but the owner can block, forge or reorder appends", .serialized)
struct PostgresRoleMatrixTests {
    struct Deployment {
        let url: String
        let schema: PostgresSchema
        let owner: String
        let app: String
        let auditor: String

        /// A connection string for `role`; `statement_timeout` bounds any wait, so that a
        /// blocked append fails the test instead of hanging it.
        func url(for role: String) -> String {
            url.replacingOccurrences(of: "://postgres@", with: "://\(role)@")
                + (url.contains("?") ? "&" : "?") + "options=-c%20statement_timeout%3D8000"
        }

        func drop() {
            try? PostgresEventStore.dropSchema(url: url, schema: schema.name)
            for role in [app, auditor, owner] {
                _ = try? TestDatabase.execute("DROP OWNED BY \(role) CASCADE; DROP ROLE IF EXISTS \(role);")
            }
        }
    }

    /// A store with three users' events, created by the superuser, then given to an owner,
    /// an app and an auditor role with the roles SQL.
    static func deploy() throws -> Deployment {
        let url = try TestDatabase.url()
        let name = TestDatabase.freshSchema()
        let suffix = String(name.dropFirst(2).prefix(8))
        let deployment = Deployment(url: url, schema: try PostgresSchema(name: name),
                                    owner: "owner_\(suffix)", app: "app_\(suffix)", auditor: "auditor_\(suffix)")
        let store = try PostgresEventStore(url: url, schema: name)
        for user in 1...3 {
            try store.append([event(), event()], to: "user-\(user)", expectedVersion: .noStream)
        }
        try TestDatabase.execute(try PostgresRoles.sql(schema: name, owner: deployment.owner, app: deployment.app, auditor: deployment.auditor))
        return deployment
    }

    /// Runs `sql` inside a savepoint of `connection`'s open transaction: whether it was
    /// allowed, and the error if not.
    static func attempt(_ connection: PostgresConnection, _ sql: String) -> (allowed: Bool, error: String) {
        do {
            _ = try connection.execute("SAVEPOINT attempt")
            _ = try connection.execute(sql)
            _ = try connection.execute("RELEASE SAVEPOINT attempt")
            return (true, "")
        } catch {
            _ = try? connection.execute("ROLLBACK TO SAVEPOINT attempt")
            return (false, "\(error)")
        }
    }

    /// Every lock a role may try to take on the store's objects.
    static func blockingStatements(_ d: Deployment) -> [String] {
        let s = d.schema.quoted
        let key = d.schema.lockKey
        var statements: [String] = []
        // Advisory locks: every class the store uses or used, with the schema's key, and each
        // stream's per-stream key, session and transaction level.
        for lockClass in [0x6576_7401, 0x6576_7402, 0x6576_7403, 0x6576_7404] {
            statements.append("SELECT pg_advisory_lock(\(lockClass), \(key))")
            statements.append("SELECT pg_advisory_xact_lock(\(lockClass), \(key))")
        }
        for stream in ["user-1", "user-2", "user-3", "user-new", "$erasures"] {
            statements.append("SELECT pg_advisory_lock(hashtextextended('\(stream)', \(key)))")
            statements.append("SELECT pg_advisory_xact_lock(hashtextextended('\(stream)', \(key)))")
        }
        let modes = ["ACCESS SHARE", "ROW SHARE", "ROW EXCLUSIVE", "SHARE UPDATE EXCLUSIVE", "SHARE", "SHARE ROW EXCLUSIVE", "EXCLUSIVE", "ACCESS EXCLUSIVE"]
        for table in ["events", "streams", "append_reservation", "schema_version", "erasures", "seals", "position_seq"] {
            for mode in modes { statements.append("LOCK TABLE \(s).\(table) IN \(mode) MODE NOWAIT") }
        }
        for table in ["events", "streams", "append_reservation", "schema_version"] {
            for strength in ["UPDATE", "NO KEY UPDATE", "SHARE", "KEY SHARE"] {
                statements.append("SELECT 1 FROM \(s).\(table) FOR \(strength) NOWAIT")
            }
        }
        return statements
    }

    /// Appends by the app role, each to be done in well under the append function's lock
    /// timeout: to an existing stream, a new one, several at once, and the erasure log's.
    static func appendAsApp(_ d: Deployment, round: Int) throws -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        let store = try PostgresEventStore(url: d.url(for: d.app), schema: d.schema.name, notifiesFollowers: false)
        try store.append(event(), to: "user-1", expectedVersion: .exactly(Int64(2 + round)))
        try store.append(event(), to: "user-new-\(round)", expectedVersion: .noStream)
        try store.append([StreamAppend(stream: "user-2", expectedVersion: .any, events: [event()]),
                          StreamAppend(stream: "user-3", expectedVersion: .any, events: [event(), event()])])
        return clock.now - start
    }

    @Test("the app and the auditor, holding every lock they can take, do not stall appends or opening the store")
    func cannotBlock() throws {
        let d = try Self.deploy(); defer { d.drop() }
        var round = 0
        for role in [d.app, d.auditor] {
            let blocker = try PostgresConnection(conninfo: d.url(for: role))
            _ = try blocker.execute("BEGIN")
            var held: [String] = []
            for statement in Self.blockingStatements(d) where Self.attempt(blocker, statement).allowed {
                held.append(statement)
            }
            // Advisory locks are open to every role: the point is that appends need none.
            #expect(held.contains { $0.contains("pg_advisory_lock(1702261762") }, "\(role) could not take the old reservation key: \(held)")
            // No table lock stronger than a read's, and no row lock, for a role that is not the owner.
            let strong = held.filter { $0.hasPrefix("LOCK TABLE") && !$0.contains("IN ACCESS SHARE") || $0.contains(" FOR ") }
            #expect(strong.isEmpty, "\(role) took locks only the owner should: \(strong)")

            let elapsed = try Self.appendAsApp(d, round: round)
            round += 1
            #expect(elapsed < .seconds(1.5), "appends took \(elapsed) while \(role) held \(held.count) locks")
            _ = try blocker.execute("ROLLBACK")
            _ = try blocker.execute("SELECT pg_advisory_unlock_all()")
        }
        let asAuditor = try PostgresEventStore(url: d.url(for: d.auditor), schema: d.schema.name)
        var verifier = try LogVerifier(store: asAuditor)
        let report = try verifier.verifyLog()
        #expect(report.events == 6 + 2 * 5 && report.streams == 5)
    }

    @Test("neither the app nor the auditor can write the tables, move the sequence or change positions; the auditor cannot append")
    func cannotForgeOrReorder() throws {
        let d = try Self.deploy(); defer { d.drop() }
        let s = d.schema.quoted
        let forgeries = [
            "INSERT INTO \(s).events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id, hash) SELECT 0, 'user-1', 9, gen_random_uuid(), 'Forged', '{}', '{}', now(), '0', repeat('0', 64)",
            "INSERT INTO \(s).events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id, hash) SELECT 1000, 'user-1', 3, gen_random_uuid(), 'Forged', '{}', '{}', now(), '0', repeat('0', 64)",
            "UPDATE \(s).events SET position = position + 1000 WHERE stream_id = 'user-1'",
            "UPDATE \(s).events SET data = '{\"forged\":true}' WHERE position = 1",
            "DELETE FROM \(s).events WHERE position = 1",
            "TRUNCATE \(s).events",
            "INSERT INTO \(s).streams VALUES ('user-9', 5, repeat('0', 64), 1)",
            "UPDATE \(s).streams SET version = 0",
            "DELETE FROM \(s).streams",
            "SELECT setval('\(s).position_seq', 1)",
            "SELECT setval('\(s).position_seq', 9223372036854775807)",
            "SELECT nextval('\(s).position_seq')",
            "ALTER SEQUENCE \(s).position_seq RESTART WITH 1",
            "ALTER TABLE \(s).events DISABLE TRIGGER events_append_only",
            "ALTER TABLE \(s).events DROP CONSTRAINT events_position_check",
            "INSERT INTO \(s).erasures VALUES (gen_random_uuid(), 1, '', '', now(), gen_random_uuid())",
            "INSERT INTO \(s).seals VALUES (1, 1, 1, 1, '', '', '', '')",
            "CREATE TABLE \(s).shadow (x int)",
            "CREATE FUNCTION \(s).chain_hash(x int) RETURNS int LANGUAGE sql AS 'SELECT 1'",
            "UPDATE \(s).schema_version SET version = 99",
            // An event "copied erased" would record an erasure: the owner's only.
            """
            SELECT * FROM \(s).append_copied(ARRAY['user-1'], ARRAY[0], ARRAY[0::bigint], ARRAY[1], ARRAY[gen_random_uuid()], ARRAY['Forged'],
                ARRAY['{"erased":true}'::json], ARRAY['{"erased":true}'::json], ARRAY[NULL::timestamptz], ARRAY[repeat('0', 64)], ARRAY[repeat('0', 64)],
                ARRAY[gen_random_uuid()])
            """,
        ]
        let appendCall = """
            SELECT * FROM \(s).append(ARRAY['user-1'], ARRAY[0], ARRAY[0::bigint], ARRAY[1], ARRAY[gen_random_uuid()],
                ARRAY['Forged'], ARRAY['{}'::json], ARRAY['{}'::json], ARRAY[NULL::timestamptz])
            """
        let appendOneCall = """
            SELECT * FROM \(s).append_one('user-1', 0, 0, gen_random_uuid(), 'Forged', '{}', '{}', NULL)
            """
        for role in [d.app, d.auditor] {
            let connection = try PostgresConnection(conninfo: d.url(for: role))
            _ = try connection.execute("BEGIN")
            for statement in forgeries + (role == d.auditor ? [appendCall, appendOneCall] : []) {
                let outcome = Self.attempt(connection, statement)
                #expect(!outcome.allowed, "\(role) was allowed: \(statement)")
                #expect(outcome.error.contains("permission denied") || outcome.error.contains("must be owner"),
                        "\(role): \(statement): \(outcome.error)")
            }
            _ = try connection.execute("COMMIT")
        }
        // The app appends through the function, which still works and still chains.
        let asApp = try PostgresEventStore(url: d.url(for: d.app), schema: d.schema.name)
        var copied = ProposedEvent(type: "Favorited", data: Erasure.tombstone, metadata: Erasure.tombstone)
        copied.erasure = CopiedErasure(ErasedDigests(position: 1, eventID: copied.id, dataSHA256: Array(repeating: 1, count: 32),
                                                     metadataSHA256: Array(repeating: 2, count: 32), erasureEventID: UUID()))
        #expect {
            try asApp.append([copied], to: "user-9", expectedVersion: .noStream)
        } throws: { error in
            guard case EventStoreError.permissionDenied(let reason) = error else { return false }
            return reason.contains("only the schema's owner may do") && reason.contains("nothing was written")
        }
        let appended = try asApp.append(event(), to: "user-1", expectedVersion: .exactly(2))
        #expect(appended.positions.lowerBound == 7)
        var verifier = try LogVerifier(store: try PostgresEventStore(url: d.url(for: d.auditor), schema: d.schema.name))
        #expect(try verifier.verifyLog().events == 7)
    }

    @Test("the app holding a stream open blocks only that stream, and only until the lock timeout: a clear error, not a hang")
    func ownStreamBounded() throws {
        let d = try Self.deploy(); defer { d.drop() }
        let s = d.schema.quoted
        let holder = try PostgresConnection(conninfo: d.url(for: d.app))
        _ = try holder.execute("BEGIN")
        _ = try holder.execute("""
            SELECT * FROM \(s).append(ARRAY['user-1'], ARRAY[0], ARRAY[0::bigint], ARRAY[1], ARRAY[gen_random_uuid()],
                ARRAY['Searched'], ARRAY['{}'::json], ARRAY['{}'::json], ARRAY[NULL::timestamptz])
            """)
        let store = try PostgresEventStore(url: d.url(for: d.app), schema: d.schema.name, notifiesFollowers: false)
        let clock = ContinuousClock()
        var start = clock.now
        try store.append(event(), to: "user-2", expectedVersion: .exactly(2))
        #expect(clock.now - start < .seconds(1.5), "another stream waited for user-1's holder")
        start = clock.now
        do {
            try store.append(event(), to: "user-1", expectedVersion: .any)
            Issue.record("an append to the held stream went through while its row was locked")
        } catch let error as EventStoreError {
            guard case .unavailable(let message) = error else { Issue.record("\(error)"); return }
            #expect(message.contains("lock") && message.contains("nothing was written"), "\(message)")
        }
        let waited = clock.now - start
        #expect(waited >= .seconds(1.5) && waited < .seconds(6), "waited \(waited)")
        _ = try holder.execute("COMMIT")
        try store.append(event(), to: "user-1", expectedVersion: .exactly(3))
        var verifier = try LogVerifier(store: store)
        #expect(try verifier.verifyLog().events == 9)
    }

    @Test("a reservation held by the owner ends the append in a clear error after the lock timeout, never a hang")
    func reservationTimeout() throws {
        try TestDatabase.withStore { store, name in
            let owner = try PostgresConnection(conninfo: try TestDatabase.url())
            _ = try owner.execute("BEGIN")
            _ = try owner.execute("LOCK TABLE \(name).append_reservation IN EXCLUSIVE MODE")
            let clock = ContinuousClock()
            let start = clock.now
            do {
                try store.append(event(), to: "user-1", expectedVersion: .any)
                Issue.record("the append went through while the reservation was held")
            } catch EventStoreError.unavailable(let message) {
                #expect(message.contains("lock timeout") && message.contains("nothing was written"), "\(message)")
            }
            #expect(clock.now - start < .seconds(6))
            _ = try owner.execute("ROLLBACK")
            #expect(try store.append(event(), to: "user-1", expectedVersion: .noStream).streamVersion == 1)
        }
    }
}
