import Commands
import EventLog
import Foundation
import Projections
import Simulation
import Testing
import TestSupport

/// Time travel in a long-running process (``TimeTravelCache``): the kept states answer as a
/// full replay does (around stored snapshots, after more appends, after an erasure, with a
/// small capacity), and a read between two kept states folds about one step of events.
@Suite("Time travel in a long-running process: kept states answer as a full replay does, reading a few events")
struct TimeTravelCacheTests {
    /// Each view as of `position` through every cache equals a full replay of the stream.
    static func expectSameAsReplay(_ store: SnapshotViewStore, caches: [TimeTravelCache], user: String, at position: Int64,
                                   sourceLocation: SourceLocation = #_sourceLocation) throws {
        let plain = StreamOnly(store)
        let point = AsOf.position(position)
        let favorites = try TimeTravel.document(Views.favorites, key: user, asOf: point, in: plain)
        let recent = try TimeTravel.document(Views.recentSearches, key: user, asOf: point, in: plain)
        let viewed = try TimeTravel.document(Views.recentlyViewed, key: user, asOf: point, in: plain)
        for cache in caches {
            #expect(try TimeTravel.document(Views.favorites, key: user, asOf: point, in: store, cache: cache) == favorites, "favorites at \(position)", sourceLocation: sourceLocation)
            #expect(try TimeTravel.document(Views.recentSearches, key: user, asOf: point, in: store, cache: cache) == recent, "recent at \(position)", sourceLocation: sourceLocation)
            #expect(try TimeTravel.document(Views.recentlyViewed, key: user, asOf: point, in: store, cache: cache) == viewed, "viewed at \(position)", sourceLocation: sourceLocation)
        }
    }

    @Test("as of any position, again and again, after more appends and after an erasure: the same as a full replay", arguments: ViewSnapshotTests.kinds)
    func keptStatesEqualReplay(_ kind: String) throws {
        let helpers = ViewSnapshotTests()
        try helpers.withStore(kind) { store in
            try helpers.fill(store, user: "ada", count: 3_500, seed: 11)
            try ViewSnapshots.update(stream: "ada", through: try store.version(of: "ada"), in: store)
            let cache = TimeTravelCache(), small = TimeTravelCache(capacity: 16, step: 4)
            var head = try store.headPosition()
            var random = SplitMix64(seed: 4)
            var positions: [Int64] = [1, 2, head, head - 1, head + 5]
            for version: Int64 in [999, 1_000, 1_001, 2_000, 3_000, 3_001, 3_499] {
                positions.append(try store.read(stream: "ada", from: version, direction: .forwards, limit: 1)[0].position)
            }
            for _ in 0..<25 { positions.append(head - Int64.random(in: 0...600, using: &random)) }
            for _ in 0..<6 { positions.append(Int64.random(in: 1...head, using: &random)) }
            for position in positions + positions.shuffled(using: &random).prefix(20) {
                try Self.expectSameAsReplay(store, caches: [cache, small], user: "ada", at: position)
            }
            #expect(cache.count > 20, "states were kept: \(cache.count)")
            #expect(small.count <= 16, "bounded: \(small.count)")

            // Between two kept states: one read of about a step of events, no search.
            let counting = CountingSnapshotStore(store)
            let at3400 = try store.read(stream: "ada", from: 3_400, direction: .forwards, limit: 1)[0].position
            let at3250 = try store.read(stream: "ada", from: 3_250, direction: .forwards, limit: 1)[0].position
            let fresh = TimeTravelCache()
            _ = try TimeTravel.document(Views.favorites, key: "ada", asOf: .position(at3400), in: counting, cache: fresh)
            counting.eventsRead.withLock { $0 = 0 }
            #expect(try TimeTravel.document(Views.favorites, key: "ada", asOf: .position(at3250), in: counting, cache: fresh)
                    == TimeTravel.document(Views.favorites, key: "ada", asOf: .position(at3250), in: StreamOnly(store)))
            #expect(counting.eventsRead.withLock { $0 } <= 18, "read \(counting.eventsRead.withLock { $0 }) events")

            // More events: the kept states still hold, the new events are folded.
            try helpers.fill(store, user: "ada", count: 300, seed: 12)
            head = try store.headPosition()
            for position in [head, head - 7, head - 150] + positions.prefix(12) {
                try Self.expectSameAsReplay(store, caches: [cache], user: "ada", at: position)
            }

            // Erased: no kept state fits any more; the answers are the erased stream's.
            _ = try store.erase(Erasure.Request(stream: "ada", reason: "asked", operatorName: "ops"))
            for position in [head, head - 7] + positions.prefix(12) {
                try Self.expectSameAsReplay(store, caches: [cache], user: "ada", at: position)
            }
            #expect(try TimeTravel.document(Views.favorites, key: "ada", asOf: .position(head), in: store, cache: cache) == nil, "erased favorites are gone")
        }
    }
}
