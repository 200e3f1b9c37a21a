@testable import Commands
import EventLog
import EvtoolKit
import Foundation
import Synchronization
import Testing
import TestSupport

/// Group commit's continuations on a real SQLite file and a real PostgreSQL schema: a write
/// that waits for its commit holds no thread, is answered by the committing thread only once
/// it is durable, and a command started that way keeps every guarantee of the runner.
struct GroupCommitContinuationTests {
    /// A store whose multi-stream commits wait until the test opens the gate; it can also fail
    /// the next commit with an error of the test's choosing, writing nothing.
    final class GatedStore: ForwardingMultiStreamStore, @unchecked Sendable {
        let gate = DispatchSemaphore(value: 0)
        let gated = Atomic<Bool>(true)
        let failNext = Mutex<EventStoreError?>(nil)
        func open() { gated.store(false, ordering: .releasing); gate.signal() }
        override func append(_ parts: [StreamAppend]) throws -> [AppendResult] {
            if gated.load(ordering: .acquiring) { gate.wait() }
            if let error = failNext.withLock({ error in defer { error = nil }; return error }) { throw error }
            return try base.append(parts)
        }
    }

    /// Where a completion hands its value to the test thread.
    final class Handed<T: Sendable>: @unchecked Sendable {
        // @unchecked: written once before `done` is signalled, read after it was waited for.
        var value: T?
        var readBack: Result<[RecordedEvent], any Error>?
        let done = DispatchSemaphore(value: 0)
        let called = Atomic<Bool>(false)
        func hand(_ value: T) {
            self.value = value
            called.store(true, ordering: .releasing)
            done.signal()
        }
        func wait() throws -> T {
            guard done.wait(timeout: .now() + 30) == .success, let value else { throw EventStoreError.unavailable("no completion within 30 s") }
            return value
        }
    }

    static let summary = ListingSummary(name: "Hamilton", venue: "Pantages Theatre", localDateTime: "2026-12-05 19:30:00", category: "Arts & Theatre")
    static func context(_ user: String, requestID: String? = nil) -> CommandContext {
        CommandContext(userID: user, source: "test-server", occurredAt: Date(), requestID: requestID)
    }

    @Test(arguments: GroupCommitTests.Kind.allCases)
    func anAsynchronousAppendIsAnsweredOnlyOnceDurable(kind: GroupCommitTests.Kind) throws {
        let file = try kind.make()
        defer { file.cleanup() }
        let gated = GatedStore(file.store)
        let grouped = GroupCommitStore(base: gated)
        let handed = Handed<Result<AppendResult, any Error>>()
        let base = file.store
        grouped.append([GroupCommitTests.event()], to: "user-a", expectedVersion: .noStream) { result in
            handed.readBack = Result { try base.read(stream: "user-a", from: 1, direction: .forwards, limit: 10) }
            handed.hand(result)
        }
        // The call came back while the commit is held at the gate: the caller waits for nothing.
        Thread.sleep(forTimeInterval: 0.2)
        let answeredEarly = handed.called.load(ordering: .acquiring)
        #expect(!answeredEarly, "no answer before the commit")
        #expect(try file.store.version(of: "user-a") == 0)
        gated.open()
        let result = try handed.wait()
        #expect(try result.get().streamVersion == 1)
        #expect(try handed.readBack?.get().count == 1, "when the completion ran, the event was committed and readable")
    }

    @Test(arguments: GroupCommitTests.Kind.allCases)
    func aStartedCommandKeepsTheRunnersGuarantees(kind: GroupCommitTests.Kind) throws {
        let file = try kind.make()
        defer { file.cleanup() }
        let gated = GatedStore(file.store)
        gated.open()
        let runner = CommandRunner(store: GroupCommitStore(base: gated), decidesOnCachedState: true)
        let other = CommandRunner(store: file.store)   // another app server
        func start(_ command: UserCommand, _ context: CommandContext, mayRead: Bool = false) throws -> StartedOutcome? {
            let handed = Handed<StartedOutcome>()
            guard try runner.start(command, context: context, mayRead: mayRead, completion: { handed.hand($0) }) else { return nil }
            return try handed.wait()
        }
        func recordedVersion(_ outcome: StartedOutcome?) -> Int64? {
            if case .finished(.success(.recorded(_, let version, _))) = outcome { return version }
            return nil
        }
        let user = "started", stream = UserStream.id(for: user)

        // Not cached, and this thread may not read: not started. May read: started and recorded.
        #expect(try start(.favorite(listingID: "A", summary: Self.summary), Self.context(user)) == nil)
        #expect(recordedVersion(try start(.favorite(listingID: "A", summary: Self.summary), Self.context(user), mayRead: true)) == 1)
        // Cached now: started without a read, recorded.
        #expect(recordedVersion(try start(.favorite(listingID: "B", summary: Self.summary), Self.context(user))) == 2)
        // A decision to record nothing is left to handle (it is checked on the stream).
        #expect(try start(.favorite(listingID: "B", summary: Self.summary), Self.context(user)) == nil)

        // Another server removes A: the cached state is stale. Removing A here is appended at
        // the cached version, refused, nothing written: handle decides again on the stream.
        #expect(try other.handle(.unfavorite(listingID: "A"), context: Self.context(user)).isRecorded)
        guard case .handleAgain = try #require(try start(.unfavorite(listingID: "A"), Self.context(user))) else {
            Issue.record("a lost race must come back to be handled again"); return
        }
        #expect(try file.store.version(of: stream) == 3, "nothing was written by the lost race")
        #expect(try runner.handle(.unfavorite(listingID: "A"), context: Self.context(user)) == .unchanged(.notFavorite(listingID: "A")))

        // A broken rule is thrown at once.
        #expect(throws: CommandError.self) { try start(.favorite(listingID: "", summary: Self.summary), Self.context(user)) }

        // A lost outcome: without a request id it is answered as lost (never decided twice);
        // with one, it is handled again (its stable ids make the retry safe).
        gated.failNext.withLock { $0 = .outcomeUnknown("the connection was lost at commit") }
        guard case .finished(.failure(EventStoreError.outcomeUnknown)) = try #require(try start(.favorite(listingID: "C", summary: Self.summary), Self.context(user))) else {
            Issue.record("a lost outcome without a request id must be answered as such"); return
        }
        gated.failNext.withLock { $0 = .outcomeUnknown("the connection was lost at commit") }
        guard case .handleAgain = try #require(try start(.favorite(listingID: "C", summary: Self.summary), Self.context(user, requestID: "r-1"))) else {
            Issue.record("a lost outcome with a request id must be handled again"); return
        }
        #expect(try runner.handle(.favorite(listingID: "C", summary: Self.summary), context: Self.context(user, requestID: "r-1")).isRecorded)
        #expect(try file.store.read(stream: stream, from: 1, direction: .forwards, limit: 100).map(\.type) == ["Favorited", "Favorited", "Unfavorited", "Favorited"])
    }

    /// A store of `kind` whose commits wait for the test to open the gate, and a server's
    /// runner on it (group commit, deciding on its cached state) that tries each command once.
    static func oneTryRunner(_ kind: GroupCommitTests.Kind) throws -> (file: (store: any MultiStreamAppending, cleanup: () -> Void), gated: GatedStore, runner: CommandRunner) {
        let file = try kind.make()
        let gated = GatedStore(file.store)
        return (file, gated, CommandRunner(store: GroupCommitStore(base: gated), maximumAttempts: 1, decidesOnCachedState: true))
    }

    /// One user's commands handled at once by one runner never race each other: with one
    /// try each (`maximumAttempts: 1`), any two decided on the same version would fail one
    /// with a conflict. Started ones (no thread held) and handled ones (a waiting thread) take
    /// turns alike, while the commits are held, and every one is recorded once.
    @Test(arguments: GroupCommitTests.Kind.allCases)
    func oneUsersConcurrentCommandsTakeTurnsInsteadOfRacing(kind: GroupCommitTests.Kind) throws {
        let (file, gated, runner) = try Self.oneTryRunner(kind)
        defer { file.cleanup() }
        let user = "busy", stream = UserStream.id(for: user)
        let count = 24
        let outcomes = (0..<count).map { _ in Handed<Result<Bool, any Error>>() }
        for index in 0..<count {
            let command = UserCommand.favorite(listingID: "L\(index)", summary: Self.summary)
            Thread.detachNewThread {
                let handed = outcomes[index]
                if index.isMultiple(of: 2) {
                    handed.hand(Result { try runner.handle(command, context: Self.context(user)).isRecorded })
                    return
                }
                do {
                    let started = try runner.start(command, context: Self.context(user), mayRead: true) { outcome in
                        switch outcome {
                        case .finished(let result): handed.hand(result.map(\.isRecorded))
                        // Handled again on a thread that may wait, as a server does.
                        case .handleAgain: Thread.detachNewThread { handed.hand(Result { try runner.handle(command, context: Self.context(user)).isRecorded }) }
                        }
                    }
                    if !started { handed.hand(Result { try runner.handle(command, context: Self.context(user)).isRecorded }) }
                } catch {
                    handed.hand(.failure(error))
                }
            }
        }
        Thread.sleep(forTimeInterval: 0.3)   // every command has come and waits behind the held commit
        gated.open()
        for (index, handed) in outcomes.enumerated() {
            #expect(try handed.wait().get(), "command \(index) was recorded on its one try")
        }
        let events = try file.store.read(stream: stream, from: 1, direction: .forwards, limit: 100)
        #expect(events.map(\.version) == Array(1...Int64(count)))
        #expect(Set(events.map(\.type)) == ["Favorited"])
        #expect(runner.turns.streamsInTurn == 0, "every turn ended")
    }

    /// Commands started one after another on one thread, none waiting for the one before,
    /// are recorded in the order they came; one that breaks a rule, queued among them, is
    /// handed back to be handled (and refused there), and the turn passes on.
    @Test(arguments: GroupCommitTests.Kind.allCases)
    func startedCommandsOfOneUserAreRecordedInTheOrderTheyCame(kind: GroupCommitTests.Kind) throws {
        let (file, gated, runner) = try Self.oneTryRunner(kind)
        defer { file.cleanup() }
        let user = "ordered", stream = UserStream.id(for: user)
        // The first reads the (empty) stream and waits at the held commit with the turn.
        let commands: [UserCommand] = [
            .favorite(listingID: "first", summary: Self.summary), .favorite(listingID: "A", summary: Self.summary), .unfavorite(listingID: "first"),
            .favorite(listingID: "", summary: Self.summary),   // breaks a rule
            .favorite(listingID: "B", summary: Self.summary), .unfavorite(listingID: "A"), .favorite(listingID: "C", summary: Self.summary),
        ]
        let handed = commands.map { _ in Handed<StartedOutcome>() }
        for (index, (command, hand)) in zip(commands, handed).enumerated() {
            #expect(try runner.start(command, context: Self.context(user), mayRead: index == 0) { hand.hand($0) },
                    "started: the first after reading, the others behind it, although this thread may not read")
        }
        gated.open()
        for (index, hand) in handed.enumerated() {
            let outcome = try hand.wait()
            if index == 3 {
                guard case .handleAgain = outcome else { Issue.record("a broken rule queued behind a turn is handed back: \(outcome)"); continue }
                #expect(throws: CommandError.self) { try runner.handle(commands[index], context: Self.context(user)) }
            } else {
                guard case .finished(.success(let recorded)) = outcome, recorded.isRecorded else { Issue.record("command \(index): \(outcome)"); continue }
            }
        }
        let events = try file.store.read(stream: stream, from: 1, direction: .forwards, limit: 100)
        #expect(events.map(\.type) == ["Favorited", "Favorited", "Unfavorited", "Favorited", "Unfavorited", "Favorited"])
        #expect(events.map(\.version) == Array(1...6))
        #expect(try runner.load(user: user).state.favorites == ["B", "C"])
        #expect(runner.turns.streamsInTurn == 0, "every turn ended")
    }
}
