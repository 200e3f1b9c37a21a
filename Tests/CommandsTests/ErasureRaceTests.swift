import Commands
import EventLog
import Foundation
import Testing

/// A decision taken on a user's stream before an erasure is never recorded after it: the
/// erasure appends its marker to the user's stream, so an append at a version read (or cached)
/// before it fails its check and the command is decided again on the erased stream. On the
/// stores that erase (an SQLite file, PostgreSQL), each erasure through another handle, as
/// another process would.
@Suite("Erasure races: no decision taken before an erasure is recorded after it")
struct ErasureRaceTests {
    static let erasable: [StoreFactory] = [.sqliteFile, .postgres]

    static func erase(_ store: any EventStore, _ user: String) throws -> Erasure.Outcome {
        let auditable = try #require(store as? any AuditableEventStore)
        return try auditable.erase(Erasure.Request(stream: UserStream.id(for: user), reason: "ticket 14", operatorName: "test"))
    }

    /// The types of the user's stream, a tombstone shown as `erased`.
    static func shape(_ store: any EventStore, _ user: String) throws -> [String] {
        try store.read(stream: UserStream.id(for: user)).map { Erasure.isTombstone($0) ? "erased" : $0.type }
    }

    @Test("a cached state (deciding without a read): an unfavorite of an erased favorite records nothing", arguments: erasable)
    func cachedDecision(_ factory: StoreFactory) throws {
        let database = try factory.makeDatabase(); defer { database.cleanup() }
        let store = try database.openHandle()
        let runner = CommandRunner(store: store, decidesOnCachedState: true)
        let user = "cached"
        #expect(try runner.handle(Fixtures.favorite("A"), context: Fixtures.context(user: user)).isRecorded)
        #expect(try runner.handle(Fixtures.favorite("B"), context: Fixtures.context(user: user)).isRecorded)
        let outcome = try Self.erase(try database.openHandle(), user)   // another process
        #expect(outcome.streamVersion == 3, "the marker is the stream's next version: \(outcome)")
        #expect(try Self.shape(store, user) == ["erased", "erased", Erasure.markerType])

        // The runner's cache still holds A and B; its append at version 2 must fail.
        #expect(try runner.handle(.unfavorite(listingID: "A"), context: Fixtures.context(user: user)) == .unchanged(.notFavorite(listingID: "A")))
        #expect(try Self.shape(store, user) == ["erased", "erased", Erasure.markerType], "no Unfavorited of an erased favorite")
        // A favorite the cache holds is no favorite after the erasure: it is recorded anew.
        #expect(try runner.handle(Fixtures.favorite("B"), context: Fixtures.context(user: user)).isRecorded)
        #expect(try runner.handle(.unfavorite(listingID: "A"), context: Fixtures.context(user: user)) == .unchanged(.notFavorite(listingID: "A")))
        #expect(try Self.shape(store, user) == ["erased", "erased", Erasure.markerType, "Favorited"])
        #expect(try CommandRunner(store: store, cache: nil).load(user: user).state.favorites == ["B"])
    }

    @Test("a version the client decided on (If-Match) before the erasure is refused after it", arguments: erasable)
    func requiredVersion(_ factory: StoreFactory) throws {
        let database = try factory.makeDatabase(); defer { database.cleanup() }
        let store = try database.openHandle()
        let user = "etag"
        for trusting in [true, false] {
            let runner = CommandRunner(store: store, decidesOnCachedState: trusting)
            let stream = "\(user)-\(trusting)"
            guard case let .recorded(_, version, _) = try runner.handle(Fixtures.favorite("A"), context: Fixtures.context(user: stream)) else {
                Issue.record("not recorded"); continue
            }
            _ = try Self.erase(try database.openHandle(), stream)
            #expect(throws: EventStoreError.wrongExpectedVersion(stream: UserStream.id(for: stream), expected: .exactly(version), actual: version + 1)) {
                try runner.handle(.unfavorite(listingID: "A"), context: Fixtures.context(user: stream), requiredVersion: version)
            }
            #expect(try Self.shape(store, stream) == ["erased", Erasure.markerType])
        }
    }

    @Test("no cache: A reads and decides, B erases, A's append at the version it read fails and A decides again", arguments: erasable)
    func uncachedRace(_ factory: StoreFactory) throws {
        let database = try factory.makeDatabase(); defer { database.cleanup() }
        let plain = try database.openHandle()
        let user = "uncached"
        #expect(try CommandRunner(store: plain, cache: nil).handle(Fixtures.favorite("A"), context: Fixtures.context(user: user)).isRecorded)
        #expect(try CommandRunner(store: plain, cache: nil).handle(.search(Fixtures.search()), context: Fixtures.context(user: user)).isRecorded)

        let other = try database.openHandle()   // another process
        // A store that erases through the other handle just before the first append reaches it:
        // "A read and decided, B erased, A appends at the version it read", made certain.
        let racing = RacingStore(base: try database.openHandle()) { _ in _ = try Self.erase(other, user) }
        let runner = CommandRunner(store: racing, cache: nil)
        // Decided on the stream as read (A is a favorite): an Unfavorited of A; the erasure
        // commits before its append.
        #expect(try runner.handle(.unfavorite(listingID: "A"), context: Fixtures.context(user: user)) == .unchanged(.notFavorite(listingID: "A")))
        #expect(try Self.shape(plain, user) == ["erased", "erased", Erasure.markerType], "no Unfavorited of an erased favorite")

        // The same race with a decision that records: it is decided again and recorded once.
        // (The user searches first, so that the racing erasure has something to erase: of a
        // user with nothing left, an erasure records nothing.)
        #expect(try CommandRunner(store: plain, cache: nil).handle(.search(Fixtures.search()), context: Fixtures.context(user: user)).isRecorded)
        let again = RacingStore(base: try database.openHandle()) { _ in _ = try Self.erase(other, user) }
        #expect(try CommandRunner(store: again, cache: nil).handle(Fixtures.favorite("C"), context: Fixtures.context(user: user)).isRecorded)
        #expect(try Self.shape(plain, user) == ["erased", "erased", Erasure.markerType, "erased", Erasure.markerType, "Favorited"])
        #expect(try CommandRunner(store: plain, cache: nil).load(user: user).state.favorites == ["C"])
    }

    @Test("a second erasure of an erased user records nothing; one after new events keeps the first marker, erases what came after it, and counts only that", arguments: erasable)
    func secondErasure(_ factory: StoreFactory) throws {
        let database = try factory.makeDatabase(); defer { database.cleanup() }
        let store = try database.openHandle()
        let runner = CommandRunner(store: store)
        let user = "twice"
        #expect(try runner.handle(Fixtures.favorite("A"), context: Fixtures.context(user: user)).isRecorded)
        #expect(try Self.erase(store, user).erasedEvents == 1)
        let second = try Self.erase(store, user)
        #expect(!second.recorded && second.erasedEvents == 0 && second.streamVersion == 2, "nothing left to erase, nothing recorded: \(second)")
        #expect(try runner.handle(Fixtures.favorite("B"), context: Fixtures.context(user: user)).isRecorded)
        let third = try Self.erase(store, user)
        #expect(third.recorded && third.erasedEvents == 1 && third.streamVersion == 4, "\(third)")
        #expect(try Self.shape(store, user) == ["erased", Erasure.markerType, "erased", Erasure.markerType])
        let markers = try store.read(stream: UserStream.id(for: user)).filter(Erasure.isMarker)
        #expect(markers.map { Erasure.markerThroughVersion($0.data) } == [1, 3])
        #expect(try CommandRunner(store: store, cache: nil).load(user: user).state == UserDecider.initialState)
    }

    @Test("the decider: a marker forgets the state folded before it; a look-alike of another shape is skipped")
    func deciderFoldsMarker() throws {
        func recorded(_ type: String, _ data: String, version: Int64) -> RecordedEvent {
            RecordedEvent(position: version, streamID: "user-1", version: version, id: UUID(), type: type, data: Data(data.utf8),
                          metadata: Data("{}".utf8), recordedAt: Date(timeIntervalSince1970: 1_796_000_000), hash: "")
        }
        let (type, favorite) = try Fixtures.favorited("A").encode()
        let live = RecordedEvent(position: 1, streamID: "user-1", version: 1, id: UUID(), type: type, data: favorite,
                                 metadata: Data("{}".utf8), recordedAt: Date(timeIntervalSince1970: 1_796_000_000), hash: "")
        let marker = String(decoding: Erasure.markerData(erasureEventID: UUID(), throughVersion: 1), as: UTF8.self)
        var state = try UserDecider.evolve(UserDecider.initialState, recorded: live)
        #expect(state.favorites == ["A"])
        for lookalike in [#"{"erasure":"x","throughVersion":1}"#, marker.replacingOccurrences(of: ":1}", with: ": 1}"), "{}"] {
            #expect(try UserDecider.evolve(state, recorded: recorded(Erasure.markerType, lookalike, version: 2)).favorites == ["A"], "\(lookalike)")
        }
        state = try UserDecider.evolve(state, recorded: recorded(Erasure.markerType, marker, version: 2))
        #expect(state == UserDecider.initialState)
        #expect(Erasure.markerThroughVersion(Data(marker.utf8)) == 1)
    }
}
