import EventLog
import Foundation
@testable import StorePostgres
import Testing

/// A view's documents are read and deleted by key with one primary-key lookup per key, even
/// with the plan PostgreSQL makes for a view it has no statistics of (a fresh store, before
/// autovacuum analyses it): such a plan for `key = ANY($3)` matched only the view and the
/// generation in the index and filtered every document of the view by key, a read of the
/// whole view for each `GET /v1/users/{user}/favorites` (1,300 reads/s instead of 26,000 in
/// the first minutes of a store with 20,000 users).
@Suite("PostgreSQL store: reading a view's documents by key")
struct PostgresViewReadPlanTests {
    static let documents = 3_000

    /// A fresh store whose view holds `documents` documents and has no statistics.
    func withUnanalysedView(_ body: (PostgresEventStore, PostgresConnection, String) throws -> Void) throws {
        try TestDatabase.withStore { store, schema in
            let connection = try PostgresConnection(conninfo: try TestDatabase.url())
            // As in a store's first minute: autovacuum has not analysed the view yet.
            _ = try connection.execute("ALTER TABLE \"\(schema)\".view_documents SET (autovacuum_enabled = false)")
            _ = try store.startGeneration(of: "favorites", version: 1)
            var documents: [String: Data?] = [:]
            for index in 0..<Self.documents { documents["u\(index)"] = Data(#"{"n":\#(index)}"#.utf8) }
            try store.commit(ViewChanges(projection: "favorites", generation: 1, documents: documents, fromPosition: 0, toPosition: 1, activate: true))
            let analysed = try connection.query(
                "SELECT count(*)::text FROM pg_stats WHERE schemaname = '\(schema)' AND tablename = 'view_documents'", types: [], binds: PostgresBinds())
            try #require(analysed.string(row: 0, column: 0) == "0", "the view was analysed: the test would not see the plan of a fresh store")
            try body(store, connection, schema)
        }
    }

    /// The plan a prepared statement settles on (forced generic, as after five executions),
    /// run, as text.
    func plan(_ connection: PostgresConnection, _ sql: String, _ arguments: String) throws -> String {
        _ = try connection.execute("SET plan_cache_mode = force_generic_plan; DEALLOCATE ALL; PREPARE planned(text, int, text[]) AS \(sql)")
        let result = try connection.query("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) EXECUTE planned(\(arguments))", types: [], binds: PostgresBinds())
        return (0..<result.rowCount).map { result.string(row: $0, column: 0) }.joined(separator: "\n")
    }

    @Test("the read looks up each key in the primary key: no document of the view is read and filtered out")
    func readByKey() throws {
        try withUnanalysedView { store, connection, schema in
            let sql = PostgresEventStore.documentsByKeySQL("\"\(schema)\"")
            let text = try plan(connection, sql, "'favorites', 1, '{u17,nobody,u2999}'")
            #expect(text.contains("Index Cond: ((projection = $1) AND (generation = $2) AND (key = wanted.key))"), "\(text)")
            #expect(!text.contains("Rows Removed by Filter"), "\(text)")
            #expect(!text.contains("Seq Scan"), "\(text)")
            // The answers: the keys that have a document, each once, whatever else was asked.
            let found = try store.documents(of: "favorites", generation: 1, keys: ["u17", "nobody", "u2999", "u17"])
            #expect(found == ["u17": Data(#"{"n":17}"#.utf8), "u2999": Data(#"{"n":2999}"#.utf8)])
        }
    }

    @Test("the deletion of documents finds them by key and removes exactly those")
    func deleteByKey() throws {
        try withUnanalysedView { store, connection, schema in
            let lookup = PostgresEventStore.documentsByKeySQL("\"\(schema)\"", columns: "kept.ctid")
            let text = try plan(connection, "DELETE FROM \"\(schema)\".view_documents WHERE ctid = ANY(ARRAY(\(lookup)))", "'favorites', 1, '{u5,nobody}'")
            #expect(text.contains("AND (key = wanted.key))"), "\(text)")
            #expect(!text.contains("Rows Removed by Filter") && !text.contains("Seq Scan"), "\(text)")
            // The plan above ran, deleting u5; the store's own deletion of u6 and u7 (and a key
            // without a document) keeps every other document.
            try store.commit(ViewChanges(projection: "favorites", generation: 1, documents: ["u6": nil, "u7": nil, "nobody": nil], fromPosition: 1, toPosition: 2))
            let left = try store.documents(of: "favorites", generation: 1, keys: (0..<Self.documents).map { "u\($0)" })
            #expect(left.count == Self.documents - 3)
            #expect(left["u5"] == nil && left["u6"] == nil && left["u7"] == nil && left["u8"] == Data(#"{"n":8}"#.utf8))
        }
    }
}
