import Commands
import EventLog
import Foundation
import Projections
import Simulation
import StoreSQLite
import Testing

/// The projector against real SQLite files: checkpoints, read-your-writes, rebuilds, crashes.
@Suite("Projector on every store")
struct ProjectorTests {
    @Test("catching up builds every view equal to a rebuild from scratch; a second catch-up changes nothing", arguments: ViewStoreKind.underTest)
    func catchUpEqualsFold(kind: ViewStoreKind) throws {
        let fixture = try kind.make(); defer { fixture.remove() }
        try recordActivity(600, users: 15, seed: 1, into: fixture.store)
        let projector = Projector(store: fixture.store, batchSize: 37)
        let head = try projector.catchUp()
        #expect(head == (try fixture.store.headPosition()))
        for projection in Views.all {
            let stored = try storedView(projection.name, in: fixture.store)
            #expect(stored == (try foldedView(projection, from: fixture.store)), "view \(projection.name)")
            #expect(!stored.isEmpty, "view \(projection.name) is empty")
        }
        let statuses = try projector.statuses()
        #expect(statuses.count == 4)
        #expect(statuses.allSatisfy { $0.isActive && $0.position == head })
        #expect(try Projector(store: fixture.store).catchUp() == head)
    }

    @Test("read-your-writes: a view read after a command includes it", arguments: ViewStoreKind.underTest)
    func readYourWrites(kind: ViewStoreKind) throws {
        let fixture = try kind.make(); defer { fixture.remove() }
        let runner = CommandRunner(store: fixture.store)
        let projector = Projector(store: fixture.store)
        let context = CommandContext(userID: "ada", source: "test", occurredAt: Date())
        #expect(try projector.document(Views.favorites, key: "ada") == nil)
        let summary = ListingSummary(name: "Hamilton", venue: "Pantages", localDateTime: "2026-12-05 19:30:00", category: "Arts & Theatre")
        _ = try runner.handle(.favorite(listingID: "L1", summary: summary), context: context)
        #expect(try projector.document(Views.favorites, key: "ada")?.items.map(\.listingID) == ["L1"])
        _ = try runner.handle(.favorite(listingID: "L2", summary: summary), context: context)
        _ = try runner.handle(.unfavorite(listingID: "L1"), context: context)
        #expect(try projector.document(Views.favorites, key: "ada")?.items.map(\.listingID) == ["L2"])
        _ = try runner.handle(.unfavorite(listingID: "L2"), context: context)
        #expect(try projector.document(Views.favorites, key: "ada") == nil)
    }

    @Test("a rebuild fills a new generation while readers keep the old one, then swaps it in", arguments: ViewStoreKind.underTest)
    func blueGreenRebuild(kind: ViewStoreKind) throws {
        let fixture = try kind.make(); defer { fixture.remove() }
        try recordActivity(400, users: 10, seed: 2, into: fixture.store)
        let projector = Projector(store: fixture.store, batchSize: 50, rebuildCommitInterval: 0)
        try projector.catchUp()
        let before = try storedView("favorites", in: fixture.store)
        let oldGeneration = try #require(try fixture.store.projectionStatuses().first { $0.name == "favorites" && $0.isActive }).generation
        var checkedMidway = false
        try projector.rebuild(["favorites"]) { position, head in
            guard position < head, !checkedMidway else { return }
            // Mid-rebuild: readers still see the complete old generation.
            let statuses = try fixture.store.projectionStatuses()
            let active = statuses.first { $0.name == "favorites" && $0.isActive }
            #expect(active?.generation == oldGeneration)
            #expect(statuses.contains { $0.name == "favorites" && !$0.isActive })
            #expect(try storedView("favorites", in: fixture.store) == before)
            checkedMidway = true
        }
        #expect(checkedMidway)
        let statuses = try fixture.store.projectionStatuses().filter { $0.name == "favorites" }
        #expect(statuses.count == 1)
        #expect(statuses.first?.generation == oldGeneration + 1)
        #expect(statuses.first?.isActive == true)
        #expect(try storedView("favorites", in: fixture.store) == before)
    }

    @Test("a projection whose code version changed is rebuilt, not mixed with old state", arguments: ViewStoreKind.underTest)
    func versionChangeRebuilds(kind: ViewStoreKind) throws {
        let fixture = try kind.make(); defer { fixture.remove() }
        try recordActivity(200, users: 5, seed: 3, into: fixture.store)
        try Projector(store: fixture.store, projections: [Views.recentlyViewed]).catchUp()
        let changed = ShorterRecentlyViewed()
        try Projector(store: fixture.store, projections: [changed]).catchUp()
        let statuses = try fixture.store.projectionStatuses().filter { $0.name == "recently-viewed" }
        #expect(statuses.map(\.version) == [changed.version])
        let stored = try storedView("recently-viewed", in: fixture.store)
        #expect(stored == (try foldedView(changed, from: fixture.store)))
        #expect(stored.values.allSatisfy { (try? JSONDecoder().decode(Shape.self, from: $0))?.items.count ?? 99 <= 3 })
    }

    struct Shape: Decodable { var items: [Item]; struct Item: Decodable {} }

    /// The next version of recently viewed keeps only three listings.
    struct ShorterRecentlyViewed: Projection {
        let name = "recently-viewed"
        let version = RecentlyViewedProjection().version + 1
        let isKeyedByUser = true
        func key(for event: ViewEvent) -> String? { RecentlyViewedProjection().key(for: event) }
        func evolve(_ document: inout RecentlyViewedProjection.Document?, with event: ViewEvent) {
            RecentlyViewedProjection().evolve(&document, with: event)
            if let items = document?.items, items.count > 3 { document?.items = Array(items.prefix(3)) }
        }
    }

    @Test("property: random batch sizes and crashes before or after commits always end equal to a rebuild",
          arguments: ViewStoreKind.underTest, [11, 12, 13])
    func crashesNeverSkipOrRepeat(kind: ViewStoreKind, seed: UInt64) throws {
        let fixture = try kind.make(); defer { fixture.remove() }
        var random = SplitMix64(seed: seed)
        let crashing = CrashingProjectionStore(base: fixture.store)
        var recorded = 0
        var crashes = 0
        for round in 0..<6 {
            recorded += try recordActivity(Int.random(in: 50...200, using: &random), users: 12, listings: 80, seed: seed * 100 + UInt64(round), into: fixture.store)
            // Plan some crashes among the next commits, then keep restarting a fresh projector
            // (as a new process would) until it reaches the head.
            crashing.plan = [:]
            for _ in 0..<3 { crashing.plan[crashing.commits + Int.random(in: 1...12, using: &random)] = Bool.random(using: &random) }
            var finished = false
            while !finished {
                let projector = Projector(store: crashing, batchSize: Int.random(in: 1...90, using: &random),
                                          rebuildCommitInterval: Bool.random(using: &random) ? 0 : 60)
                do {
                    if Int.random(in: 0..<5, using: &random) == 0 { try projector.rebuild() } else { try projector.catchUp() }
                    finished = true
                } catch is CrashingProjectionStore.Crash {
                    crashes += 1
                }
            }
        }
        #expect(crashes > 0)
        #expect(recorded > 0)
        for projection in Views.all {
            #expect(try storedView(projection.name, in: fixture.store) == (try foldedView(projection, from: fixture.store)), "view \(projection.name), seed \(seed)")
        }
        let head = try fixture.store.headPosition()
        #expect(try fixture.store.projectionStatuses().allSatisfy { $0.isActive && $0.position == head })
    }

    @Test("two projectors on one store: both stay correct, neither applies an event twice", arguments: ViewStoreKind.underTest)
    func twoProjectors(kind: ViewStoreKind) throws {
        let fixture = try kind.make(); defer { fixture.remove() }
        let other = try fixture.open()
        try recordActivity(300, users: 8, seed: 5, into: fixture.store)
        let first = Projector(store: fixture.store, batchSize: 13)
        let second = Projector(store: other, batchSize: 29)
        let failures = FailureLog()
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            for _ in 0..<3 {
                do { try (index == 0 ? first : second).catchUp() } catch { failures.record(error) }
            }
        }
        #expect(failures.errors.isEmpty, "\(failures.errors)")
        try recordActivity(100, users: 8, seed: 6, into: fixture.store)
        try first.catchUp()
        try second.catchUp()
        for projection in Views.all {
            #expect(try storedView(projection.name, in: fixture.store) == (try foldedView(projection, from: fixture.store)), "view \(projection.name)")
        }
    }
}

/// Errors thrown on other threads, kept for the test to check.
final class FailureLog: @unchecked Sendable {
    // @unchecked: every access to `stored` holds `lock`.
    private let lock = NSLock()
    private var stored: [String] = []
    func record(_ error: any Error) { lock.withLock { stored.append("\(error)") } }
    var errors: [String] { lock.withLock { stored } }
}
