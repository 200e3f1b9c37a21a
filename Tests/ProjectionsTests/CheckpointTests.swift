import EventLog
import Foundation
import Projections
import Synchronization
import Testing

/// The compare-and-set on projection checkpoints, directly on each store: a commit names the
/// checkpoint its changes were computed from, and is refused, writing nothing, when another
/// projector moved the checkpoint first.
@Suite("Projection checkpoints: compare-and-set on every store")
struct CheckpointTests {
    static func document(_ text: String) -> Data { Data(text.utf8) }

    @Test("two projectors commit from the same checkpoint: the first wins, the second gets a conflict naming both positions, and none of its changes are applied",
          arguments: ViewStoreKind.underTest)
    func sameCheckpoint(kind: ViewStoreKind) throws {
        let fixture = try kind.make(); defer { fixture.remove() }
        let first = fixture.store, second = try fixture.open()
        let generation = try first.startGeneration(of: "favorites", version: 1).generation
        try first.commit(ViewChanges(projection: "favorites", generation: generation,
                                     documents: ["ada": Self.document(#"{"items":["A"]}"#), "bob": Self.document(#"{"items":["B"]}"#)],
                                     fromPosition: 0, toPosition: 4))
        // Both projectors read the checkpoint at 4 and compute changes from it.
        #expect(try first.projectionStatuses().map(\.position) == [4])
        #expect(try second.projectionStatuses().map(\.position) == [4])
        try first.commit(ViewChanges(projection: "favorites", generation: generation,
                                     documents: ["ada": Self.document(#"{"items":["A","C"]}"#)], fromPosition: 4, toPosition: 7))
        // The loser would change a key, remove one, add one, and activate the generation.
        #expect(throws: ProjectionStoreError.checkpointMoved(projection: "favorites", generation: generation, expected: 4, actual: 7)) {
            try second.commit(ViewChanges(projection: "favorites", generation: generation,
                                          documents: ["ada": Self.document(#"{"items":["X"]}"#), "bob": nil, "cy": Self.document(#"{"items":["Y"]}"#)],
                                          fromPosition: 4, toPosition: 9, activate: true))
        }
        for store in [first, second] {
            #expect(try store.documents(of: "favorites", generation: generation, keys: ["ada", "bob", "cy"])
                    == ["ada": Self.document(#"{"items":["A","C"]}"#), "bob": Self.document(#"{"items":["B"]}"#)])
            #expect(try store.projectionStatuses() == [ProjectionStatus(name: "favorites", generation: generation, version: 1, position: 7, isActive: false)])
        }
        // The loser reloads the checkpoint and commits from there: accepted.
        try second.commit(ViewChanges(projection: "favorites", generation: generation,
                                      documents: ["cy": Self.document(#"{"items":["Y"]}"#)], fromPosition: 7, toPosition: 9, activate: true))
        #expect(try first.projectionStatuses() == [ProjectionStatus(name: "favorites", generation: generation, version: 1, position: 9, isActive: true)])
        #expect(try first.documents(of: "favorites", generation: generation, after: "", limit: 10).map(\.key) == ["ada", "bob", "cy"])
    }

    @Test("a commit from a checkpoint the generation never had, or to a dropped generation, is refused and writes nothing",
          arguments: ViewStoreKind.underTest)
    func wrongOrMissingCheckpoint(kind: ViewStoreKind) throws {
        let fixture = try kind.make(); defer { fixture.remove() }
        let store = fixture.store
        let generation = try store.startGeneration(of: "recent-searches", version: 1).generation
        #expect(throws: ProjectionStoreError.checkpointMoved(projection: "recent-searches", generation: generation, expected: 3, actual: 0)) {
            try store.commit(ViewChanges(projection: "recent-searches", generation: generation,
                                         documents: ["ada": Self.document("{}")], fromPosition: 3, toPosition: 5))
        }
        #expect(try store.documents(of: "recent-searches", generation: generation, after: "", limit: 10).isEmpty)
        #expect(try store.projectionStatuses().map(\.position) == [0])
        try store.dropGeneration(of: "recent-searches", generation: generation)
        #expect(throws: ProjectionStoreError.checkpointMoved(projection: "recent-searches", generation: generation, expected: 0, actual: nil)) {
            try store.commit(ViewChanges(projection: "recent-searches", generation: generation,
                                         documents: ["ada": Self.document("{}")], fromPosition: 0, toPosition: 5, activate: true))
        }
        #expect(try store.projectionStatuses() == [])
        #expect(try store.documents(of: "recent-searches", generation: generation, keys: ["ada"]).isEmpty)
    }

    @Test("projectors racing on threads, each with its own handle, from one checkpoint: exactly one wins, each other gets a conflict",
          arguments: ViewStoreKind.underTest)
    func racingProjectors(kind: ViewStoreKind) throws {
        let fixture = try kind.make(); defer { fixture.remove() }
        let generation = try fixture.store.startGeneration(of: "recently-viewed", version: 1).generation
        let handles = try (0..<6).map { _ in try fixture.open() }
        for round in 0..<5 {
            let from = Int64(round * 10)
            let winners = Mutex<[Int]>([]), conflicts = Mutex<[Int64?]>([]), failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: handles.count) { index in
                do {
                    try handles[index].commit(ViewChanges(projection: "recently-viewed", generation: generation,
                                                          documents: ["shared": Self.document(#"{"by":\#(index)}"#), "own-\(round)-\(index)": Self.document("{}")],
                                                          fromPosition: from, toPosition: from + 10))
                    winners.withLock { $0.append(index) }
                } catch let ProjectionStoreError.checkpointMoved(_, _, expected, actual) where expected == from {
                    conflicts.withLock { $0.append(actual) }
                } catch {
                    failures.withLock { $0.append("projector \(index): \(error)") }
                }
            }
            let context = "round \(round)"
            #expect(failures.withLock { $0 } == [], "\(context)")
            let winner = try #require(winners.withLock { $0.count == 1 ? $0.first : nil }, "\(context): winners \(winners.withLock { $0 })")
            #expect(conflicts.withLock { $0 } == Array(repeating: from + 10, count: handles.count - 1), "\(context)")
            let documents = try fixture.store.documents(of: "recently-viewed", generation: generation, after: "", limit: 100)
            #expect(documents.map(\.key).filter { $0.hasPrefix("own-\(round)-") } == ["own-\(round)-\(winner)"], "\(context): a loser's document was written")
            #expect(documents.first { $0.key == "shared" }?.document == Self.document(#"{"by":\#(winner)}"#), "\(context)")
            #expect(try fixture.store.projectionStatuses().map(\.position) == [from + 10], "\(context)")
        }
    }
}
