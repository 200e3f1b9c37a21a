import EventLog
import Foundation
import Projections
import StoreSQLite
import Testing

/// A long catch-up reads and decodes ahead on a second thread (`BatchPrefetcher`): its
/// failures must reach the caller, and stopping must stop it.
@Suite("Projector: reading ahead on a second thread")
struct PrefetchTests {
    @Test("a read that fails on the reading thread reaches the caller; catching up again finishes the job")
    func readFailureSurfaces() throws {
        let (fixture, store) = try logOf1200Actions(seed: 4); defer { fixture.remove() }
        let projector = Projector(store: store, batchSize: 50)
        store.failFrom(read: 6)
        #expect(throws: ReadCountingStore.ReadFailure.self) { try projector.catchUp() }
        #expect(store.reads >= 6)
        store.failFrom(read: nil)
        try projector.catchUp()
        try expectViewsEqualRebuild(in: fixture.store)
        // A projector that starts afresh (a restarted process) agrees.
        try Projector(store: fixture.store, batchSize: 50).catchUp()
        try expectViewsEqualRebuild(in: fixture.store)
    }

    @Test("a rebuild stopped part-way (Ctrl-C) stops reading at once, and the next rebuild resumes and finishes")
    func stoppedRebuildStopsReading() throws {
        let (fixture, store) = try logOf1200Actions(seed: 5); defer { fixture.remove() }
        let projector = Projector(store: store, batchSize: 40)
        struct Interrupted: Error {}
        var batches = 0
        #expect(throws: Interrupted.self) {
            try projector.rebuild { _, _ in
                batches += 1
                if batches == 3 { throw Interrupted() }
            }
        }
        let readsWhenStopped = store.reads
        Thread.sleep(forTimeInterval: 0.2)
        #expect(store.reads == readsWhenStopped, "the reading thread went on reading after the rebuild returned")
        #expect(readsWhenStopped < 1_200 / 40, "the rebuild read the whole log before stopping")
        try Projector(store: store, batchSize: 40).rebuild()
        try expectViewsEqualRebuild(in: fixture.store)
    }

    /// An SQLite log of 1,200 simulated actions, and a read-counting store over it.
    private func logOf1200Actions(seed: UInt64) throws -> (SQLiteFixture, ReadCountingStore) {
        let fixture = try SQLiteFixture()
        try recordActivity(1_200, users: 20, seed: seed, into: fixture.store)
        return (fixture, ReadCountingStore(base: fixture.store))
    }

    private func expectViewsEqualRebuild(in store: SQLiteEventStore) throws {
        #expect(try storedView(Views.favorites.name, in: store) == foldedView(Views.favorites, from: store))
        #expect(try storedView(Views.recentSearches.name, in: store) == foldedView(Views.recentSearches, from: store))
        #expect(try storedView(Views.recentlyViewed.name, in: store) == foldedView(Views.recentlyViewed, from: store))
        #expect(try storedView(Views.cachedDetails.name, in: store) == foldedView(Views.cachedDetails, from: store))
    }
}

/// A store that counts reads of the whole log (from any thread) and can be told to fail them
/// from a chosen read on.
final class ReadCountingStore: ForwardingViewStore, @unchecked Sendable {
    // @unchecked: the counters are only touched with `lock` held.
    struct ReadFailure: Error {}
    private let lock = NSLock()
    private var count = 0
    private var failing: Int?

    var reads: Int { lock.withLock { count } }
    func failFrom(read number: Int?) { lock.withLock { failing = number.map { count + $0 } } }

    private func countRead() throws {
        try lock.withLock {
            count += 1
            if let failing, count >= failing { throw ReadFailure() }
        }
    }

    override func scanAll(after position: Int64, limit: Int, _ body: (LentEvent) throws -> Void) throws -> Int {
        try countRead()
        return try base.scanAll(after: position, limit: limit, body)
    }
    override func readAll(after position: Int64, limit: Int) throws -> [RecordedEvent] {
        try countRead()
        return try base.readAll(after: position, limit: limit)
    }
}
