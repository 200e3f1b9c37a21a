import Commands
import EventLog
import Foundation
import Synchronization
import Testing

/// A runner that decides on its cached state (`decidesOnCachedState`, as `evtool serve` runs
/// it) reads no stream for a user it holds, and still never decides on a stale state: another
/// app server's append makes its append at the cached version fail, and it decides again.
@Suite("Deciding on the cached state, on every store")
struct CachedDecisionTests {
    /// Counts the stream reads that go through it.
    final class CountingStore: EventStore, @unchecked Sendable {
        let base: any EventStore
        let streamReads = Atomic<Int>(0)
        init(_ base: any EventStore) { self.base = base }
        func append(_ events: [ProposedEvent], to stream: String, expectedVersion: ExpectedVersion) throws -> AppendResult {
            try base.append(events, to: stream, expectedVersion: expectedVersion)
        }
        func read(stream: String, from version: Int64, direction: ReadDirection, limit: Int) throws -> [RecordedEvent] {
            streamReads.add(1, ordering: .relaxed)
            return try base.read(stream: stream, from: version, direction: direction, limit: limit)
        }
        func readAll(after position: Int64, limit: Int) throws -> [RecordedEvent] { try base.readAll(after: position, limit: limit) }
        func scanAll(after position: Int64, limit: Int, _ body: (LentEvent) throws -> Void) throws -> Int { try base.scanAll(after: position, limit: limit, body) }
        func headPosition() throws -> Int64 { try base.headPosition() }
        func version(of stream: String) throws -> Int64 { try base.version(of: stream) }
        func waitForEvents(after position: Int64, timeout: Duration) throws -> Bool { try base.waitForEvents(after: position, timeout: timeout) }
        var reads: Int { streamReads.load(ordering: .relaxed) }
    }

    @Test("a cached user's command is appended without a read; off, it reads the stream first", arguments: StoreFactory.all)
    func noReadWhenCached(factory: StoreFactory) throws {
        let database = try factory.makeDatabase()
        defer { database.cleanup() }
        for trusting in [true, false] {
            let store = CountingStore(try database.openHandle())
            let runner = CommandRunner(store: store, decidesOnCachedState: trusting)
            let user = "cached-\(trusting)"
            #expect(try runner.handle(Fixtures.favorite("A"), context: Fixtures.context(user: user)).isRecorded)
            let before = store.reads
            #expect(try runner.handle(Fixtures.favorite("B"), context: Fixtures.context(user: user)).isRecorded)
            #expect(try runner.handle(.unfavorite(listingID: "A"), context: Fixtures.context(user: user)).isRecorded)
            if trusting {
                #expect(store.reads == before, "two commands of a cached user read no stream")
            } else {
                #expect(store.reads == before + 2, "without it each command reads the events since its cached state")
            }
            #expect(try store.read(stream: UserStream.id(for: user)).map(\.type) == ["Favorited", "Favorited", "Unfavorited"])
        }
    }

    @Test("a stale cache never decides: another server's writes are seen before answering", arguments: StoreFactory.all)
    func staleCacheDecidesAgain(factory: StoreFactory) throws {
        let database = try factory.makeDatabase()
        defer { database.cleanup() }
        let mine = CountingStore(try database.openHandle())
        let runner = CommandRunner(store: mine, decidesOnCachedState: true)
        let other = CommandRunner(store: try database.openHandle())   // another app server
        let user = "stale"
        let stream = UserStream.id(for: user)
        #expect(try runner.handle(Fixtures.favorite("A"), context: Fixtures.context(user: user)).isRecorded)

        // The other server removes A: the cache still says A is a favorite.
        #expect(try other.handle(.unfavorite(listingID: "A"), context: Fixtures.context(user: user)).isRecorded)
        // Favoriting A again: the cached state says "already", which is checked on the stream.
        guard case .recorded(_, let version, _) = try runner.handle(Fixtures.favorite("A"), context: Fixtures.context(user: user)) else {
            Issue.record("favoriting A again after another server removed it must record it"); return
        }
        #expect(version == 3)

        // The other server removes A again; removing it here is appended at the stale cached
        // version, refused, decided again on the stream: nothing to remove.
        #expect(try other.handle(.unfavorite(listingID: "A"), context: Fixtures.context(user: user)).isRecorded)
        #expect(try runner.handle(.unfavorite(listingID: "A"), context: Fixtures.context(user: user)) == .unchanged(.notFavorite(listingID: "A")))
        #expect(try mine.read(stream: stream).map(\.type) == ["Favorited", "Unfavorited", "Favorited", "Unfavorited"])

        // If-Match at the version the client read from the store (ahead of the cache): recorded.
        #expect(try other.handle(Fixtures.favorite("C"), context: Fixtures.context(user: user)).isRecorded)
        #expect(try runner.handle(Fixtures.favorite("D"), context: Fixtures.context(user: user), requiredVersion: 5).isRecorded)
        #expect(try mine.version(of: stream) == 6)
        // If-Match at an old version: 412 with the stream's version, nothing recorded.
        #expect(throws: EventStoreError.wrongExpectedVersion(stream: stream, expected: .exactly(5), actual: 6)) {
            try runner.handle(Fixtures.favorite("E"), context: Fixtures.context(user: user), requiredVersion: 5)
        }

        // A request the other server recorded, retried here with a stale cache: replayed once.
        #expect(try other.handle(Fixtures.favorite("F"), context: Fixtures.context(user: user, requestID: "r-1")).isRecorded)
        #expect(try runner.handle(Fixtures.favorite("F"), context: Fixtures.context(user: user, requestID: "r-1")) == .unchanged(.alreadyRecorded(requestID: "r-1")))
        #expect(try mine.version(of: stream) == 7)
    }
}
