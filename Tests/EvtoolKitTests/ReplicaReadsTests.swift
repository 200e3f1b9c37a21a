import Commands
import EventLog
import EvtoolKit
import Foundation
import Projections
import StorePostgres
import TestSupport
import Testing

/// Views read from a hot standby stay read-your-writes: a primary and a streaming standby of
/// the test's own (`scripts/postgres.sh standby`), removed even when a test fails.
@Suite("EvtoolKit: reads from a PostgreSQL standby", .serialized)
struct ReplicaReadsTests {
    /// A primary, an asynchronous standby, the application over the primary and reads through
    /// the standby; `body` runs with them, everything is removed after.
    func withReplica(maximumWait: Duration = .milliseconds(500), _ body: (Application, ReplicaReads, PrivatePostgres) throws -> Void) throws {
        let primary = try PrivatePostgres.start()
        defer { primary.remove() }
        let standby = try primary.standby(synchronous: false)
        defer { standby.remove() }
        let application = Application(store: try PostgresEventStore(url: primary.url))
        // The standby has the store's tables once it has replayed their creation.
        var replica: PostgresEventStore?
        let deadline = Date().addingTimeInterval(30)
        while replica == nil {
            do {
                replica = try PostgresEventStore(url: standby.url, createIfMissing: false)
            } catch EventStoreError.unavailable where Date() < deadline {
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
        guard let replica else { return }
        try body(application, try ReplicaReads(primary: application, replica: replica, maximumWait: maximumWait), standby)
    }

    static func favorite(_ listing: String, user: String, in application: Application) throws {
        _ = try application.record(
            .favorite(listingID: listing, summary: ListingSummary(name: "Show \(listing)", venue: "Hall", localDateTime: "2026-12-05 19:30:00", category: "Music")),
            context: CommandContext(userID: user, source: "test", occurredAt: Date()))
    }

    static func favorites(_ reads: ReplicaReads, user: String) throws -> (listings: [String], source: ReplicaReads.Source) {
        let (view, source) = try reads.view(Views.favorites, user: user)
        return ((view.document?.items ?? []).map(\.listingID), source)
    }

    @Test("every read after a write on the primary shows the write, answered by the standby once it has replayed it")
    func readYourWrites() throws {
        try withReplica { application, reads, _ in
            var expected: [String] = []
            for index in 0..<30 {
                let listing = "L\(index)"
                try Self.favorite(listing, user: "ada", in: application)
                expected.append(listing)
                if index % 5 == 4 {
                    _ = try application.record(.unfavorite(listingID: expected.removeFirst()), context: CommandContext(userID: "ada", source: "test", occurredAt: Date()))
                }
                let (listings, _) = try Self.favorites(reads, user: "ada")
                #expect(Set(listings) == Set(expected), "after write \(index): \(listings)")
            }
            // Nothing written since: the standby's view is current and answers at once.
            #expect(try Self.favorites(reads, user: "ada").source == .replica)
            let served = reads.reads
            #expect((served[.replicaAfterWaiting] ?? 0) + (served[.replica] ?? 0) >= 25, "\(served)")
        }
    }

    @Test("a standby that stops replaying costs the bounded wait and the primary answers, with the write")
    func laggingStandby() throws {
        try withReplica(maximumWait: .milliseconds(200)) { application, reads, standby in
            try Self.favorite("L1", user: "ada", in: application)
            #expect(try Self.favorites(reads, user: "ada").listings == ["L1"])
            let control = try ChildProcess.run(["psql", "-X", "-q", "-d", standby.url, "-c", "SELECT pg_wal_replay_pause()"])
            #expect(control.status == 0, "\(control)")
            try Self.favorite("L2", user: "ada", in: application)
            let started = ContinuousClock.now
            let (listings, source) = try Self.favorites(reads, user: "ada")
            #expect(ContinuousClock.now - started >= .milliseconds(200))
            #expect(source == .primary)
            #expect(Set(listings) == ["L1", "L2"])
            _ = try ChildProcess.run(["psql", "-X", "-q", "-d", standby.url, "-c", "SELECT pg_wal_replay_resume()"])
            try Self.favorite("L3", user: "ada", in: application)
            let after = try Self.favorites(reads, user: "ada")
            #expect(Set(after.listings) == ["L1", "L2", "L3"])
            #expect(after.source != .primary, "\(after)")
        }
    }

    @Test("a standby that is gone: the primary answers, with the write")
    func goneStandby() throws {
        try withReplica(maximumWait: .milliseconds(200)) { application, reads, standby in
            try Self.favorite("L1", user: "ada", in: application)
            try standby.crash()
            try Self.favorite("L2", user: "ada", in: application)
            let (listings, source) = try Self.favorites(reads, user: "ada")
            #expect(source == .primary)
            #expect(Set(listings) == ["L1", "L2"])
        }
    }
}
