import Commands
import EventLog
import Foundation
import Testing

@Suite("Command runner on the in-memory store")
struct RunnerTests {
    let store = InMemoryEventStore()
    var runner: CommandRunner { CommandRunner(store: store) }

    func types(_ user: String = "user-1") throws -> [String] {
        try store.read(stream: UserStream.id(for: user)).map(\.type)
    }

    @Test("a command is appended to the user's stream with its metadata")
    func records() throws {
        let outcome = try runner.handle(.search(Fixtures.search()), context: Fixtures.context())
        guard case let .recorded(ids, version, positions) = outcome else { Issue.record("not recorded"); return }
        #expect(version == 1)
        #expect(positions == 1...1)
        let recorded = try #require(try store.read(stream: "user-1").first)
        #expect(recorded.id == ids.first)
        #expect(try DomainEvent.decode(recorded) == .searched(Fixtures.search()))
        let metadata = try EventMetadata.decode(recorded.metadata)
        #expect(metadata.userID == "user-1")
        #expect(metadata.source == "test-server")
        #expect(metadata.occurredAt == Fixtures.context().occurredAt)
        #expect(metadata.requestID == nil)
        #expect(metadata.correlationID == metadata.causationID)
    }

    @Test("given correlation and causation ids are carried; the default is the request's command id")
    func correlation() throws {
        var context = Fixtures.context(requestID: "req-1")
        _ = try runner.handle(.search(Fixtures.search()), context: context)
        context.requestID = "req-2"
        context.correlationID = "session-9"
        context.causationID = "click-3"
        _ = try runner.handle(.search(Fixtures.search()), context: context)
        let metadata = try store.read(stream: "user-1").map { try EventMetadata.decode($0.metadata) }
        #expect(metadata[0].correlationID == RequestIdentity.commandID(user: "user-1", requestID: "req-1").lowercaseString)
        #expect(metadata[0].requestID == "req-1")
        #expect(metadata[1].correlationID == "session-9")
        #expect(metadata[1].causationID == "click-3")
    }

    @Test("favoriting twice records one Favorited; the second says it already is one")
    func favoriteTwice() throws {
        #expect(try runner.handle(Fixtures.favorite("A"), context: Fixtures.context()).isRecorded)
        #expect(try runner.handle(Fixtures.favorite("A"), context: Fixtures.context()) == .unchanged(.alreadyFavorite(listingID: "A")))
        #expect(try types() == ["Favorited"])
    }

    @Test("unfavoriting a non-favorite records nothing and says so")
    func unfavoriteNonFavorite() throws {
        #expect(try runner.handle(.unfavorite(listingID: "A"), context: Fixtures.context()) == .unchanged(.notFavorite(listingID: "A")))
        #expect(try store.version(of: "user-1") == 0)
    }

    @Test("a rejected command records nothing and throws the rule")
    func rejected() throws {
        #expect(throws: CommandError.rejected(field: "keyword", rule: "must not be empty or only spaces")) {
            try runner.handle(.search(Fixtures.search(" ")), context: Fixtures.context())
        }
        #expect(try store.headPosition() == 0)
    }

    @Test("the same request id sent twice records one event, and the second says already recorded")
    func idempotentRequest() throws {
        let context = Fixtures.context(requestID: "req-1")
        #expect(try runner.handle(.search(Fixtures.search()), context: context).isRecorded)
        #expect(try runner.handle(.search(Fixtures.search()), context: context) == .unchanged(.alreadyRecorded(requestID: "req-1")))
        // A runner with no cache (another app server) finds it too: the store refuses the duplicate id.
        let other = CommandRunner(store: store, cache: nil)
        #expect(try other.handle(.search(Fixtures.search()), context: context) == .unchanged(.alreadyRecorded(requestID: "req-1")))
        #expect(try types() == ["Searched"])
        // Another user may use the same request id.
        #expect(try runner.handle(.search(Fixtures.search()), context: Fixtures.context(user: "user-2", requestID: "req-1")).isRecorded)
    }

    @Test("a favorite retried with its request id after later actions is still recognised")
    func lateRetry() throws {
        _ = try runner.handle(Fixtures.favorite("A"), context: Fixtures.context(requestID: "req-1"))
        _ = try runner.handle(.unfavorite(listingID: "A"), context: Fixtures.context(requestID: "req-2"))
        for _ in 0..<70 { _ = try runner.handle(.search(Fixtures.search()), context: Fixtures.context()) }
        let fresh = CommandRunner(store: store, cache: nil)
        #expect(try fresh.handle(Fixtures.favorite("A"), context: Fixtures.context(requestID: "req-1")) == .unchanged(.alreadyRecorded(requestID: "req-1")))
        #expect(try fresh.load(user: "user-1").state.favorites.isEmpty)
    }

    @Test("a runner's cached state picks up what another runner appended")
    func cacheCatchesUp() throws {
        let first = runner
        let second = CommandRunner(store: store)
        _ = try first.handle(.search(Fixtures.search()), context: Fixtures.context())
        _ = try second.handle(Fixtures.favorite("A"), context: Fixtures.context())
        #expect(try first.handle(Fixtures.favorite("A"), context: Fixtures.context()) == .unchanged(.alreadyFavorite(listingID: "A")))
        #expect(try first.load(user: "user-1") .version == 2)
    }

    @Test("when another writer wins the race, the runner reloads and decides again")
    func conflictRetried() throws {
        let racing = RacingStore(base: store) { base in
            _ = try base.append(ProposedEvent(type: "Favorited", data: try Fixtures.favorited("A").encode().data),
                                to: "user-1", expectedVersion: .any)
        }
        let runner = CommandRunner(store: racing)
        #expect(try runner.handle(Fixtures.favorite("A"), context: Fixtures.context()) == .unchanged(.alreadyFavorite(listingID: "A")))
        #expect(try runner.handle(.search(Fixtures.search()), context: Fixtures.context()).isRecorded)
        #expect(try types() == ["Favorited", "Searched"])
    }

    @Test("when other writers always win, the runner gives up with a conflict error and records nothing")
    func conflictExhausted() throws {
        let racing = RacingStore(base: store, racesEveryTime: true) { base in
            _ = try base.append(ProposedEvent(type: "Searched", data: try DomainEvent.searched(Fixtures.search()).encode().data),
                                to: "user-1", expectedVersion: .any)
        }
        let runner = CommandRunner(store: racing, maximumAttempts: 3)
        #expect(throws: CommandError.conflict(user: "user-1", attempts: 3)) {
            try runner.handle(Fixtures.favorite("A"), context: Fixtures.context())
        }
        #expect(try !types().contains("Favorited"))
    }

    @Test("after a lost reply, a command with a request id is retried and recorded once")
    func outcomeUnknown() throws {
        let flaky = LostReplyStore(base: store)
        let runner = CommandRunner(store: flaky)
        #expect(try runner.handle(.search(Fixtures.search()), context: Fixtures.context(requestID: "r")) == .unchanged(.alreadyRecorded(requestID: "r")))
        #expect(try types() == ["Searched"])
        // Without a request id a retry could record twice, so the error is passed on.
        #expect(throws: EventStoreError.self) { try runner.handle(.search(Fixtures.search()), context: Fixtures.context()) }
    }

    @Test("when every try's outcome is lost, the runner says the outcome is unknown, not that it lost a race")
    func outcomeStaysUnknown() throws {
        let runner = CommandRunner(store: LostReplyStore(base: store, commits: false), maximumAttempts: 3)
        #expect(throws: EventStoreError.outcomeUnknown("connection reset during commit")) {
            try runner.handle(.search(Fixtures.search()), context: Fixtures.context(requestID: "r"))
        }
        #expect(try types() == [])
    }
}

// MARK: - Store doubles

/// Runs `race` (another writer) just before each of the first appends it passes on.
final class RacingStore: EventStore, @unchecked Sendable {
    // Only used from one thread in these tests; `raced` is not synchronized.
    let base: any EventStore
    let racesEveryTime: Bool
    let race: (any EventStore) throws -> Void
    var raced = false

    init(base: any EventStore, racesEveryTime: Bool = false, race: @escaping (any EventStore) throws -> Void) {
        self.base = base
        self.racesEveryTime = racesEveryTime
        self.race = race
    }

    func append(_ events: [ProposedEvent], to stream: String, expectedVersion: ExpectedVersion) throws -> AppendResult {
        if racesEveryTime || !raced {
            raced = true
            try race(base)
        }
        return try base.append(events, to: stream, expectedVersion: expectedVersion)
    }

    func read(stream: String, from version: Int64, direction: ReadDirection, limit: Int) throws -> [RecordedEvent] {
        try base.read(stream: stream, from: version, direction: direction, limit: limit)
    }
    func readAll(after position: Int64, limit: Int) throws -> [RecordedEvent] { try base.readAll(after: position, limit: limit) }
    func headPosition() throws -> Int64 { try base.headPosition() }
    func version(of stream: String) throws -> Int64 { try base.version(of: stream) }
}

/// Appends (or, with `commits: false`, does not), then reports that the outcome is unknown,
/// as when a connection drops during commit.
final class LostReplyStore: EventStore, @unchecked Sendable {
    // Only used from one thread in these tests.
    let base: any EventStore
    let commits: Bool

    init(base: any EventStore, commits: Bool = true) {
        self.base = base
        self.commits = commits
    }

    func append(_ events: [ProposedEvent], to stream: String, expectedVersion: ExpectedVersion) throws -> AppendResult {
        if commits { _ = try base.append(events, to: stream, expectedVersion: expectedVersion) }
        throw EventStoreError.outcomeUnknown("connection reset during commit")
    }

    func read(stream: String, from version: Int64, direction: ReadDirection, limit: Int) throws -> [RecordedEvent] {
        try base.read(stream: stream, from: version, direction: direction, limit: limit)
    }
    func readAll(after position: Int64, limit: Int) throws -> [RecordedEvent] { try base.readAll(after: position, limit: limit) }
    func headPosition() throws -> Int64 { try base.headPosition() }
    func version(of stream: String) throws -> Int64 { try base.version(of: stream) }
}

@Suite("Command outcome text")
struct CommandOutcomeTests {
    @Test("an outcome says what was recorded where, or why nothing was")
    func text() {
        #expect(CommandOutcome.recorded(eventIDs: [UUID()], streamVersion: 3, positions: 17...17).description
            == "recorded 1 event (stream version 3, position 17)")
        #expect(CommandOutcome.unchanged(.notFavorite(listingID: "A")).description == "listing 'A' is not a favorite; nothing recorded")
    }
}
