import Commands
import EventLog
import Foundation
import Synchronization
import Testing

@Suite("Concurrent runners acting for the same user")
struct ConcurrencyTests {
    static let threads = 8
    static let servers = 4
    static let rounds = 12

    @Test("never lose an action, never record a duplicate favorite or a duplicate request", arguments: StoreFactory.all)
    func sameUser(factory: StoreFactory) throws {
        let database = try factory.makeDatabase()
        defer { database.cleanup() }
        // Each simulated app server has its own store handle (connection). They load state
        // every way the runner can: from its cache, from the whole stream, from a shared
        // snapshot store (snapshots every 7 events) with and without a cache.
        let snapshots = EventStoreSnapshots(store: InMemoryEventStore())
        let runners = [
            CommandRunner(store: try database.openHandle(), maximumAttempts: 200),
            CommandRunner(store: try database.openHandle(), maximumAttempts: 200, cache: nil),
            CommandRunner(store: try database.openHandle(), maximumAttempts: 200, snapshots: snapshots, snapshotInterval: 7),
            CommandRunner(store: try database.openHandle(), maximumAttempts: 200, cache: nil, snapshots: snapshots, snapshotInterval: 7),
        ]
        let failures = Mutex<[String]>([])
        let user = "user-concurrent"

        DispatchQueue.concurrentPerform(iterations: Self.threads) { thread in
            let runner = runners[thread % Self.servers]
            func run(_ command: UserCommand, requestID: String? = nil) {
                do {
                    _ = try runner.handle(command, context: Fixtures.context(user: user, requestID: requestID))
                } catch {
                    failures.withLock { $0.append("thread \(thread): \(error)") }
                }
            }
            for round in 0..<Self.rounds {
                run(.search(Fixtures.search("own \(thread) \(round)")))          // every one must land
                run(.search(Fixtures.search("retried \(round)")), requestID: "req-\(round)")   // one per request id
                run(Fixtures.favorite("shared-\(round)"))                       // one Favorited per listing
                run(Fixtures.favorite("own-\(thread)-\(round)"))
                run(.unfavorite(listingID: "own-\(thread)-\(round)"))
            }
        }

        #expect(failures.withLock { $0 } == [])
        let store = try database.openHandle()
        let recorded = try store.read(stream: UserStream.id(for: user))
        #expect(recorded.map(\.version) == Array(1...Int64(recorded.count)), "versions have no gaps")
        let events = try recorded.map(DomainEvent.decode)

        let keywords = events.compactMap { event -> String? in
            if case .searched(let search) = event { return search.keyword }
            return nil
        }
        let own = Set((0..<Self.threads).flatMap { thread in (0..<Self.rounds).map { "own \(thread) \($0)" } })
        #expect(Set(keywords.filter { $0.hasPrefix("own ") }) == own, "no search lost")
        #expect(keywords.filter { $0.hasPrefix("own ") }.count == own.count, "no search recorded twice")
        #expect(keywords.filter { $0.hasPrefix("retried ") }.sorted() == (0..<Self.rounds).map { "retried \($0)" }.sorted(),
                "one event per request id")

        var favoritedCount: [String: Int] = [:]
        var favorites = Set<String>()
        for event in events {
            switch event {
            case .favorited(let favorited):
                #expect(!favorites.contains(favorited.listingID), "\(favorited.listingID) favorited while already a favorite")
                favorites.insert(favorited.listingID)
                favoritedCount[favorited.listingID, default: 0] += 1
            case .unfavorited(let unfavorited):
                #expect(favorites.contains(unfavorited.listingID), "\(unfavorited.listingID) unfavorited while not a favorite")
                favorites.remove(unfavorited.listingID)
            default: break
            }
        }
        for round in 0..<Self.rounds { #expect(favoritedCount["shared-\(round)"] == 1) }
        for thread in 0..<Self.threads {
            for round in 0..<Self.rounds { #expect(favoritedCount["own-\(thread)-\(round)"] == 1, "own favorite lost or doubled") }
        }
        #expect(favorites == Set((0..<Self.rounds).map { "shared-\($0)" }))
        #expect(try runners[0].load(user: user).state.favorites == favorites)
    }
}
