import EventLog
import Foundation
@testable import StorePostgres
import Testing

/// Schema 19: a batched append inserts its events by walking its arrays once, not by a
/// subscript per event (which costs time in the square of the batch for arrays of
/// variable-length values).
@Suite("PostgreSQL: batched appends walk their arrays once (schema 19)")
struct PostgresBatchAppendTests {
    static let batchFunctions = "('append', 'append_returning_hashes', 'append_copied')"

    @Test("a batch of interleaved streams goes to each stream at its versions, in batch order, chained; no function reads an event by subscript; the upgrade runs again over itself")
    func interleavedBatch() throws {
        try TestDatabase.withStore { store, name in
            // 7 streams, 2 events a part, 150 parts: each stream's parts are far apart.
            var parts: [StreamAppend] = []
            for part in 0..<150 {
                let events = (0..<2).map { ProposedEvent(type: "Noted", data: Data("{\"part\":\(part),\"n\":\($0)}".utf8)) }
                parts.append(StreamAppend(stream: "user-\(part % 7)", expectedVersion: .any, events: events))
            }
            let results = try store.append(parts)
            #expect(results.count == 150)
            for stream in 0..<7 {
                let events = try store.read(stream: "user-\(stream)", from: 1, direction: .forwards, limit: 1_000)
                let expected = parts.enumerated().filter { $0.offset % 7 == stream }.flatMap(\.element.events)
                #expect(events.map(\.version) == Array(1...Int64(expected.count)), "user-\(stream)")
                #expect(events.map(\.id) == expected.map(\.id), "user-\(stream): in batch order")
                #expect(events.map(\.position) == events.map(\.position).sorted())
            }
            // The positions follow the batch: the k-th event of the batch is at first + k - 1.
            let all = try store.readAll(after: 0, limit: 1_000)
            #expect(all.map(\.id) == parts.flatMap(\.events).map(\.id))
            // One stream alone, many events (the one-part branch).
            let long = (0..<500).map { ProposedEvent(type: "Noted", data: Data("{\"n\":\($0)}".utf8)) }
            try store.append(long, to: "user-long", expectedVersion: .noStream)
            #expect(try store.read(stream: "user-long", from: 1, direction: .forwards, limit: 1_000).map(\.id) == long.map(\.id))
            var verifier = try LogVerifier(store: store)
            #expect(try verifier.verifyLog().events == 800)

            let subscripts = "SELECT count(*) FROM pg_proc WHERE pronamespace = '\(name)'::regnamespace AND proname IN \(Self.batchFunctions) AND prosrc LIKE '%p_data[k]%'"
            #expect(try TestDatabase.execute(subscripts) == "0")
            let functions = "SELECT md5(string_agg(prosrc, '' ORDER BY proname)) FROM pg_proc WHERE pronamespace = '\(name)'::regnamespace"
            let before = try TestDatabase.execute(functions)
            try TestDatabase.execute(try PostgresSchema(name: name).migrations[18])
            #expect(try TestDatabase.execute(functions) == before)
        }
    }
}
