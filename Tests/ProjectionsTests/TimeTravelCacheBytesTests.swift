import Commands
import EventLog
import Foundation
@testable import Projections
import Simulation
import Testing
import TestSupport

/// Time travel for a power user in a long-running process: a favorites document of hundreds of
/// items, kept states bounded by bytes (each shared chunk counted once), every answer the same
/// as a full replay and as the plain list's fold, and a fold from a kept state sharing almost
/// all of the kept document.
@Suite("Time travel for a power user: kept states bounded by bytes, answers as a full replay")
struct TimeTravelCacheBytesTests {
    /// Appends `count` events of `user`, most of them favorites of `listings` listings (the
    /// list grows to hundreds), some removals and searches, one event of `other` after every
    /// seventh; in batches.
    static func fill(_ store: SnapshotViewStore, user: String, other: String = "zed", count: Int, listings: UInt64, seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var versions: [String: Int64] = [user: try store.version(of: user), other: try store.version(of: other)]
        var parts: [StreamAppend] = []
        func add(_ stream: String) throws {
            let listing = "L\(random.next() % listings)"
            let draw = random.next() % 100
            let event: DomainEvent = draw < 62 ? .favorited(Favorited(listingID: listing, summary: ListingSummary(
                name: "Show \(listing), a name long enough for a buffer", venue: "Hall", localDateTime: "2026-12-05 19:30:00", category: "Music")))
                : draw < 85 ? .unfavorited(Unfavorited(listingID: listing))
                : .searched(Searched(keyword: "jazz \(draw)", category: .music, distance: 10, units: .miles, location: .custom(text: "LA")))
            let (type, data) = try event.encode()
            let metadata = try EventMetadata(userID: stream, occurredAt: Date(), handledAt: Date(), correlationID: "c", causationID: "c", source: "test").encoded()
            parts.append(StreamAppend(stream: stream, expectedVersion: .exactly(versions[stream]!), events: [ProposedEvent(type: type, data: data, metadata: metadata)]))
            versions[stream]! += 1
        }
        for index in 0..<count {
            try add(user)
            if index % 7 == 6 { try add(other) }
            if parts.count >= 200 { _ = try store.append(parts); parts = [] }
        }
        if !parts.isEmpty { _ = try store.append(parts) }
    }

    /// The favorites' bytes as of `position` by the plain list's fold over the whole stream.
    static func plainReplay(_ store: any EventStore, user: String, at position: Int64) throws -> String? {
        var reference = FavoritesListTests.Reference()
        var next: Int64 = 1
        reading: while true {
            let batch = try store.read(stream: UserStream.id(for: user), from: next, direction: .forwards, limit: 1_000)
            for recorded in batch {
                if recorded.position > position { break reading }
                if let event = ViewEvent.decode(recorded) { reference.apply(event) }
            }
            guard let last = batch.last, batch.count == 1_000 else { break }
            next = last.version + 1
        }
        return reference.json
    }

    /// Each view as of `position` through every cache equals a full replay, the favorites'
    /// bytes those of the plain list's fold, and no cache holds more than its bound.
    static func expectSameAsReplay(_ store: SnapshotViewStore, caches: [TimeTravelCache], user: String, at position: Int64,
                                   sourceLocation: SourceLocation = #_sourceLocation) throws {
        try TimeTravelCacheTests.expectSameAsReplay(store, caches: caches, user: user, at: position, sourceLocation: sourceLocation)
        let plain = try plainReplay(store, user: user, at: position)
        for cache in caches {
            let document = try TimeTravel.document(Views.favorites, key: user, asOf: .position(position), in: store, cache: cache)
            #expect(document.map { String(decoding: $0.jsonData, as: UTF8.self) } == plain, "favorites' bytes at \(position)", sourceLocation: sourceLocation)
            #expect(cache.bytes <= cache.byteLimit, "\(cache.bytes) bytes kept, bound \(cache.byteLimit)", sourceLocation: sourceLocation)
            #expect(cache.bytes >= 0 && cache.count >= 0, sourceLocation: sourceLocation)
        }
    }

    /// What one kept favorites state costs on its own (nothing shared with another).
    static func standaloneBytes(_ document: FavoritesProjection.Document?) -> Int {
        var bytes = TimeTravelCache.Entry.overhead
        document?.memoryParts { _, size in bytes += size }
        return bytes
    }

    @Test("a power user as of any position, around kept states, after appends and after an erasure, with a tiny and a small byte bound: the same as a full replay",
          arguments: ViewSnapshotTests.kinds)
    func powerUserEqualsReplay(_ kind: String) throws {
        let helpers = ViewSnapshotTests()
        try helpers.withStore(kind) { store in
            try Self.fill(store, user: "power", count: 2_300, listings: 800, seed: 21)
            try ViewSnapshots.update(stream: "power", through: try store.version(of: "power"), in: store)
            var head = try store.headPosition()
            let whole = try TimeTravel.document(Views.favorites, key: "power", asOf: .position(head), in: StreamOnly(store))
            let oneState = Self.standaloneBytes(whole)
            #expect((whole?.count ?? 0) > 200, "a large list: \(whole?.count ?? 0) favorites")

            // A bound below one state: nothing of the power user is kept, every answer still right.
            let tiny = TimeTravelCache(bytes: oneState / 2, step: 4)
            // A bound of twelve whole states (three for one stream).
            let small = TimeTravelCache(bytes: 12 * oneState, step: 4)
            let cache = TimeTravelCache()
            let caches = [cache, small, tiny]
            var random = SplitMix64(seed: 8)
            var positions: [Int64] = [1, 2, head, head - 1, head + 5]
            for version: Int64 in [999, 1_000, 1_001, 2_000, 2_001, 2_299] {
                positions.append(try store.read(stream: "power", from: version, direction: .forwards, limit: 1)[0].position)
            }
            for _ in 0..<10 { positions.append(head - Int64.random(in: 0...600, using: &random)) }
            for _ in 0..<4 { positions.append(Int64.random(in: 1...head, using: &random)) }
            for position in positions + positions.shuffled(using: &random).prefix(6) {
                try Self.expectSameAsReplay(store, caches: caches, user: "power", at: position)
            }
            #expect(cache.count > 20, "states were kept: \(cache.count)")
            #expect(small.count > 0 && small.bytes <= 12 * oneState)

            // States near the head, each about as large as the whole list: one stream may hold
            // three whole states' bytes, and holds more states because they share their chunks.
            let near = TimeTravelCache(bytes: 12 * oneState, step: 4)
            for version in stride(from: Int64(2_100), through: 2_290, by: 19) {
                try Self.expectSameAsReplay(store, caches: [near], user: "power",
                                            at: try store.read(stream: "power", from: version, direction: .forwards, limit: 1)[0].position)
            }
            #expect(near.count > 6, "\(near.count) states in \(near.bytes) bytes, one state alone \(oneState)")
            #expect(tiny.bytes <= oneState / 2)

            // A fold from a kept state shares all but a few chunks of it.
            _ = try TimeTravel.document(Views.favorites, key: "power", asOf: .position(try store.read(stream: "power", from: 2_190, direction: .forwards, limit: 1)[0].position), in: store, cache: cache)
            let position = try store.read(stream: "power", from: 2_200, direction: .forwards, limit: 1)[0].position
            let start = try #require(cache.start(TimeTravelCache.Key(kind: ViewSnapshots.kind(of: Views.favorites), stream: "power"), atOrBefore: position))
            let kept = try #require((start.entry.document as? TimeTravelCache.Held<FavoritesProjection.Document>)?.document?.list.large)
            let folded = try #require(try TimeTravel.document(Views.favorites, key: "power", asOf: .position(position), in: store, cache: cache)?.list.large)
            let keptChunks = Set(kept.chunks.map { ObjectIdentifier($0) })
            let shared = folded.chunks.filter { keptChunks.contains(ObjectIdentifier($0)) }.count
            #expect(folded.chunks.count - shared <= 4, "\(folded.chunks.count - shared) of \(folded.chunks.count) chunks copied")

            // More events: the kept states still hold, the new events are folded.
            try Self.fill(store, user: "power", count: 200, listings: 800, seed: 22)
            head = try store.headPosition()
            for position in [head, head - 7, head - 150] + positions.prefix(5) {
                try Self.expectSameAsReplay(store, caches: caches, user: "power", at: position)
            }

            // A lower bound set while running: the states fit it at once, and still answer right.
            cache.byteLimit = 8 * oneState
            #expect(cache.bytes <= 8 * oneState)
            for position in [head - 3, head - 40] + positions.suffix(3) {
                try Self.expectSameAsReplay(store, caches: [cache], user: "power", at: position)
            }

            // Erased: no kept state fits any more; the answers are the erased stream's.
            _ = try store.erase(Erasure.Request(stream: "power", reason: "asked", operatorName: "ops"))
            for position in [head, head - 7] + positions.prefix(4) {
                try Self.expectSameAsReplay(store, caches: caches, user: "power", at: position)
            }
            #expect(try TimeTravel.document(Views.favorites, key: "power", asOf: .position(head), in: store, cache: cache) == nil, "erased favorites are gone")
        }
    }

    @Test("the byte bound holds over many users: the least recently used go first, a stream keeps at most a quarter")
    func boundOverManyUsers() throws {
        let helpers = ViewSnapshotTests()
        try helpers.withStore("sqlite") { store in
            for (index, user) in ["u1", "u2", "u3", "u4", "u5", "u6"].enumerated() {
                try Self.fill(store, user: user, other: "zed", count: 250, listings: 200, seed: UInt64(30 + index))
            }
            let head = try store.headPosition()
            let whole = try TimeTravel.document(Views.favorites, key: "u1", asOf: .position(head), in: StreamOnly(store))
            let cache = TimeTravelCache(bytes: 8 * Self.standaloneBytes(whole), step: 8)
            var random = SplitMix64(seed: 2)
            var peak = 0
            for round in 0..<24 {
                let user = "u\(round % 6 + 1)"
                let position = Int64.random(in: 1...head, using: &random)
                try Self.expectSameAsReplay(store, caches: [cache], user: user, at: position)
                peak = max(peak, cache.bytes)
            }
            #expect(peak <= cache.byteLimit && peak > cache.byteLimit / 8, "peak \(peak) of \(cache.byteLimit)")

            // What was counted in is counted out: with every stream dropped, nothing is left.
            for user in ["u1", "u2", "u3", "u4", "u5", "u6"] {
                for kind in [ViewSnapshots.kind(of: Views.favorites), ViewSnapshots.kind(of: Views.recentSearches), ViewSnapshots.kind(of: Views.recentlyViewed)] {
                    cache.drop(TimeTravelCache.Key(kind: kind, stream: UserStream.id(for: user)))
                }
            }
            #expect(cache.bytes == 0 && cache.count == 0, "\(cache.bytes) bytes, \(cache.count) states left")
        }
    }
}
