import EventLog
import Foundation
@testable import StorePostgres
import Testing

extension PostgresMigrationTests {
    @Test("a schema-11 store (tiles partly built by its own merkle_extend, its roles) upgrades to schema 12: merkle_extend is replaced with its owner and callers kept, the app extends the tree the old function began across levels 0, 4 and 8, and it has the log's roots")
    func upgradeFromSchema11KeptTree() throws {
        let url = try TestDatabase.url()
        let name = TestDatabase.freshSchema()
        let suffix = String(name.dropFirst(2).prefix(8))
        let (owner, app, auditor) = ("owner12_\(suffix)", "app12_\(suffix)", "auditor12_\(suffix)")
        defer {
            try? PostgresEventStore.dropSchema(url: url, schema: name)
            for role in [app, auditor, owner] { _ = try? TestDatabase.execute("DROP OWNED BY \(role) CASCADE; DROP ROLE IF EXISTS \(role);") }
        }
        let schema = try PostgresSchema(name: name)
        let version11 = try #require(PostgresMigration.all.firstIndex { $0.template == PostgresMigration.version11.template })
        for step in 0...version11 {
            try TestDatabase.execute(schema.migrations[step] + "\nUPDATE \(schema.quoted).schema_version SET version = \(step + 1);")
        }
        for (stream, count) in [("user-1", 7), ("user-2", 30), ("user-1", 3), ("user-3", 260)] {
            try Self.appendThroughSQL(name, stream: stream, count: count)
        }
        try TestDatabase.execute(Self.rolesBeforeSchema13(try PostgresRoles.sql(schema: name, owner: owner, app: app, auditor: auditor)))
        // Schema 11's follower, which folds the tiles' roots in four statements, builds the
        // first 37 leaves: open tiles at levels 0 (5 hashes) and 4 (2 hashes).
        let signature = "\(schema.quoted).merkle_extend(integer)"
        let source = { (fragment: String) in
            try TestDatabase.execute("SELECT prosrc LIKE '%\(fragment)%' FROM pg_proc WHERE oid = '\(signature)'::regprocedure")
        }
        #expect(try source("FOR fold IN 1 .. 4") == "t", "schema 11's merkle_extend is installed")
        var built = 0
        #expect(try Self.eventually(37) {
            let step = Int(try TestDatabase.execute("SELECT added FROM \(name).merkle_extend(\(37 - built))") ?? "0") ?? 0
            built += step
            return step
        } == 37)
        #expect(try TestDatabase.execute("SELECT string_agg(level || '/' || idx || ':' || length(hashes) / 32, ' ' ORDER BY level, idx) FROM \(name).merkle_tiles")
                == "0/0:16 0/1:16 0/2:5 4/0:2")

        // The upgrade (by the superuser, as evtool init would run it).
        let store = try PostgresEventStore(url: url, schema: name)
        #expect(try TestDatabase.execute("SELECT version FROM \(name).schema_version") == String(PostgresSchema.currentVersion))
        #expect(try source("FOR fold IN 1 .. 4") == "f", "the upgrade replaced merkle_extend")
        #expect(try source("WITH grown AS") == "t", "schema 12's merkle_extend writes a level in one statement")
        #expect(try TestDatabase.execute("SELECT p.proowner::regrole::text || ' ' || p.prosecdef FROM pg_proc p WHERE p.oid = '\(signature)'::regprocedure")
                == "\(owner) true", "merkle_extend still runs as the store's owner")
        let callable = { (role: String) in try TestDatabase.execute("SELECT has_function_privilege('\(role)', '\(signature)', 'EXECUTE')") }
        #expect(try callable(app) == "t")
        #expect(try callable(auditor) == "f")
        #expect(try TestDatabase.execute("""
            SELECT count(*) FROM pg_proc p, aclexplode(p.proacl) a WHERE p.oid = '\(signature)'::regprocedure AND a.grantee = 0
            """) == "0", "PUBLIC must not be able to call merkle_extend")

        // The app carries on from the old function's open tiles, in uneven steps: one that
        // stays inside the open level-0 tile, one that fills it, one that fills level 4's
        // first tile (256 leaves) and opens level 8.
        let appURL = url.replacingOccurrences(of: "://postgres@", with: "://\(app)@")
        let asApp = try PostgresEventStore(url: appURL, schema: name, createIfMissing: false)
        var added = 0
        for limit in [1, 10, 230] { added += try asApp.extendMerkleTree(limit: limit).added }
        added += try Self.eventually(300 - 37 - added) { try asApp.extendMerkleTree(limit: 1_000).added }
        #expect(added == 300 - 37)
        #expect(try TestDatabase.execute("SELECT string_agg(level || '/' || idx || ':' || length(hashes) / 32, ' ' ORDER BY level, idx) FROM \(name).merkle_tiles WHERE level > 0")
                == "4/0:16 4/1:2 8/0:1")
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

    /// Each way of rewriting the open tile of level 4 (after 37 leaves: its 2 hashes, the roots
    /// of level-0 tiles 0 and 1) that the next extension would build on.
    static let openTileTampers = [
        ("the open level-4 tile removed", "DELETE FROM {{tiles}} WHERE level = 4 AND idx = 0;"),
        ("the open level-4 tile cut to one hash", "UPDATE {{tiles}} SET hashes = substring(hashes FROM 1 FOR 32) WHERE level = 4 AND idx = 0;"),
        ("the open level-4 tile lengthened by a hash", "UPDATE {{tiles}} SET hashes = hashes || '\\x\(String(repeating: "ab", count: 32))'::bytea WHERE level = 4 AND idx = 0;"),
    ]

    @Test("an extension that would build on a rewritten open tile (removed, cut or lengthened) stops with the store's corrupt error naming the tile, and writes nothing: the app's follower (merkle_put) and merkle_extend alike",
          arguments: 0..<3, [false, true])
    func openTileTamperStopsExtension(tamper: Int, inServer: Bool) throws {
        let (label, template) = (Self.openTileTampers[tamper].0 + (inServer ? ", merkle_extend" : ", the app's follower"), Self.openTileTampers[tamper].1)
        try TestDatabase.withStore { store, name in
            for n in 0..<37 { try store.append(ProposedEvent(type: "Searched", data: Data(#"{"n":\#(n)}"#.utf8)), to: "user-\(n % 3)", expectedVersion: .any) }
            #expect(try Self.eventually(37) { try store.extendMerkleTree(limit: 1_000).added } == 37)
            let tiles = "\(name).merkle_tiles"
            try TestDatabase.execute("ALTER TABLE \(tiles) DISABLE TRIGGER merkle_tiles_append_only; "
                                     + template.replacingOccurrences(of: "{{tiles}}", with: tiles)
                                     + " ALTER TABLE \(tiles) ENABLE TRIGGER merkle_tiles_append_only;")
            let before = try TestDatabase.execute("SELECT string_agg(level || '/' || idx || ':' || encode(hashes, 'hex'), ' ' ORDER BY level, idx) FROM \(tiles)")
            // 11 more events fill the open level-0 tile, whose root goes into the open level-4 tile.
            // One by one for merkle_extend; in one batched append for the app's follower (it hashes
            // a block its handle appended).
            if inServer {
                for n in 37..<48 { try store.append(ProposedEvent(type: "Searched", data: Data(#"{"n":\#(n)}"#.utf8)), to: "user-\(n % 3)", expectedVersion: .any) }
            } else {
                try store.append((37..<48).map { ProposedEvent(type: "Searched", data: Data(#"{"n":\#($0)}"#.utf8)) }, to: "user-9", expectedVersion: .any)
            }
            // First wait until no running transaction can precede any of the 48 events (other tests'
            // transactions on the shared server hold the horizon back): otherwise one extension call
            // could take part of them, commit it, and only the next meet the tampered tile.
            #expect(try Self.eventually(48, summing: false) { try store.readAll(after: 0, limit: 1_000).count } == 48)
            // The events may wait behind other tests' transactions: call until the extension takes them.
            let deadline = Date().addingTimeInterval(30)
            var reason: String?
            while reason == nil, Date() < deadline {
                do {
                    let added = inServer ? Int(try TestDatabase.execute("SELECT added FROM \(name).merkle_extend(1000)") ?? "0") ?? 0
                        : try store.extendMerkleTree(limit: 1_000).added
                    if added > 0 { Issue.record("\(label): extended by \(added)"); return }
                    Thread.sleep(forTimeInterval: 0.05)
                } catch let EventStoreError.corrupt(text) where !inServer {
                    reason = text
                } catch where inServer {
                    reason = "\(error)"
                }
            }
            let text = try #require(reason, "\(label): the extension never took the events")
            #expect(text.contains("lacks its partial tile (level 4, index 0) of 2 hashes"), "\(label): \(text)")
            #expect(text.contains("(SQLSTATE XX001)") == inServer, "\(label): \(text)")
            #expect(try store.merkleTreeState().size == 37, "\(label)")
            #expect(try TestDatabase.execute("SELECT string_agg(level || '/' || idx || ':' || encode(hashes, 'hex'), ' ' ORDER BY level, idx) FROM \(tiles)") == before,
                    "\(label): nothing of the extension is kept")
        }
    }

    @Test("merkle_extend takes only the events before one whose transaction is still running (held back, and said so), never one after it, and the rest once it commits")
    func heldBackEventsWaitedFor() throws {
        try TestDatabase.withStore { store, name in
            for n in 0..<20 { try store.append(ProposedEvent(type: "Searched", data: Data(#"{"n":\#(n)}"#.utf8)), to: "user-\(n % 3)", expectedVersion: .any) }
            // An append left open: its position is taken, its row not committed yet; later appends commit.
            let held = try PostgresConnection(conninfo: try TestDatabase.url())
            _ = try held.execute("BEGIN")
            let heldPosition = try held.query(PostgresOneEventAppendTests.call(name, "held"), types: [], binds: PostgresBinds()).int64(row: 0, column: 2)
            for n in 20..<30 { try store.append(ProposedEvent(type: "Searched", data: Data(#"{"n":\#(n)}"#.utf8)), to: "user-\(n % 3)", expectedVersion: .any) }
            let caller = try PostgresConnection(conninfo: try TestDatabase.url())
            var sawHeldBack = false
            // The 20 events before it come (other tests' transactions may hold them back a while);
            // none at or after the open append's position, however often it is called.
            let deadline = Date().addingTimeInterval(30)
            var state = (size: Int64(0), last: Int64(0))
            while state.size < 20, Date() < deadline {
                let result = try caller.query("SELECT tree_size, last_position, held_back FROM \(name).merkle_extend(1000)", types: [], binds: PostgresBinds())
                state = (try result.int64(row: 0, column: 0), try result.int64(row: 0, column: 1))
                if try result.bool(row: 0, column: 2) { sawHeldBack = true }
                #expect(state.last < heldPosition, "the tree took position \(state.last), at or after the open append's \(heldPosition)")
                if state.size < 20 { Thread.sleep(forTimeInterval: 0.05) }
            }
            #expect(state.size == 20)
            for _ in 0..<3 {
                let result = try caller.query("SELECT tree_size, last_position, held_back FROM \(name).merkle_extend(1000)", types: [], binds: PostgresBinds())
                #expect(try result.int64(row: 0, column: 0) == 20)
                #expect(try result.bool(row: 0, column: 2), "the committed events after the open append are said to be held back")
            }
            #expect(sawHeldBack)
            _ = try held.execute("COMMIT")
            #expect(try Self.eventually(31, summing: false) {
                _ = try store.extendMerkleTree(limit: 1_000)
                return Int(try store.merkleTreeState().size)
            } == 31)
            #expect(try KeptTreeCheck.verify(store) == 31)
        }
    }
}
