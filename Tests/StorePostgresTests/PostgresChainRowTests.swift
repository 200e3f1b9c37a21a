import EventLog
import Foundation
@testable import StorePostgres
import Testing

/// verify's fast path on PostgreSQL (``ChainRowReading``): the rows' bytes it hands the
/// verifier are exactly what the ordinary read gives, the prefix it hands out is readAll's
/// gap-safe one, and a tampered row is still named by the ordinary check.
@Suite("PostgreSQL store: verify's fast path")
struct PostgresChainRowTests {
    /// Events with hostile text, every payload shape, and recording times before 1970, before
    /// 2000 (the wire's epoch), at odd microseconds and far ahead.
    static func appendVaried(_ store: PostgresEventStore) throws -> Int {
        let times: [Date?] = [
            nil, Date(timeIntervalSince1970: -1.000001), Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 946_684_799.999999),
            Date(timeIntervalSince1970: 946_684_800), Date(timeIntervalSince1970: 1_700_000_000.123457), Date(timeIntervalSince1970: 4_102_444_800.5),
        ]
        let streams = [#"user'; DROP TABLE events; --"#, "עברית-سلام", "🎉👩‍👩‍👧", "plain"]
        let payloads = [#"{"nul":"a\u0000b","u":"\ud83c\udf89"}"#, "  {\n\t\"spacing\" :  [1, 2.50]  }  ", #""just a string""#, "null"]
        var count = 0
        for (index, time) in times.enumerated() {
            let stream = streams[index % streams.count]
            let proposed = ProposedEvent(type: index % 2 == 0 ? "Searched" : #"Ty"pe 🎟️"#, data: Data(payloads[index % payloads.count].utf8),
                                         metadata: Data(#"{"by":"test","i":\#(index)}"#.utf8), recordedAt: time)
            try store.append(proposed, to: stream, expectedVersion: .any)
            count += 1
        }
        // A batch across streams too (the batch function, not the one-event one).
        try store.append([StreamAppend(stream: "plain", expectedVersion: .any, events: [event(), event("Favorited")]),
                          StreamAppend(stream: "other", expectedVersion: .noStream, events: [event("Viewed")])])
        return count + 3
    }

    @Test("each row's bytes are the ordinary read's: stream, id and time as text, type, payloads, hash")
    func rowsMatchTheOrdinaryRead() throws {
        try TestDatabase.withStore { store, _ in
            let count = try Self.appendVaried(store)
            let events = try store.readAll(after: 0, limit: 100)
            #expect(events.count == count)
            var seen = 0
            let (accepted, declined) = try store.forEachChainRow(after: 0, limit: 100) { row in
                let event = events[seen]
                #expect(row.position == event.position)
                #expect(row.version == event.version)
                #expect(Array(row.stream) == Array(event.streamID.utf8))
                #expect(String(decoding: row.idText, as: UTF8.self) == event.id.lowercaseString)
                #expect(Array(row.type) == Array(event.type.utf8))
                #expect(String(decoding: row.recordedAtText, as: UTF8.self) == Timestamp.format(event.recordedAt))
                #expect(Array(row.data) == Array(event.data))
                #expect(Array(row.metadata) == Array(event.metadata))
                #expect(Array(row.hashText) == Array(event.hash.utf8))
                seen += 1
                return true
            }
            #expect(accepted == count && seen == count && declined == nil)
            var verifier = try LogVerifier(store: store)
            let report = try verifier.verifyLog(batchSize: 3)
            #expect(report.events == Int64(count))
            #expect(report.head == events.last?.position)
        }
    }

    @Test("limits, a position to start after, and a declined row are reported as the protocol says")
    func limitsAndDeclining() throws {
        try TestDatabase.withStore { store, _ in
            let count = try Self.appendVaried(store)
            let events = try store.readAll(after: 0, limit: 100)
            var positions: [Int64] = []
            let page = try store.forEachChainRow(after: events[1].position, limit: 3) { positions.append($0.position); return true }
            #expect(page.accepted == 3 && page.declined == nil)
            #expect(positions == events[2...4].map(\.position))
            let stopped = try store.forEachChainRow(after: 0, limit: 100) { $0.position < events[4].position }
            #expect(stopped.accepted == 4 && stopped.declined == events[4].position)
            let empty = try store.forEachChainRow(after: events[count - 1].position, limit: 10) { _ in Issue.record("no row expected"); return true }
            #expect(empty.accepted == 0 && empty.declined == nil)
        }
    }

    @Test("rows committed behind a transaction still running wait for it, as readAll's do")
    func waitsLikeReadAll() throws {
        try TestDatabase.withStore { store, _ in
            try store.append(event(), to: "a", expectedVersion: .noStream)
            // A transaction with an id, older than the next append, still running; it ends
            // after 300 ms (other tests share the cluster: holding it for readAll's whole 2 s
            // would hold their reads back too).
            let blocker = Blocker(try PostgresConnection(conninfo: try TestDatabase.url()))
            _ = try blocker.connection.execute("BEGIN")
            _ = try blocker.connection.execute("SELECT pg_current_xact_id()")
            try store.append(event(), to: "b", expectedVersion: .noStream)
            let started = ContinuousClock.now
            let ended = DispatchSemaphore(value: 0)
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) {
                do { _ = try blocker.connection.execute("ROLLBACK") } catch { Issue.record("ROLLBACK failed: \(error)") }
                ended.signal()
            }
            defer { ended.wait() }
            var positions: [Int64] = []
            _ = try store.forEachChainRow(after: 0, limit: 10) { positions.append($0.position); return true }
            let waited = ContinuousClock.now - started
            #expect(positions.count == 2, "the row behind the running transaction was left out: \(positions)")
            #expect(waited >= .milliseconds(250), "handed out before the older transaction ended: \(waited)")
            #expect(positions == (try store.readAll(after: 0, limit: 10)).map(\.position))
        }
    }

    @Test("a row changed behind the store is declined by the fast path and named by the ordinary check")
    func tamperedRowIsNamed() throws {
        try TestDatabase.withStore { store, schema in
            _ = try Self.appendVaried(store)
            let target = try #require(try store.readAll(after: 0, limit: 100).dropFirst(2).first)
            try TestDatabase.execute("""
                ALTER TABLE \(schema).events DISABLE TRIGGER events_append_only;
                UPDATE \(schema).events SET data = '{"forged":true}' WHERE position = \(target.position)
                """)
            var verifier = try LogVerifier(store: store)
            do {
                _ = try verifier.verifyLog(batchSize: 2)
                Issue.record("verify passed a modified log")
            } catch let failure as VerificationFailure {
                #expect(failure.kind == .modified)
                #expect(failure.position == target.position)
            }
        }
    }
}

/// A connection handed to the thread that ends its transaction.
private final class Blocker: @unchecked Sendable {
    // @unchecked: the test thread uses it before handing it over, the timer thread after.
    let connection: PostgresConnection
    init(_ connection: PostgresConnection) { self.connection = connection }
}
