import EventLog
import Foundation
@testable import StorePostgres
import Testing

/// The schema's migrations are frozen once shipped, and a store made by every earlier
/// schema version upgrades on open and verifies.
@Suite("PostgreSQL: frozen migrations and upgrades from every earlier version")
struct PostgresMigrationTests {
    /// SHA-256 of each migration's template text. A shipped migration must never change: a
    /// change to the schema or the append function is a new migration at the end (and a new
    /// line here).
    static let pinned = [
        "e365396e1764de75014161c1a85245a4374da060aae4bb2ba7b4e0a66469e1c1",
        "7695d8edbd4983d2d492f2f1040747180be2aaf41893875325f182103c35d959",
        "85dce9f05c4cb745ae5f27ff5dd150e460327624172b05dbd723d9947772bff7",
        "787b79c802c9967aaa0e15a1cdf5e6859c22f44b4abd1937cf5bb95821cefa8f",
        "94ce37c57f55fe7e9d08f30513e885f18f1fdae559f4606a4d36315627496187",
        "645e8846a6bc3ace248eed776d648bcb933fb67f0c546111caa3e17c805691db",
        "89efe98ca1d02ec7f3f1bb3ad93c5957b49d502fe532a9e4a7272d93e8d1e702",
        "36561fe84b759c6b891e9811842e6753d58a59f02705f45bca5ff5d55c6be9ff",
        "b0053b39ec50e4461061be0e9afba8b23b2aac3708f57af124ad9e4f76bc5cad",
        "e9652d047d6786598eebbf939bbc1b77256829537cde46c109ad2a587d0052c9",
        "e3dfbf79f39ed02f87e263888eb3441755cc855e92ece000ca8891e76200a187",
        "cad6747dc0e40f004deec64242289fc2b8122fb9dd095ada15d5bec6bfa2b3be",
        "044cdb17f3108b74dd9198281f02e9600692d5798cf6ba6bae8aa0816d297ead",
        "adc03b88f024ae061236c6db15ab0d5b3510339e235a90ac0f01e5bdf2f50f82",
        "763114badc85e359d97e960bd47fd5e37bcd71bf2493453810d9fba1941d791e",
        "7b1b9a2acb4a55c07aeb5eb705d20050e3078a408b66861fae11e281baa8f975",
        "51544427d90d20e782aebe2f809907b92b23370b07031bc81ae0a3fa67733200",
        "d674960f52ac373f5e633d3d3d8ef368649773be6b5c364344be79d1d4f43475",
        "67704e6e7b1b6f8be756e114274f9246b420280188ab3841154c00cc9fea8ce8",
    ]

    /// SHA-256 of the SQL that release schema versions 1–3 ran for the default schema
    /// `evtool`, produced by the live template they were built from before it was frozen.
    static let shippedForEvtool = [
        "2eeb4fc405fa4ba8ea79594fd04d9c6daad03b6a01389dd195638ace2fcb56cf",
        "2a9abcdddbcc67ca820cbb7d330ef9f1c261165232f41953b4b27f44aa0f6b24",
        "6cbbdb631b7af784f6ea888d88123790c1d895c7c10fc6df5f79c2fb413fb296",
    ]

    static func sha256(_ text: String) -> String { SHA256Hasher.digest(Data(text.utf8)).hexString }

    @Test("each migration's text is pinned; versions 1–3 are byte for byte what the releases ran")
    func pinnedText() throws {
        let all = PostgresMigration.all
        #expect(all.map(\.version) == Array(1...all.count), "migrations are numbered 1, 2, 3 … in order")
        #expect(all.map { Self.sha256($0.template) } == Self.pinned)
        let evtool = try PostgresSchema(name: "evtool")
        #expect(evtool.migrations.prefix(3).map(Self.sha256) == Self.shippedForEvtool)
        // Only the schema name (and the lock key derived from it) is substituted.
        for migration in all {
            let rendered = migration.sql(schema: evtool)
            #expect(!rendered.contains("{{"), "migration \(migration.version) has a placeholder left: \(migration.name)")
        }
    }

    /// Events for a store at `version`, through that version's own append function: four
    /// events in two streams, two of them in a multi-stream call.
    static func appendWithOldFunction(_ name: String) throws {
        try TestDatabase.execute("""
            SELECT * FROM \(name).append(ARRAY['user-1'], ARRAY[1], ARRAY[0::bigint], ARRAY[2],
                ARRAY[gen_random_uuid(), gen_random_uuid()], ARRAY['Searched', 'Favorited'],
                ARRAY['{"keyword":"jazz"}'::json, '{"listingId":"L1"}'], ARRAY['{"by":"old"}'::json, '{}'],
                ARRAY[NULL, NULL]::timestamptz[])
            """)
        // A call of its own: the function refuses to run in a transaction that already wrote.
        try TestDatabase.execute("""
            SELECT * FROM \(name).append(ARRAY['user-2', 'user-1'], ARRAY[1, 3], ARRAY[0, 2]::bigint[], ARRAY[1, 1],
                ARRAY[gen_random_uuid(), gen_random_uuid()], ARRAY['Searched', 'Unfavorited'],
                ARRAY['{"keyword":"opéra ✓"}'::json, '{"listingId":"L1"}'], ARRAY['{}'::json, '{}'],
                ARRAY['2026-01-02T03:04:05.123456Z', NULL]::timestamptz[])
            """)
    }

    @Test("a version-4 store with least-privilege roles upgrades: append_one can be called by exactly the roles that can call append")
    func upgradeKeepsAppendCallers() throws {
        let url = try TestDatabase.url()
        let name = TestDatabase.freshSchema()
        let suffix = String(name.dropFirst(2).prefix(8))
        let (app, auditor) = ("app5_\(suffix)", "auditor5_\(suffix)")
        defer {
            try? PostgresEventStore.dropSchema(url: url, schema: name)
            for role in [app, auditor] { _ = try? TestDatabase.execute("DROP OWNED BY \(role) CASCADE; DROP ROLE IF EXISTS \(role);") }
        }
        let schema = try PostgresSchema(name: name)
        for step in 0..<4 {
            try TestDatabase.execute(schema.migrations[step] + "\nUPDATE \(schema.quoted).schema_version SET version = \(step + 1);")
        }
        // What version 4's roles script granted on functions: EXECUTE on append to the app only.
        try TestDatabase.execute("""
            CREATE ROLE \(app) LOGIN; CREATE ROLE \(auditor) LOGIN;
            REVOKE ALL ON ALL FUNCTIONS IN SCHEMA \(schema.quoted) FROM PUBLIC;
            GRANT USAGE ON SCHEMA \(schema.quoted) TO \(app), \(auditor);
            GRANT EXECUTE ON FUNCTION \(schema.quoted).append(text[], integer[], bigint[], integer[], uuid[], text[], json[], json[], timestamptz[]) TO \(app);
            """)
        _ = try PostgresEventStore(url: url, schema: name)
        let signature = "\(schema.quoted).append_one(text, integer, bigint, uuid, text, json, json, timestamptz)"
        #expect(try TestDatabase.execute("SELECT has_function_privilege('\(app)', '\(signature)', 'EXECUTE')") == "t")
        #expect(try TestDatabase.execute("SELECT has_function_privilege('\(auditor)', '\(signature)', 'EXECUTE')") == "f")
        #expect(try TestDatabase.execute("""
            SELECT count(*) FROM pg_proc p, aclexplode(p.proacl) a WHERE p.oid = '\(signature)'::regprocedure AND a.grantee = 0
            """) == "0", "PUBLIC must not be able to call append_one")
        // A store whose functions PUBLIC may call (no roles set up) keeps that for append_one.
        let unrestricted = TestDatabase.freshSchema()
        defer { try? PostgresEventStore.dropSchema(url: url, schema: unrestricted) }
        _ = try PostgresEventStore(url: url, schema: unrestricted)
        #expect(try TestDatabase.execute("SELECT has_function_privilege('\(auditor)', '\"\(unrestricted)\".append_one(text, integer, bigint, uuid, text, json, json, timestamptz)', 'EXECUTE')") == "t")
    }

    @Test("an upgrade to schema 14 gives every function of the schema to the schema's owner: a SECURITY DEFINER function a superuser's upgrade made no longer runs as the superuser")
    func upgradeGivesFunctionsToTheSchemaOwner() throws {
        let url = try TestDatabase.url()
        let name = TestDatabase.freshSchema()
        let owner = "owner14_\(String(name.dropFirst(2).prefix(8)))"
        defer {
            try? PostgresEventStore.dropSchema(url: url, schema: name)
            _ = try? TestDatabase.execute("DROP OWNED BY \(owner) CASCADE; DROP ROLE IF EXISTS \(owner);")
        }
        let schema = try PostgresSchema(name: name)
        for step in 0..<13 {
            try TestDatabase.execute(schema.migrations[step] + "\nUPDATE \(schema.quoted).schema_version SET version = \(step + 1);")
        }
        // A store whose schema and tables belong to an owner role (as evtool roles leaves them)
        // and whose functions a superuser's upgrades made.
        try TestDatabase.execute("""
            CREATE ROLE \(owner); ALTER SCHEMA \(schema.quoted) OWNER TO \(owner);
            DO $$
            DECLARE object record;
            BEGIN
                FOR object IN SELECT c.oid::regclass AS name, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                              WHERE n.nspname = '\(name)' AND c.relkind IN ('r', 'S', 'p') LOOP
                    EXECUTE format('ALTER %s %s OWNER TO \(owner)', CASE object.relkind WHEN 'S' THEN 'SEQUENCE' ELSE 'TABLE' END, object.name);
                END LOOP;
            END $$;
            """)
        let notOwned = """
            SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
            WHERE n.nspname = '\(name)' AND p.proowner <> n.nspowner
            """
        #expect(try TestDatabase.execute(notOwned) != "0")
        _ = try PostgresEventStore(url: url, schema: name)
        #expect(try TestDatabase.execute("SELECT version FROM \(schema.quoted).schema_version") == String(PostgresSchema.currentVersion))
        #expect(try TestDatabase.execute(notOwned) == "0")
        #expect(try TestDatabase.execute("SELECT pg_get_userbyid(proowner) FROM pg_proc WHERE oid = '\(schema.quoted).append_one(text, integer, bigint, uuid, text, json, json, timestamptz)'::regprocedure") == owner)
        #expect(try TestDatabase.execute("SELECT pg_get_userbyid(proowner) FROM pg_proc WHERE oid = '\(schema.quoted).merkle_extend(integer)'::regprocedure") == owner)
        // The functions, now running as the owner, still write the log.
        let store = try PostgresEventStore(url: url, schema: name)
        #expect(try store.append(event(), to: "user-1", expectedVersion: .noStream).streamVersion == 1)
        #expect(try store.append([event(), event()], to: "user-1", expectedVersion: .exactly(1)).streamVersion == 3)
        var verifier = try LogVerifier(store: store)
        #expect(try verifier.verifyLog().events == 3)
    }

    @Test("one-event appends (append_one) and batched appends (append) chain the same hashes: the log verifies and agrees with the SQL chain")
    func appendOneChainsLikeAppend() throws {
        try TestDatabase.withStore { store, name in
            try store.append(event("Searched", #"{"keyword":"jazz"}"#), to: "user-1", expectedVersion: .noStream)
            try store.append([event("Favorited", #"{"listingId":"L1"}"#), event("Unfavorited", #"{"listingId":"L1"}"#)], to: "user-1", expectedVersion: .exactly(1))
            try store.append(event("Searched", #"{"keyword":"opéra ✓"}"#), to: "user-1", expectedVersion: .exactly(3))
            try store.append(event("Searched", "{}"), to: "user-2", expectedVersion: .any)
            #expect(throws: EventStoreError.wrongExpectedVersion(stream: "user-1", expected: .exactly(9), actual: 4)) {
                try store.append(event(), to: "user-1", expectedVersion: .exactly(9))
            }
            #expect(throws: EventStoreError.wrongExpectedVersion(stream: "user-3", expected: .streamExists, actual: 0)) {
                try store.append(event(), to: "user-3", expectedVersion: .streamExists)
            }
            var verifier = try LogVerifier(store: store)
            #expect(try verifier.verifyLog().events == 5)
            // The heads match the last event of each stream.
            #expect(try TestDatabase.execute("""
                SELECT count(*) FROM \(name).streams s JOIN \(name).events e ON e.stream_id = s.stream_id AND e.version = s.version
                WHERE e.hash = s.hash AND e.position = s.position
                """) == "2")
        }
    }

    @Test("a store made at every earlier version (its own migrations, its own append function) upgrades on open and verifies", arguments: 1..<PostgresSchema.currentVersion)
    func upgradeFromEveryVersion(version: Int) throws {
        let url = try TestDatabase.url()
        let name = TestDatabase.freshSchema()
        defer { try? PostgresEventStore.dropSchema(url: url, schema: name) }
        let schema = try PostgresSchema(name: name)
        for step in 0..<version {
            try TestDatabase.execute(schema.migrations[step] + "\nUPDATE \(schema.quoted).schema_version SET version = \(step + 1);")
        }
        try Self.appendWithOldFunction(name)
        #expect(try TestDatabase.execute("SELECT count(*) FROM \(name).events") == "4")

        let store = try PostgresEventStore(url: url, schema: name)
        #expect(try TestDatabase.execute("SELECT version FROM \(name).schema_version") == String(PostgresSchema.currentVersion))
        var verifier = try LogVerifier(store: store)
        #expect(try verifier.verifyLog().events == 4)
        // The heads the upgrade recorded are where appends carry on from.
        #expect(try TestDatabase.execute("SELECT string_agg(stream_id || ':' || version || ':' || position, ',' ORDER BY stream_id) FROM \(name).streams")
                == "user-1:3:4,user-2:1:3")
        try store.append(event(), to: "user-1", expectedVersion: .exactly(3))
        try store.append(event(), to: "user-3", expectedVersion: .noStream)
        #expect(throws: EventStoreError.wrongExpectedVersion(stream: "user-2", expected: .noStream, actual: 1)) {
            try store.append(event(), to: "user-2", expectedVersion: .noStream)
        }
        var again = try LogVerifier(store: store)
        let report = try again.verifyLog()
        #expect(report.events == 6 && report.streams == 3)
        // The kept Merkle tree (schema 6) is extended over the events from before the upgrade.
        #expect(try KeptTreeCheck.extendAndVerify(store) == 6)
        #expect(try LogTree.root(of: store, size: 6) == LogTree.streamedRoot(of: store, size: 6))
        // Opening it again changes nothing.
        _ = try PostgresEventStore(url: url, schema: name)
        #expect(try TestDatabase.execute("SELECT count(*) FROM \(name).events") == "6")
    }
}
