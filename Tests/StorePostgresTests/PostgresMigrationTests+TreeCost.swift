import EventLog
import Foundation
@testable import StorePostgres
import Testing

extension PostgresMigrationTests {
    /// Appends `count` events to `stream` through the schema's own batched `append` (any
    /// expected version), as a store of that version did.
    static func appendThroughSQL(_ name: String, stream: String, count: Int) throws {
        try TestDatabase.execute("""
            SELECT * FROM \(name).append(ARRAY['\(stream)'], ARRAY[0], ARRAY[0::bigint], ARRAY[\(count)],
                ARRAY(SELECT gen_random_uuid() FROM generate_series(1, \(count))), ARRAY(SELECT 'Searched' FROM generate_series(1, \(count))),
                ARRAY(SELECT json_build_object('keyword', 'k' || n) FROM generate_series(1, \(count)) AS n), ARRAY(SELECT '{}'::json FROM generate_series(1, \(count))),
                ARRAY(SELECT NULL::timestamptz FROM generate_series(1, \(count))))
            """)
    }

    @Test("a schema-9 store (today's tiles, partly built by its own merkle_extend, its roles) upgrades: merkle_extend is replaced with its owner and callers kept, the app extends the tree the old function began, and it has the log's roots")
    func upgradeFromSchema9KeptTree() throws {
        let url = try TestDatabase.url()
        let name = TestDatabase.freshSchema()
        let suffix = String(name.dropFirst(2).prefix(8))
        let (owner, app, auditor) = ("owner11_\(suffix)", "app11_\(suffix)", "auditor11_\(suffix)")
        defer {
            try? PostgresEventStore.dropSchema(url: url, schema: name)
            for role in [app, auditor, owner] { _ = try? TestDatabase.execute("DROP OWNED BY \(role) CASCADE; DROP ROLE IF EXISTS \(role);") }
        }
        let schema = try PostgresSchema(name: name)
        let version9 = try #require(PostgresMigration.all.firstIndex { $0.template == PostgresMigration.version9.template })
        for step in 0...version9 {
            try TestDatabase.execute(schema.migrations[step] + "\nUPDATE \(schema.quoted).schema_version SET version = \(step + 1);")
        }
        for (stream, count) in [("user-1", 7), ("user-2", 30), ("user-1", 3), ("user-3", 260)] {
            try Self.appendThroughSQL(name, stream: stream, count: count)
        }
        // Today's roles script, without the table schema 10 added (the upgrade grants on it).
        let roles = Self.rolesBeforeSchema13(try PostgresRoles.sql(schema: name, owner: owner, app: app, auditor: auditor))
            .replacingOccurrences(of: #", [^,;\s]*\.event_ids"#, with: "", options: .regularExpression)
        try TestDatabase.execute(roles)
        // Schema 9's follower, with its regular expression per row, builds the first 37 leaves.
        let signature = "\(schema.quoted).merkle_extend(integer)"
        let source = "SELECT prosrc LIKE '%!~ ''^[0-9a-f]{64}$''%' FROM pg_proc WHERE oid = '\(signature)'::regprocedure"
        #expect(try TestDatabase.execute(source) == "t", "schema 9's merkle_extend is installed")
        // Calls again while events wait behind other tests' transactions (the function takes only
        // events no running transaction can precede, cluster-wide).
        var built = 0
        #expect(try Self.eventually(37) {
            let step = Int(try TestDatabase.execute("SELECT added FROM \(name).merkle_extend(\(37 - built))") ?? "0") ?? 0
            built += step
            return step
        } == 37)

        // The upgrade (by the superuser, as evtool init would run it).
        let store = try PostgresEventStore(url: url, schema: name)
        #expect(try TestDatabase.execute("SELECT version FROM \(name).schema_version") == String(PostgresSchema.currentVersion))
        #expect(try TestDatabase.execute(source) == "f", "the upgrade replaced merkle_extend")
        #expect(try TestDatabase.execute("SELECT p.proowner::regrole::text || ' ' || p.prosecdef FROM pg_proc p WHERE p.oid = '\(signature)'::regprocedure")
                == "\(owner) true", "merkle_extend still runs as the store's owner")
        let callable = { (role: String) in try TestDatabase.execute("SELECT has_function_privilege('\(role)', '\(signature)', 'EXECUTE')") }
        #expect(try callable(app) == "t")
        #expect(try callable(auditor) == "f")
        #expect(try TestDatabase.execute("""
            SELECT count(*) FROM pg_proc p, aclexplode(p.proacl) a WHERE p.oid = '\(signature)'::regprocedure AND a.grantee = 0
            """) == "0", "PUBLIC must not be able to call merkle_extend")
        #expect(try TestDatabase.execute("SELECT count(*) FROM \(name).merkle_tiles") == "4", "the old function's tiles stay: 0/0, 0/1, 0/2 and 4/0")

        // The app carries on from the old function's open tiles, in uneven steps.
        let appURL = url.replacingOccurrences(of: "://postgres@", with: "://\(app)@")
        let asApp = try PostgresEventStore(url: appURL, schema: name, createIfMissing: false)
        var added = 0
        for limit in [1, 10, 100] { added += try asApp.extendMerkleTree(limit: limit).added }
        added += try Self.eventually(300 - 37 - added) { try asApp.extendMerkleTree(limit: 1_000).added }
        #expect(added == 300 - 37)
        try store.append(ProposedEvent(type: "Searched", data: Data("{}".utf8)), to: "user-4", expectedVersion: .noStream)
        #expect(try Self.eventually(1) { try asApp.extendMerkleTree(limit: 1_000).added } == 1)
        #expect(try KeptTreeCheck.verify(store) == 301)
        var leaves: [[UInt8]] = []
        var cursor: Int64 = 0
        while true {
            let batch = try store.readAll(after: cursor, limit: 100)
            guard let last = batch.last else { break }
            leaves += try batch.map { try LogTree.leafHash(of: $0) }
            cursor = last.position
        }
        for size in UInt64(1)...301 {
            #expect(try LogTree.root(of: store, size: size) == MerkleProofBuilder.build(size: size, leafHashes: leaves).root, "size \(size)")
        }
    }

    @Test("merkle_extend commits without waiting for the disk only when its writes are its transaction's only ones, and no append can follow it there")
    func extensionCommitsAsynchronouslyAlone() throws {
        try TestDatabase.withStore { store, name in
            for user in 1...3 { try store.append(ProposedEvent(type: "Searched", data: Data("{}".utf8)), to: "user-\(user)", expectedVersion: .noStream) }
            let connection = try PostgresConnection(conninfo: try TestDatabase.url())
            let value = { (sql: String) throws -> String? in PostgresResultText.value(try connection.execute(sql)) }
            // Its own transaction: the commit does not wait, and no event can be committed in it.
            // (Begun again while the events wait behind other tests' transactions.)
            #expect(try Self.eventually(1, summing: false) {
                _ = try connection.execute("BEGIN")
                let added = Int(try value("SELECT added FROM \(name).merkle_extend(1)") ?? "0") ?? 0
                if added == 0 { _ = try connection.execute("ROLLBACK") }
                return added
            } == 1)
            #expect(try value("SHOW synchronous_commit") == "off")
            do {
                _ = try connection.execute(PostgresOneEventAppendTests.call(name, "user-4"))
                Issue.record("an append ran in the tree's transaction")
            } catch let error as PostgresError {
                #expect(error.sqlState?.rawValue == "25001", "\(error)")
            }
            _ = try connection.execute("ROLLBACK")
            // A transaction that wrote before keeps its commit as it was.
            _ = try connection.execute("BEGIN")
            _ = try connection.execute("INSERT INTO \(name).projections VALUES ('p', 1, 1, 0, true, now())")
            #expect(try Self.eventually(1, summing: false) { Int(try value("SELECT added FROM \(name).merkle_extend(1)") ?? "0") ?? 0 } == 1)
            #expect(try value("SHOW synchronous_commit") == "on")
            _ = try connection.execute("COMMIT")
            // Nothing to add writes nothing and changes nothing.
            _ = try connection.execute("BEGIN")
            #expect(try value("SELECT added FROM \(name).merkle_extend(0)") == "0")
            #expect(try value("SHOW synchronous_commit") == "on")
            _ = try connection.execute("ROLLBACK")
            #expect(try Self.eventually(2) { try store.extendMerkleTree(limit: 10).added } == 2)
            #expect(try KeptTreeCheck.verify(store) == 3)
        }
    }
}
