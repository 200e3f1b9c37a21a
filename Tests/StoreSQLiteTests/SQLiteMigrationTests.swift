import EventLog
import Foundation
@testable import StoreSQLite
import TestSupport
import Testing

/// The file's schema steps are frozen once shipped, and a file made by every earlier
/// schema version upgrades on open and verifies.
@Suite("SQLite: frozen schema steps and upgrades from every earlier version")
struct SQLiteMigrationTests {
    /// SHA-256 of each step's text, then of the append-only triggers step 3 adds. A shipped
    /// step must never change: a change is a new step at the end (and a new line here).
    static let pinned = [
        "9caecb040063e8ba42335957b5cdc93ce46f95ff74b3260d826cda6cf91ee22c",
        "d394e4a5966c98bfff69f98899dcea447b2a4923165745d33803f0cfb8a979b8",
        "4fd72fead1f0efa8091795524c2e6e8afc198c837ef7e5cbfd81237209cd4cea",
        "663de1a20185e18470bb0c5646894a044a451e8fbe44656911567028dc3971b8",
        "fa79ed5462f666ac90e57ceadce0db61d5d4a79737604c3ddb25b78f963d2d93",
        "57bf839fc1b420639b7c0950373c325b6cce6d2f95643b7ac80855cacba7ee53",
        "6d9fcb61c183d30891ad1c11782320dd7056dffddf0cf20c75ee644dd86ec272",
        "753719f3418a7b8fd6cf388102be3f9217304e8f3f831d041c649e6a03541405",
    ]
    static let pinnedTriggers = "1c7849bd4c8611384d57bd2b604a61beb09c2d123d6b8b529e0353bd6cc5075b"

    static func sha256(_ text: String) -> String { SHA256Hasher.digest(Data(text.utf8)).hexString }

    @Test("each step's text is pinned")
    func pinnedText() {
        #expect(SQLiteSchema.steps.map(Self.sha256) == Self.pinned)
        #expect(Self.sha256(SQLiteSchema.appendOnlyTriggers) == Self.pinnedTriggers)
    }

    /// A file as schema `version` wrote it: its steps (and, from version 3, the triggers and
    /// hashes an upgrade gives it), with three events in two streams.
    static func makeFile(_ path: String, version: Int) throws {
        var script = ""
        for step in 0..<version {
            script += SQLiteSchema.steps[step] + "\n"
            if step == 2 { script += SQLiteSchema.appendOnlyTriggers + "\n" }
        }
        let hasher = EventChain.Hasher()
        var heads: [String: [UInt8]] = [:]
        let rows: [(stream: String, version: Int64, type: String, data: String)] = [
            ("user-1", 1, "Searched", #"{"keyword":"jazz"}"#), ("user-2", 1, "Searched", #"{"keyword":"opéra ✓"}"#),
            ("user-1", 2, "Favorited", #"{"listingId":"L1"}"#),
        ]
        for (index, row) in rows.enumerated() {
            let id = UUID()
            let time = Timestamp.format(Timestamp.date(microseconds: 1_796_000_000_000_000 + Int64(index) * 1_000_001))
            let hash = hasher.hash(previous: heads[row.stream] ?? EventChain.genesis, stream: row.stream, version: row.version, id: id,
                                   type: row.type, recordedAt: time, data: Data(row.data.utf8), metadata: Data("{}".utf8))
            heads[row.stream] = hash
            let hashColumn = version >= 3 ? ", hash" : ""
            let hashValue = version >= 3 ? ", '\(hash.hexString)'" : ""
            script += """
                INSERT INTO events (stream_id, version, event_id, type, data, metadata, recorded_at\(hashColumn))
                VALUES ('\(row.stream)', \(row.version), '\(id.lowercaseString)', '\(row.type)', '\(row.data)', '{}', '\(time)'\(hashValue));

                """
        }
        script += """
            PRAGMA application_id = \(SQLiteSchema.applicationID);
            PRAGMA user_version = \(version);
            INSERT OR REPLACE INTO evtool_meta (key, value) VALUES ('application', 'evtool event log'), ('schema_version', '\(version)');
            """
        let made = try Processes.run(Processes.sqlite3, [path, script])
        #expect(made.status == 0, "\(made.errors)")
    }

    @Test("a file made at every earlier version upgrades on open and verifies", arguments: 1..<SQLiteSchema.currentVersion)
    func upgradeFromEveryVersion(version: Int) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = directory.path + "/events.sqlite"
        try Self.makeFile(path, version: version)
        let store = try SQLiteEventStore(path: path)
        #expect(try store.schemaVersion() == SQLiteSchema.currentVersion)
        var verifier = try LogVerifier(store: store)
        #expect(try verifier.verifyLog().events == 3)
        try store.append(ProposedEvent(type: "Searched", data: Data("{}".utf8)), to: "user-1", expectedVersion: .exactly(2))
        var again = try LogVerifier(store: store)
        #expect(try again.verifyLog().events == 4)
        // The kept Merkle tree (schema 6; tiles since 7) starts empty and is extended over the events from before the upgrade.
        #expect(try store.merkleTreeState().size == 0)
        #expect(try KeptTreeCheck.extendAndVerify(store) == 4)
        #expect(try LogTree.root(of: store, size: 4) == LogTree.streamedRoot(of: store, size: 4))
        // What the newest step added holds on the upgraded file too.
        let refused = try Processes.run(Processes.sqlite3, [path, """
            INSERT INTO events (position, stream_id, version, event_id, type, data, metadata, recorded_at, hash)
            VALUES (0, 'forged', 1, 'x', 'T', '{}', '{}', '', '');
            """])
        #expect(refused.status != 0 && refused.errors.contains("a row outside them is refused"), "\(refused)")
    }

    @Test("a schema-6 file (today's release) upgrades to schema 8 and can archive: the rows below the boundary go, verify carries the heads over, appends continue")
    func upgradeFromSixThenArchive() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = directory.path + "/events.sqlite"
        try Self.makeFile(path, version: 6)
        let store = try SQLiteEventStore(path: path)
        #expect(try store.schemaVersion() == 8)
        #expect(try store.archives().isEmpty)
        // Before any archive, DELETE is refused as before.
        let refused = try Processes.run(Processes.sqlite3, [path, "DELETE FROM events WHERE position = 1;"])
        #expect(refused.status != 0 && refused.errors.contains("events are append-only"), "\(refused)")
        var verifier = try LogVerifier(store: store)
        let report = try verifier.verifyLog()
        #expect(try KeptTreeCheck.extendAndVerify(store) == 3)
        // Archive positions 1 and 2 (user-1 v1, user-2 v1, the whole of user-2).
        var heads = StreamHeads()
        for event in try store.readAll(after: 0, limit: 2) {
            heads[event.streamID] = StreamHeads.Head(version: event.version, chainHash: [UInt8](hexadecimal: event.hash)!)
        }
        let boundary = ArchiveBoundary(number: 1, position: 3, events: 2, fileEvents: 2, fileSHA256: String(repeating: "0", count: 64), fileName: "a",
                                       headsSHA256: heads.digest().hexString, treeRoot: try LogTree.root(of: store, size: 2).hexString, archivedAt: "t")
        #expect(try store.recordArchive(boundary, heads: heads, states: [:]) == 2)
        #expect(try store.readAll(after: 0, limit: 10).map(\.position) == [3])
        #expect(try store.version(of: "user-2") == 1)
        var carried = try LogVerifier(store: store)
        carried.carryOver(boundary, heads: try store.archivedHeads())
        #expect(try carried.verifyLog().events == report.events)
        // user-2, whose events are all archived, continues at version 2 with its chain.
        try store.append(ProposedEvent(type: "Searched", data: Data("{}".utf8)), to: "user-2", expectedVersion: .exactly(1))
        var after = try LogVerifier(store: store)
        after.carryOver(boundary, heads: try store.archivedHeads())
        #expect(try after.verifyLog().events == 4)
        #expect(try KeptTreeCheck.extendAndVerify(store) == 4)
        // A second archive that does not take exactly the rows it names changes nothing.
        let wrong = ArchiveBoundary(number: 2, position: 4, events: 4, fileEvents: 2, fileSHA256: "", fileName: "b", headsSHA256: "", treeRoot: "", archivedAt: "t")
        #expect(throws: EventStoreError.self) { try store.recordArchive(wrong, heads: heads, states: [:]) }
        #expect(try store.archives().count == 1 && store.readAll(after: 0, limit: 10).count == 2)
        // A row above the boundary still cannot be deleted.
        let kept = try Processes.run(Processes.sqlite3, [path, "DELETE FROM events WHERE position = 3;"])
        #expect(kept.status != 0 && kept.errors.contains("events are append-only"), "\(kept)")
    }
}
