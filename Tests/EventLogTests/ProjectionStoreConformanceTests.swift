import EventLog
import Foundation
import Synchronization
import Testing

/// The behaviour every projection store must have (views and their checkpoints, beside the
/// log). Each test runs, unchanged, against every ``ViewStoreKind``.
@Suite("Projection store conformance")
struct ProjectionStoreConformanceTests {
    static func json(_ text: String) -> Data { Data(text.utf8) }

    /// Every document of one generation, by key, paging `limit` at a time.
    static func all(_ store: any ProjectionStore, _ projection: String, generation: Int, limit: Int = 500) throws -> [(key: String, document: Data)] {
        var rows: [(key: String, document: Data)] = []
        var after = ""
        while true {
            let page = try store.documents(of: projection, generation: generation, after: after, limit: limit)
            #expect(page.count <= limit)
            rows += page
            guard let last = page.last else { return rows }
            after = last.key
        }
    }

    // MARK: - Generations

    @Test("a new generation starts empty, inactive, at position 0, numbered after the view's last", arguments: ViewStoreKind.underTest)
    func startGeneration(kind: ViewStoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let store = subject.store
        #expect(try store.projectionStatuses().isEmpty)
        #expect(try store.startGeneration(of: "favorites", version: 3)
                == ProjectionStatus(name: "favorites", generation: 1, version: 3, position: 0, isActive: false))
        #expect(try store.startGeneration(of: "favorites", version: 4).generation == 2)
        // Numbers are per view.
        #expect(try store.startGeneration(of: "details", version: 1).generation == 1)
        #expect(try store.projectionStatuses() == [
            ProjectionStatus(name: "details", generation: 1, version: 1, position: 0, isActive: false),
            ProjectionStatus(name: "favorites", generation: 1, version: 3, position: 0, isActive: false),
            ProjectionStatus(name: "favorites", generation: 2, version: 4, position: 0, isActive: false),
        ])
        #expect(try Self.all(store, "favorites", generation: 2).isEmpty)
        #expect(try store.documents(of: "favorites", generation: 2, keys: ["u1"]).isEmpty)
    }

    // MARK: - Commits

    @Test("a commit writes documents and moves the checkpoint; documents read back byte for byte", arguments: ViewStoreKind.underTest)
    func documentsReadBackExactly(kind: ViewStoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let store = subject.store
        _ = try store.startGeneration(of: "details", version: 1)
        // Text a JSON parser would normalize: spacing, key order, escapes, number spellings,
        // non-ASCII, and a document of 200 KB.
        let large = "{\"items\":[" + (0..<10_000).map { "\"item-\($0)\"" }.joined(separator: ",") + "]}"
        let documents: [String: Data] = [
            "spaced": Self.json(" { \"b\" : 1 ,\n\t\"a\" : [ 1 , 2 ] } "),
            "order": Self.json(#"{"z":1,"a":2,"z2":{"y":null,"b":true}}"#),
            "escapes": Self.json(#"{"s":"line\nbreak \"quoted\" \/ \u00e9 \ud83c\udfb5 \\"}"#),
            "numbers": Self.json(#"{"n":[1.0,1e400,-0,0.1000,12345678901234567890123]}"#),
            "unicode": Self.json(#"{"name":"Café Tacvba – Zürich 東京 🎶"}"#),
            "empty": Self.json("{}"),
            "large": Self.json(large),
            "ü-3": Self.json("[]"),
        ]
        try store.commit(ViewChanges(projection: "details", generation: 1, documents: documents, fromPosition: 0, toPosition: 42))
        #expect(try store.projectionStatuses() == [ProjectionStatus(name: "details", generation: 1, version: 1, position: 42, isActive: false)])
        // By key (missing keys left out) and by page: the same bytes as written.
        let found = try store.documents(of: "details", generation: 1, keys: Array(documents.keys) + ["missing"])
        #expect(found == documents)
        #expect(try store.documents(of: "details", generation: 1, keys: []).isEmpty)
        let paged = try Self.all(store, "details", generation: 1, limit: 3)
        #expect(Dictionary(uniqueKeysWithValues: paged.map { ($0.key, $0.document) }) == documents)
        // Another handle (another process) reads the same.
        let other = try subject.open()
        #expect(try other.documents(of: "details", generation: 1, keys: Array(documents.keys)) == documents)
    }

    @Test("a stale checkpoint is a conflict and applies nothing, not even an activation", arguments: ViewStoreKind.underTest)
    func staleCheckpoint(kind: ViewStoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let store = subject.store
        _ = try store.startGeneration(of: "favorites", version: 1)
        let before: [String: Data] = ["u1": Self.json(#"{"ids":["a"]}"#), "u2": Self.json(#"{"ids":["b"]}"#)]
        try store.commit(ViewChanges(projection: "favorites", generation: 1, documents: before, fromPosition: 0, toPosition: 10))
        for stale: Int64 in [0, 5, 11] {
            #expect(throws: ProjectionStoreError.checkpointMoved(projection: "favorites", generation: 1, expected: stale, actual: 10)) {
                try store.commit(ViewChanges(projection: "favorites", generation: 1,
                                             documents: ["u1": nil, "u2": Self.json("{}"), "u3": Self.json("{}")],
                                             fromPosition: stale, toPosition: 20, activate: true))
            }
        }
        #expect(try store.projectionStatuses() == [ProjectionStatus(name: "favorites", generation: 1, version: 1, position: 10, isActive: false)])
        #expect(try store.documents(of: "favorites", generation: 1, keys: ["u1", "u2", "u3"]) == before)
        // From the checkpoint it is at, the same commit goes through.
        try store.commit(ViewChanges(projection: "favorites", generation: 1, documents: ["u1": nil, "u3": Self.json("{}")],
                                     fromPosition: 10, toPosition: 20))
        #expect(try store.documents(of: "favorites", generation: 1, keys: ["u1", "u2", "u3"])
                == ["u2": Self.json(#"{"ids":["b"]}"#), "u3": Self.json("{}")])
        #expect(try store.projectionStatuses().map(\.position) == [20])
    }

    @Test("a commit to a generation that does not exist is a conflict and writes nothing", arguments: ViewStoreKind.underTest)
    func missingGeneration(kind: ViewStoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let store = subject.store
        #expect(throws: ProjectionStoreError.checkpointMoved(projection: "recent", generation: 1, expected: 0, actual: nil)) {
            try store.commit(ViewChanges(projection: "recent", generation: 1, documents: ["u1": Self.json("{}")], fromPosition: 0, toPosition: 5))
        }
        #expect(try store.projectionStatuses().isEmpty)
        #expect(try Self.all(store, "recent", generation: 1).isEmpty)
    }

    @Test("two handles committing from the same checkpoint: exactly one wins", arguments: ViewStoreKind.underTest)
    func racingCommits(kind: ViewStoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        _ = try subject.store.startGeneration(of: "recent", version: 1)
        let handles = try (0..<6).map { _ in try subject.open() }
        let outcomes = Mutex<[String]>([])
        let threads = handles.enumerated().map { index, handle in
            Thread {
                let outcome: String
                do {
                    try handle.commit(ViewChanges(projection: "recent", generation: 1, documents: ["k": Self.json("[\(index)]")],
                                                  fromPosition: 0, toPosition: 5))
                    outcome = "won \(index)"
                } catch ProjectionStoreError.checkpointMoved(_, _, expected: 0, actual: 5) {
                    outcome = "moved"
                } catch {
                    outcome = "failed: \(error)"
                }
                outcomes.withLock { $0.append(outcome) }
            }
        }
        threads.forEach { $0.start() }
        while outcomes.withLock({ $0.count }) < threads.count { Thread.sleep(forTimeInterval: 0.01) }
        let all = outcomes.withLock { $0 }
        let winners = all.filter { $0.hasPrefix("won ") }
        #expect(winners.count == 1, "\(all)")
        #expect(all.filter { $0 == "moved" }.count == 5, "\(all)")
        // The winner's document is the one stored.
        let winner = try #require(winners.first.flatMap { Int($0.dropFirst(4)) })
        #expect(try subject.store.documents(of: "recent", generation: 1, keys: ["k"]) == ["k": Self.json("[\(winner)]")])
    }

    @Test("a commit in parts applies every part, in one transaction", arguments: ViewStoreKind.underTest)
    func commitInParts(kind: ViewStoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let store = subject.store
        _ = try store.startGeneration(of: "viewed", version: 1)
        let keys = (0..<1_500).map { "user-\($0)" }
        try store.commit(ViewChanges(projection: "viewed", generation: 1, fromPosition: 0, toPosition: 1_500) { body in
            for start in stride(from: 0, to: keys.count, by: 500) {
                try body(keys[start..<start + 500].map { (key: $0, document: Self.json("[\"\($0)\"]")) })
            }
        })
        let stored = try Self.all(store, "viewed", generation: 1)
        #expect(stored.count == 1_500)
        #expect(stored.allSatisfy { $0.document == Self.json("[\"\($0.key)\"]") })

        // A part that fails rolls back the parts before it and leaves the checkpoint.
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try store.commit(ViewChanges(projection: "viewed", generation: 1, fromPosition: 1_500, toPosition: 1_600) { body in
                try body(keys.prefix(10).map { (key: $0, document: nil) })
                try body([(key: "new", document: Self.json("{}"))])
                throw Stop()
            })
        }
        #expect(try Self.all(store, "viewed", generation: 1).count == 1_500)
        #expect(try store.documents(of: "viewed", generation: 1, keys: ["new"]).isEmpty)
        #expect(try store.projectionStatuses().map(\.position) == [1_500])
    }

    // MARK: - Deleting and paging

    @Test("a nil document deletes its key; deleting a missing key is no error", arguments: ViewStoreKind.underTest)
    func deletingDocuments(kind: ViewStoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let store = subject.store
        _ = try store.startGeneration(of: "favorites", version: 1)
        try store.commit(ViewChanges(projection: "favorites", generation: 1,
                                     documents: ["a": Self.json("1"), "b": Self.json("2"), "c": Self.json("3")], fromPosition: 0, toPosition: 3))
        try store.commit(ViewChanges(projection: "favorites", generation: 1,
                                     documents: ["a": nil, "never": nil, "c": Self.json("33")], fromPosition: 3, toPosition: 4))
        #expect(try Self.all(store, "favorites", generation: 1).map(\.key) == ["b", "c"])
        #expect(try store.documents(of: "favorites", generation: 1, keys: ["a", "b", "c", "never"]) == ["b": Self.json("2"), "c": Self.json("33")])
        // A deleted key can come back.
        try store.commit(ViewChanges(projection: "favorites", generation: 1, documents: ["a": Self.json("11")], fromPosition: 4, toPosition: 5))
        #expect(try store.documents(of: "favorites", generation: 1, keys: ["a"]) == ["a": Self.json("11")])
    }

    @Test("documents page in the byte order of their keys, whatever the database's locale", arguments: ViewStoreKind.underTest)
    func pagingOrder(kind: ViewStoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let store = subject.store
        _ = try store.startGeneration(of: "recent", version: 1)
        let keys = ["user-9", "user-10", "User-1", "a b", "a-b", "ab", "é", "e", "z", "ü-3", "東京", "🎶", "_x", "0"]
        try store.commit(ViewChanges(projection: "recent", generation: 1, documents: Dictionary(uniqueKeysWithValues: keys.map { ($0, Self.json("{}")) }),
                                     fromPosition: 0, toPosition: 1))
        let byteOrder = keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        for limit in [1, 2, 5, 100] {
            #expect(try Self.all(store, "recent", generation: 1, limit: limit).map(\.key) == byteOrder, "limit \(limit)")
        }
        #expect(try store.documents(of: "recent", generation: 1, after: "user-1", limit: 100).map(\.key) == ["user-10", "user-9", "z", "é", "ü-3", "東京", "🎶"])
        #expect(try store.documents(of: "recent", generation: 1, after: "🎶", limit: 100).isEmpty)
    }

    // MARK: - Blue/green

    @Test("blue/green: readers keep the old generation until activation swaps in the new one and drops the rest", arguments: ViewStoreKind.underTest)
    func blueGreen(kind: ViewStoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let store = subject.store
        _ = try store.startGeneration(of: "favorites", version: 1)
        try store.commit(ViewChanges(projection: "favorites", generation: 1, documents: ["u1": Self.json("\"old\""), "u2": Self.json("\"old\"")],
                                     fromPosition: 0, toPosition: 10, activate: true))
        #expect(try store.projectionStatuses() == [ProjectionStatus(name: "favorites", generation: 1, version: 1, position: 10, isActive: true)])

        // A rebuild fills generation 2 beside it, over several commits; generation 1 still answers.
        #expect(try store.startGeneration(of: "favorites", version: 2).generation == 2)
        try store.commit(ViewChanges(projection: "favorites", generation: 2, documents: ["u1": Self.json("\"new\"")], fromPosition: 0, toPosition: 6))
        try store.commit(ViewChanges(projection: "favorites", generation: 2, documents: ["u3": Self.json("\"new\"")], fromPosition: 6, toPosition: 12))
        #expect(try store.projectionStatuses() == [
            ProjectionStatus(name: "favorites", generation: 1, version: 1, position: 10, isActive: true),
            ProjectionStatus(name: "favorites", generation: 2, version: 2, position: 12, isActive: false),
        ])
        #expect(try store.documents(of: "favorites", generation: 1, keys: ["u1", "u3"]) == ["u1": Self.json("\"old\"")])
        // A third, abandoned generation is dropped by the activation too.
        #expect(try store.startGeneration(of: "favorites", version: 2).generation == 3)

        try store.commit(ViewChanges(projection: "favorites", generation: 2, documents: [:], fromPosition: 12, toPosition: 12, activate: true))
        #expect(try store.projectionStatuses() == [ProjectionStatus(name: "favorites", generation: 2, version: 2, position: 12, isActive: true)])
        #expect(try Self.all(store, "favorites", generation: 1).isEmpty)
        #expect(try Self.all(store, "favorites", generation: 2).map(\.key) == ["u1", "u3"])
        // Numbers keep growing after the old generations are gone.
        #expect(try store.startGeneration(of: "favorites", version: 3).generation == 3)
    }

    @Test("dropping a generation removes it and its documents; a commit to it then conflicts", arguments: ViewStoreKind.underTest)
    func dropGeneration(kind: ViewStoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let store = subject.store
        _ = try store.startGeneration(of: "details", version: 1)
        try store.commit(ViewChanges(projection: "details", generation: 1, documents: ["L1": Self.json("{}")], fromPosition: 0, toPosition: 1, activate: true))
        let rebuild = try store.startGeneration(of: "details", version: 2)
        try store.commit(ViewChanges(projection: "details", generation: rebuild.generation, documents: ["L1": Self.json("[]"), "L2": Self.json("[]")],
                                     fromPosition: 0, toPosition: 1))
        try store.dropGeneration(of: "details", generation: rebuild.generation)
        #expect(try store.projectionStatuses() == [ProjectionStatus(name: "details", generation: 1, version: 1, position: 1, isActive: true)])
        #expect(try Self.all(store, "details", generation: rebuild.generation).isEmpty)
        #expect(try store.documents(of: "details", generation: 1, keys: ["L1"]) == ["L1": Self.json("{}")])
        #expect(throws: ProjectionStoreError.checkpointMoved(projection: "details", generation: rebuild.generation, expected: 1, actual: nil)) {
            try store.commit(ViewChanges(projection: "details", generation: rebuild.generation, documents: [:], fromPosition: 1, toPosition: 2, activate: true))
        }
        #expect(try store.projectionStatuses().map(\.generation) == [1])
        // Dropping what does not exist is no error.
        try store.dropGeneration(of: "details", generation: 99)
    }

    // MARK: - Several views

    @Test("several views side by side: commits, activations and drops of one leave the others alone", arguments: ViewStoreKind.underTest)
    func severalViews(kind: ViewStoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let store = subject.store
        let views = ["favorites", "recent", "viewed", "details"]
        for (index, view) in views.enumerated() {
            _ = try store.startGeneration(of: view, version: index + 1)
            // The same key in every view, each with its own document.
            try store.commit(ViewChanges(projection: view, generation: 1, documents: ["u1": Self.json("\"\(view)\"")],
                                         fromPosition: 0, toPosition: Int64(10 + index), activate: true))
        }
        let statuses = try store.projectionStatuses()
        #expect(statuses == views.enumerated().map { ProjectionStatus(name: $1, generation: 1, version: $0 + 1, position: Int64(10 + $0), isActive: true) }
            .sorted { $0.name < $1.name })
        // Rebuild one view and activate it; drop a generation of another.
        _ = try store.startGeneration(of: "favorites", version: 9)
        try store.commit(ViewChanges(projection: "favorites", generation: 2, documents: ["u1": Self.json("\"favorites 2\"")],
                                     fromPosition: 0, toPosition: 50, activate: true))
        _ = try store.startGeneration(of: "recent", version: 9)
        try store.dropGeneration(of: "recent", generation: 2)
        // A stale commit to one view does not stop the next commit to another.
        #expect(throws: ProjectionStoreError.self) {
            try store.commit(ViewChanges(projection: "viewed", generation: 1, documents: ["u1": nil], fromPosition: 0, toPosition: 60))
        }
        try store.commit(ViewChanges(projection: "details", generation: 1, documents: ["u2": Self.json("\"details\"")], fromPosition: 13, toPosition: 60))

        #expect(try store.projectionStatuses() == [
            ProjectionStatus(name: "details", generation: 1, version: 4, position: 60, isActive: true),
            ProjectionStatus(name: "favorites", generation: 2, version: 9, position: 50, isActive: true),
            ProjectionStatus(name: "recent", generation: 1, version: 2, position: 11, isActive: true),
            ProjectionStatus(name: "viewed", generation: 1, version: 3, position: 12, isActive: true),
        ])
        #expect(try store.documents(of: "favorites", generation: 2, keys: ["u1"]) == ["u1": Self.json("\"favorites 2\"")])
        for view in ["recent", "viewed"] {
            #expect(try Self.all(store, view, generation: 1).map(\.document) == [Self.json("\"\(view)\"")])
        }
        #expect(try Self.all(store, "details", generation: 1).map(\.key) == ["u1", "u2"])
    }

    // MARK: - Leases

    @Test("exactly the kinds listed as leasing grant leases", arguments: ViewStoreKind.underTest)
    func leasingKinds(kind: ViewStoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        #expect((subject.store is any ProjectionLeasing) == ViewStoreKind.leasing.contains(kind))
    }

    @Test("leases: one holder per view at a time, whichever handle asks; free again once released", arguments: ViewStoreKind.leasing)
    func leases(kind: ViewStoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let first = try #require(subject.store as? any ProjectionLeasing)
        let second = try #require(try subject.open() as? any ProjectionLeasing)
        let held = try #require(try first.tryLease("favorites"))
        #expect(held.isHeld)
        #expect(try second.tryLease("favorites") == nil)
        #expect(try first.tryLease("favorites") == nil)
        // Another view's lease is independent.
        let other = try #require(try second.tryLease("recent"))
        #expect(other.isHeld)
        held.release()
        #expect(!held.isHeld)
        let taken = try #require(try second.tryLease("favorites"))
        #expect(taken.isHeld)
        #expect(try first.tryLease("favorites") == nil)
        taken.release()
        other.release()
        let again = try #require(try first.tryLease("favorites"))
        again.release()
    }
}
