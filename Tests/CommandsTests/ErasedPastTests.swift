import Commands
import EventLog
import Foundation
import Simulation
import Testing

/// What the decider assumes about an erased past and about event types it does not know:
/// they are facts it skips. A favorite that was erased is no longer known.
@Suite("Decider: tombstones and unknown types are skipped")
struct ErasedPastDeciderTests {
    /// A recorded event of `type` with the given payload, as a store would return it.
    static func recorded(_ type: String, _ data: Data, metadata: Data = Data("{}".utf8), version: Int64 = 1) -> RecordedEvent {
        RecordedEvent(position: version, streamID: "user-1", version: version, id: UUID(), type: type, data: data,
                      metadata: metadata, recordedAt: Date(timeIntervalSince1970: 1_796_000_000), hash: "")
    }

    static func tombstone(_ type: String) -> RecordedEvent {
        recorded(type, Erasure.tombstone, metadata: Erasure.tombstone)
    }

    static func live(_ event: DomainEvent) throws -> RecordedEvent {
        let (type, data) = try event.encode()
        return recorded(type, data)
    }

    /// The state after recorded events, folded as the runner folds a stream.
    static func given(_ events: [RecordedEvent]) throws -> UserState {
        try events.reduce(UserDecider.initialState) { try UserDecider.evolve($0, recorded: $1) }
    }

    @Test("given an erased Favorited, when favoriting it again, then a new Favorited is recorded")
    func erasedFavoriteIsForgotten() throws {
        let state = try Self.given([Self.tombstone("Searched"), Self.tombstone("Favorited"), Self.tombstone("DetailsViewed")])
        #expect(state == UserDecider.initialState)
        #expect(try UserDecider.decide(Fixtures.favorite("A"), state: state) == [Fixtures.favorited("A")])
    }

    @Test("given an erased Favorited, when unfavoriting it, then nothing is recorded: it is not a favorite")
    func erasedFavoriteIsNoFavorite() throws {
        let state = try Self.given([Self.tombstone("Favorited")])
        #expect(try UserDecider.decision(.unfavorite(listingID: "A"), state: state) == .unchanged(.notFavorite(listingID: "A")))
    }

    @Test("given an erased Unfavorited after a live Favorited, the favorite stands (each tombstone is skipped on its own)")
    func erasedUnfavoriteIsSkipped() throws {
        let state = try Self.given([try Self.live(Fixtures.favorited("A")), Self.tombstone("Unfavorited")])
        #expect(state.favorites == ["A"])
    }

    @Test("given event types this release does not know, when favoriting, then Favorited is recorded; the known events still count")
    func unknownTypesAreSkipped() throws {
        let state = try Self.given([
            try Self.live(Fixtures.favorited("A")),
            Self.recorded("FavoritesCleared", Data("{}".utf8)),
            Self.recorded("Note", Data(#"{"listingID":"A"}"#.utf8)),
            Self.tombstone("SomethingNewer"),
        ])
        #expect(state.favorites == ["A"])
        #expect(try UserDecider.decide(Fixtures.favorite("B"), state: state) == [Fixtures.favorited("B")])
        #expect(try UserDecider.decision(Fixtures.favorite("A"), state: state) == .unchanged(.alreadyFavorite(listingID: "A")))
    }

    @Test("a Favorited that is malformed but no tombstone, or of a newer schema, still stops the command")
    func unreadableFavoriteStillFails() throws {
        #expect(throws: DomainEventError.unreadable(stream: "user-1", version: 1, position: 1,
                                                    .malformed(type: "Favorited", reason: "listingID is missing"))) {
            try Self.given([Self.recorded("Favorited", Erasure.tombstone)])   // the data alone erased: not a tombstone
        }
        #expect(throws: DomainEventError.unreadable(stream: "user-1", version: 2, position: 2,
                                                    .newerSchema(type: "Unfavorited", found: 9, supported: 1))) {
            try Self.given([Self.live(Fixtures.favorited("A")), Self.recorded("Unfavorited", Data(#"{"listingID":"A","schemaVersion":9}"#.utf8), version: 2)])
        }
        #expect(DomainEventError.unreadable(stream: "ada", version: 3, position: 12, .malformed(type: "Favorited", reason: "listingID is missing")).description
                == "the event at position 12 (stream 'ada', version 3) cannot be read: Favorited event is malformed: listingID is missing")
    }
}

/// The runner on a store whose streams hold tombstones and unknown types, with caches and
/// snapshots: its state always equals a full replay of the stream (and a model in which an
/// erasure forgets the user's favorites), on SQLite files and PostgreSQL.
@Suite("Command runner: erased and unknown events")
struct ErasedPastRunnerTests {
    static let erasable: [StoreFactory] = [.sqliteFile, .postgres]

    static func erase(_ store: any EventStore, _ user: String) throws {
        let auditable = try #require(store as? any AuditableEventStore)
        _ = try auditable.erase(Erasure.Request(stream: UserStream.id(for: user), reason: "test", operatorName: "test"))
    }

    @Test("after forget, commands work again: search, view, favorite of an erased favorite records anew", arguments: erasable)
    func afterForget(_ factory: StoreFactory) throws {
        let database = try factory.makeDatabase(); defer { database.cleanup() }
        let store = try database.openHandle()
        let runner = CommandRunner(store: store)
        #expect(try runner.handle(Fixtures.favorite("A"), context: Fixtures.context()).isRecorded)
        #expect(try runner.handle(.search(Fixtures.search()), context: Fixtures.context()).isRecorded)
        try Self.erase(store, "user-1")
        // The same runner (its cache holds A) and a fresh one (another process) agree.
        for each in [runner, CommandRunner(store: try database.openHandle(), cache: nil)] {
            #expect(try each.load(user: "user-1").state == UserDecider.initialState)
            #expect(try each.handle(.unfavorite(listingID: "A"), context: Fixtures.context()) == .unchanged(.notFavorite(listingID: "A")))
        }
        #expect(try runner.handle(.search(Fixtures.search()), context: Fixtures.context()).isRecorded)
        #expect(try runner.handle(.viewDetails(listingID: "vvG1zZ9pBk", details: Fixtures.details()), context: Fixtures.context()).isRecorded)
        #expect(try runner.handle(Fixtures.favorite("A"), context: Fixtures.context()).isRecorded)
        let types = try store.read(stream: "user-1").map(\.type)
        #expect(types == ["Favorited", "Searched", Erasure.markerType, "Searched", "DetailsViewed", "Favorited"])
        #expect(try CommandRunner(store: store, cache: nil).load(user: "user-1").state.favorites == ["A"])
    }

    @Test("an event type the runner does not know, appended raw, does not lock the user out", arguments: StoreFactory.all)
    func unknownTypeAppended(_ factory: StoreFactory) throws {
        let database = try factory.makeDatabase(); defer { database.cleanup() }
        let store = try database.openHandle()
        let runner = CommandRunner(store: store)
        #expect(try runner.handle(Fixtures.favorite("A"), context: Fixtures.context()).isRecorded)
        _ = try store.append(ProposedEvent(type: "FavoritesCleared", data: Data("{}".utf8)), to: "user-1", expectedVersion: .any)
        for each in [runner, CommandRunner(store: store, cache: nil)] {
            #expect(try each.handle(Fixtures.favorite("A"), context: Fixtures.context()) == .unchanged(.alreadyFavorite(listingID: "A")))
        }
        #expect(try runner.handle(Fixtures.favorite("B"), context: Fixtures.context()).isRecorded)
        #expect(try store.read(stream: "user-1").map(\.type) == ["Favorited", "FavoritesCleared", "Favorited"])
    }

    @Test("a snapshot taken before an erasure is not used: the state is the replay of the erased stream", arguments: erasable)
    func snapshotBeforeErasure(_ factory: StoreFactory) throws {
        let database = try factory.makeDatabase(); defer { database.cleanup() }
        let store = try database.openHandle()
        let snapshots = EventStoreSnapshots(store: InMemoryEventStore())
        let writer = CommandRunner(store: store, snapshots: snapshots, snapshotInterval: 2)
        #expect(try writer.handle(Fixtures.favorite("A"), context: Fixtures.context()).isRecorded)
        #expect(try writer.handle(Fixtures.favorite("B"), context: Fixtures.context()).isRecorded)
        _ = try writer.load(user: "user-1")   // a snapshot is saved by a load, which reads the last event's chain hash
        #expect(try snapshots.latestSnapshot(stream: "user-1")?.favorites == ["A", "B"])
        try Self.erase(store, "user-1")
        let restarted = CommandRunner(store: store, cache: nil, snapshots: snapshots, snapshotInterval: 2)
        #expect(try restarted.load(user: "user-1").state == UserDecider.initialState)
        #expect(try restarted.handle(Fixtures.favorite("B"), context: Fixtures.context()).isRecorded)
        // The snapshot saved while replaying the erased stream knows nothing of A or B.
        let saved = try #require(try snapshots.latestSnapshot(stream: "user-1"))
        #expect(saved.version == 3 && saved.favorites == [])   // two tombstones and the erasure's marker
        #expect(try writer.load(user: "user-1").state.favorites == ["B"])
    }

    @Test("seeded mix of commands, raw unknown events and erasures over three users: every runner's state equals a full replay and the model",
          arguments: erasable)
    func replayEquivalence(_ factory: StoreFactory) throws {
        let database = try factory.makeDatabase(); defer { database.cleanup() }
        let store = try database.openHandle()
        let snapshots = EventStoreSnapshots(store: InMemoryEventStore())
        let runners = [
            CommandRunner(store: store, snapshots: snapshots, snapshotInterval: 3),                 // cache and snapshots
            CommandRunner(store: try database.openHandle(), cache: nil, snapshots: snapshots, snapshotInterval: 3),   // snapshots only
            CommandRunner(store: try database.openHandle()),                                        // cache only
        ]
        let users = ["user-1", "user-2", "user-3"]
        let listings = ["A", "B", "C"]
        var model: [String: Set<String>] = [:]
        var random = SplitMix64(seed: 20_261_201)
        var erasures = 0, recorded = 0
        for step in 0..<200 {
            let user = users.randomElement(using: &random)!
            let runner = runners.randomElement(using: &random)!
            let listing = listings.randomElement(using: &random)!
            let context = Fixtures.context(user: user)
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<3, 8..<10:
                let outcome = try runner.handle(Fixtures.favorite(listing), context: context)
                #expect(outcome.isRecorded == !model[user, default: []].contains(listing), "step \(step): favorite \(listing) for \(user): \(outcome)")
                model[user, default: []].insert(listing)
                if outcome.isRecorded { recorded += 1 }
            case 3..<5:
                let outcome = try runner.handle(.unfavorite(listingID: listing), context: context)
                #expect(outcome.isRecorded == model[user, default: []].contains(listing), "step \(step): unfavorite \(listing) for \(user): \(outcome)")
                model[user, default: []].remove(listing)
                if outcome.isRecorded { recorded += 1 }
            case 5:
                #expect(try runner.handle(.search(Fixtures.search()), context: context).isRecorded)
            case 6:
                _ = try store.append(ProposedEvent(type: "SomethingNewer", data: Data(#"{"listingID":"\#(listing)"}"#.utf8)),
                                     to: UserStream.id(for: user), expectedVersion: .any)
            default:   // 7
                guard try store.version(of: UserStream.id(for: user)) > 0 else { continue }
                try Self.erase(store, user)
                model[user] = []
                erasures += 1
            }
            let replayed = try CommandRunner(store: store, cache: nil).load(user: user).state
            #expect(replayed.favorites == model[user, default: []], "step \(step): full replay of \(user)")
            for (index, each) in runners.enumerated() {
                #expect(try each.load(user: user).state == replayed, "step \(step): runner \(index) for \(user)")
            }
        }
        #expect(erasures >= 8 && recorded >= 20, "the mix must exercise erasures (\(erasures)) and decisions (\(recorded))")
    }
}
