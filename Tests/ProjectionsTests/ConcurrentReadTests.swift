import Commands
import EventLog
import Foundation
import Projections
import Simulation
import Synchronization
import Testing

/// Reads off the projector's lock: a caught-up view is read without waiting for a catch-up or
/// rebuild in progress, a view that is behind is caught up once for every reader waiting on it,
/// and read-your-writes holds throughout.
@Suite("Projector reads concurrently")
struct ConcurrentReadTests {
    @Test("a read of a caught-up view does not wait for a rebuild holding the projector's lock", arguments: ViewStoreKind.underTest)
    func readDuringRebuild(kind: ViewStoreKind) throws {
        let fixture = try kind.make(); defer { fixture.remove() }
        try recordActivity(300, users: 10, seed: 3, into: fixture.store)
        let projector = Projector(store: fixture.store, batchSize: 20, rebuildCommitInterval: 0)
        try projector.catchUp()
        let user = UserStream.id(for: try firstUserWithFavorites(in: fixture.store))
        let expected = try projector.document(Views.favorites, key: user)
        #expect(expected != nil)
        let outcome = Mutex<(done: Bool, document: FavoritesProjection.Document?, error: String?)>((false, nil, nil))
        var waited = false
        try projector.rebuild(["favorites"]) { position, head in
            guard !waited else { return }
            waited = true
            // The rebuild holds the lock here; the reader on another thread must still finish.
            let finished = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                do {
                    let document = try projector.document(Views.favorites, key: user)
                    outcome.withLock { $0 = (true, document, nil) }
                } catch {
                    outcome.withLock { $0 = (true, nil, "\(error)") }
                }
                finished.signal()
            }
            let answered = finished.wait(timeout: .now() + 10) == .success
            #expect(answered, "the read waited for the rebuild's lock")
        }
        #expect(waited)
        let result = outcome.withLock { $0 }
        #expect(result.done)
        #expect(result.error == nil)
        #expect(result.document == expected)
        #expect(try projector.document(Views.favorites, key: user) == expected)
    }

    @Test("many readers of a view that is behind run one catch-up between them, and each sees the write", arguments: ViewStoreKind.underTest)
    func oneCatchUpForWaitingReaders(kind: ViewStoreKind) throws {
        let fixture = try kind.make(); defer { fixture.remove() }
        try recordActivity(200, users: 10, seed: 4, into: fixture.store)
        let projector = Projector(store: fixture.store)
        try projector.catchUp()
        let before = projector.catchUpsForReaders
        // Reads of a caught-up view run no catch-up at all.
        for _ in 0..<5 { _ = try projector.document(Views.favorites, key: UserStream.id(for: "ada")) }
        #expect(projector.catchUpsForReaders == before)

        let summary = ListingSummary(name: "Hamilton", venue: "Pantages", localDateTime: "2026-12-05 19:30:00", category: "Arts & Theatre")
        let runner = CommandRunner(store: fixture.store)
        _ = try runner.handle(.favorite(listingID: "L-new", summary: summary), context: CommandContext(userID: "ada", source: "test", occurredAt: Date()))
        let seen = Mutex<[[String]]>([])
        let failures = Mutex<[String]>([])
        let group = DispatchGroup()
        for _ in 0..<16 {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                do {
                    let items = try projector.document(Views.favorites, key: UserStream.id(for: "ada"))?.items.map(\.listingID) ?? []
                    seen.withLock { $0.append(items) }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(group.wait(timeout: .now() + 30) == .success)
        #expect(failures.withLock { $0 } == [])
        let lists = seen.withLock { $0 }
        #expect(lists.count == 16)
        #expect(lists.allSatisfy { $0.contains("L-new") }, "a reader missed the write acknowledged before it")
        #expect(projector.catchUpsForReaders == before + 1)
    }

    @Test("a read that needs a position the view has reached reads without catching up; one beyond catches up", arguments: ViewStoreKind.underTest)
    func readAtLeastPosition(kind: ViewStoreKind) throws {
        let fixture = try kind.make(); defer { fixture.remove() }
        let projector = Projector(store: fixture.store)
        let summary = ListingSummary(name: "Hamilton", venue: "Pantages", localDateTime: "2026-12-05 19:30:00", category: "Arts & Theatre")
        let runner = CommandRunner(store: fixture.store)
        let context = CommandContext(userID: "ada", source: "test", occurredAt: Date())
        guard case let .recorded(_, _, first) = try runner.handle(.favorite(listingID: "L1", summary: summary), context: context) else {
            Issue.record("the first favorite recorded nothing"); return
        }
        #expect(try projector.document(Views.favorites, key: UserStream.id(for: "ada"), atLeast: first.upperBound)?.items.map(\.listingID) == ["L1"])
        let runs = projector.catchUpsForReaders
        guard case let .recorded(_, _, second) = try runner.handle(.favorite(listingID: "L2", summary: summary), context: context) else {
            Issue.record("the second favorite recorded nothing"); return
        }
        // Told it needs only the first write: the view has that, so no catch-up.
        #expect(try projector.document(Views.favorites, key: UserStream.id(for: "ada"), atLeast: first.upperBound)?.items.map(\.listingID) == ["L1"])
        #expect(projector.catchUpsForReaders == runs)
        #expect(try projector.document(Views.favorites, key: UserStream.id(for: "ada"), atLeast: second.upperBound)?.items.map(\.listingID).sorted() == ["L1", "L2"])
        #expect(projector.catchUpsForReaders == runs + 1)
    }

    /// A user whose favorites view is not empty after the simulated activity.
    private func firstUserWithFavorites(in store: any EventStore & ProjectionStore) throws -> String {
        for index in 0..<10 {
            let user = ActivityGenerator.userID(index)
            if try Projector(store: store).document(Views.favorites, key: UserStream.id(for: user)) != nil { return user }
        }
        throw CancellationError()
    }
}
