import EventLog
import Foundation
@testable import StorePostgres
import Synchronization
import Testing

@Suite("PostgreSQL store: projection checkpoints and views")
struct PostgresProjectionStoreTests {
    @Test("generations, documents, compare-and-set checkpoints, activation and drops")
    func lifecycle() throws {
        try TestDatabase.withStore { store, _ in
            let first = try store.startGeneration(of: "favorites", version: 1)
            #expect(first == ProjectionStatus(name: "favorites", generation: 1, version: 1, position: 0, isActive: false))
            let doc = { (text: String) in Data(text.utf8) }
            try store.commit(ViewChanges(projection: "favorites", generation: 1,
                                         documents: ["u1": doc(#"{"ids":["a"]}"#), "u2": doc(#"{"ids":[]}"#), "ü-3": doc("{}")],
                                         fromPosition: 0, toPosition: 10, activate: true))
            #expect(try store.projectionStatuses() == [ProjectionStatus(name: "favorites", generation: 1, version: 1, position: 10, isActive: true)])
            #expect(try store.documents(of: "favorites", generation: 1, keys: ["u1", "nope"]) == ["u1": doc(#"{"ids":["a"]}"#)])
            #expect(throws: ProjectionStoreError.checkpointMoved(projection: "favorites", generation: 1, expected: 5, actual: 10)) {
                try store.commit(ViewChanges(projection: "favorites", generation: 1, documents: ["u1": nil], fromPosition: 5, toPosition: 12))
            }
            try store.commit(ViewChanges(projection: "favorites", generation: 1, documents: ["u1": nil, "u2": doc(#"{"ids":["b"]}"#)],
                                         fromPosition: 10, toPosition: 12))
            let page = try store.documents(of: "favorites", generation: 1, after: "", limit: 10)
            #expect(page.map(\.key) == ["u2", "ü-3"])
            #expect(page.first?.document == doc(#"{"ids":["b"]}"#))
            #expect(try store.documents(of: "favorites", generation: 1, after: "u2", limit: 10).map(\.key) == ["ü-3"])

            // A blue/green rebuild: the new generation replaces the old one when activated.
            let second = try store.startGeneration(of: "favorites", version: 2)
            #expect(second.generation == 2)
            try store.commit(ViewChanges(projection: "favorites", generation: 2, documents: ["u9": doc("{}")], fromPosition: 0, toPosition: 12))
            #expect(try store.projectionStatuses().map(\.generation) == [1, 2])
            try store.commit(ViewChanges(projection: "favorites", generation: 2, documents: [:], fromPosition: 12, toPosition: 12, activate: true))
            #expect(try store.projectionStatuses() == [ProjectionStatus(name: "favorites", generation: 2, version: 2, position: 12, isActive: true)])
            #expect(try store.documents(of: "favorites", generation: 1, keys: ["u2"]).isEmpty)

            let third = try store.startGeneration(of: "favorites", version: 3)
            try store.dropGeneration(of: "favorites", generation: third.generation)
            #expect(try store.projectionStatuses().count == 1)
            #expect(throws: ProjectionStoreError.self) {
                try store.commit(ViewChanges(projection: "favorites", generation: third.generation, documents: [:], fromPosition: 0, toPosition: 1))
            }
        }
    }

    @Test("six projectors (own connections) committing from the same checkpoint: exactly one wins, the rest get a conflict and write nothing")
    func racingCommits() throws {
        let url = try TestDatabase.url()
        try TestDatabase.withStore { store, schema in
            _ = try store.startGeneration(of: "recent", version: 1)
            let winners = Failures(), moved = Failures(), failures = Failures()
            let threads = (0..<6).map { index in
                Thread {
                    do {
                        let own = try PostgresEventStore(url: url, schema: schema)
                        do {
                            try own.commit(ViewChanges(projection: "recent", generation: 1, documents: ["k": Data("\(index)".utf8), "only-\(index)": Data("[]".utf8)],
                                                       fromPosition: 0, toPosition: 5))
                            winners.add("\(index)")
                        } catch ProjectionStoreError.checkpointMoved(_, _, let expected, let actual) {
                            moved.add("\(index): expected \(expected), actual \(actual.map(String.init) ?? "none")")
                        }
                    } catch {
                        failures.add("projector \(index): \(error)")
                    }
                }
            }
            threads.forEach { $0.start() }
            while threads.contains(where: { !$0.isFinished }) { Thread.sleep(forTimeInterval: 0.01) }
            #expect(failures.all.isEmpty, "\(failures.all)")
            #expect(winners.all.count == 1, "winners: \(winners.all)")
            #expect(moved.all.count == 5, "conflicts: \(moved.all)")
            #expect(moved.all.allSatisfy { $0.hasSuffix("expected 0, actual 5") }, "\(moved.all)")
            // Only the winner's changes are there.
            let winner = try #require(winners.all.first)
            let documents = try store.documents(of: "recent", generation: 1, after: "", limit: 100)
            #expect(documents.map(\.key) == ["k", "only-\(winner)"])
            #expect(documents.first?.document == Data(winner.utf8))
            #expect(try store.projectionStatuses().map(\.position) == [5])
        }
    }

    @Test("a version 1 schema is upgraded in place when a newer evtool opens it")
    func upgradeFromVersion1() throws {
        let url = try TestDatabase.url()
        let name = TestDatabase.freshSchema()
        defer { try? PostgresEventStore.dropSchema(url: url, schema: name) }
        let schema = try PostgresSchema(name: name)
        try TestDatabase.execute(schema.migrations[0] + "\nUPDATE \(name).schema_version SET version = 1;")
        try TestDatabase.execute("""
            SELECT * FROM \(name).append(ARRAY['s'], ARRAY[0], ARRAY[0::bigint], ARRAY[1], ARRAY[gen_random_uuid()],
                ARRAY['Old'], ARRAY['{}'::json], ARRAY['{}'::json], ARRAY[NULL::timestamptz])
            """)
        let store = try PostgresEventStore(url: url, schema: name)
        #expect(try TestDatabase.execute("SELECT version FROM \(name).schema_version") == String(PostgresEventStore.supportedSchemaVersion))
        #expect(try store.read(stream: "s").map(\.type) == ["Old"])
        #expect(try store.startGeneration(of: "p", version: 1).generation == 1)
    }
}
