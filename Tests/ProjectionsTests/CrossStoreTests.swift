import Commands
import EventLog
import Foundation
import Projections
import Simulation
import Testing

@Suite("Projections: the same log gives the same views on every store")
struct CrossStoreTests {
    @Test("a log recorded on SQLite and copied to PostgreSQL: every view identical, byte for byte, also as of the past")
    func sameViewsEverywhere() throws {
        let sqlite = try ViewStoreKind.sqliteFile.make(); defer { sqlite.remove() }
        let postgres = try ViewStoreKind.postgres.make(); defer { postgres.remove() }
        try recordActivity(800, users: 20, listings: 150, seed: 21, into: sqlite.store)
        // Copy the log as migrate does: same streams, versions, ids, payloads and times.
        try sqlite.store.forEachBatch(batchSize: 97) { batch in
            try postgres.store.append(batch.map { event in
                StreamAppend(stream: event.streamID, expectedVersion: .exactly(event.version - 1), events: [ProposedEvent(
                    id: event.id, type: event.type, data: event.data, metadata: event.metadata, recordedAt: event.recordedAt)])
            })
        }
        try Projector(store: sqlite.store, batchSize: 61).catchUp()
        try Projector(store: postgres.store, batchSize: 250).rebuild()
        for projection in Views.all {
            let onSQLite = try storedView(projection.name, in: sqlite.store)
            #expect(!onSQLite.isEmpty)
            #expect(onSQLite == (try storedView(projection.name, in: postgres.store)), "view \(projection.name)")
        }
        let middle = try sqlite.store.headPosition() / 2
        let copied = try postgres.store.readAll(after: 0, limit: 10_000)
        try #require(copied.count == Int(try sqlite.store.headPosition()))
        let middleOnPostgres = copied[Int(middle) - 1].position
        for user in (0..<20).map(ActivityGenerator.userID) {
            let then = try TimeTravel.document(Views.favorites, key: user, asOf: .position(middle), in: sqlite.store)
            #expect(then == (try TimeTravel.document(Views.favorites, key: user, asOf: .position(middleOnPostgres), in: postgres.store)))
            #expect(try History.entries(of: user, in: sqlite.store).map(\.summary) == (try History.entries(of: user, in: postgres.store)).map(\.summary))
        }
    }
}
