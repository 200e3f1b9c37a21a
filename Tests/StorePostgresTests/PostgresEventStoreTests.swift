import EventLog
import Foundation
@testable import StorePostgres
import Synchronization
import Testing

@Suite("PostgreSQL store: appends, reads and the exact bytes")
struct PostgresEventStoreTests {
    @Test("append and read back a stream and the log")
    func appendAndRead() throws {
        try TestDatabase.withStore { store, _ in
            let first = try store.append([event(), event("Favorited")], to: "user-1", expectedVersion: .noStream)
            #expect(first.streamVersion == 2)
            #expect(first.positions.count == 2)
            let second = try store.append(event("Viewed"), to: "user-2", expectedVersion: .any)
            #expect(second.streamVersion == 1)
            #expect(second.positions.lowerBound > first.positions.upperBound)

            let stream = try store.read(stream: "user-1")
            #expect(stream.map(\.version) == [1, 2])
            #expect(stream.map(\.type) == ["Searched", "Favorited"])
            let all = try store.readAll(after: 0, limit: 100)
            #expect(all.map(\.position) == Array(first.positions) + Array(second.positions))
            #expect(try store.headPosition() == second.positions.upperBound)
            #expect(try store.version(of: "user-1") == 2)
            #expect(try store.version(of: "nobody") == 0)
            let backwards = try store.read(stream: "user-1", from: .max, direction: .backwards, limit: 10)
            #expect(backwards.map(\.version) == [2, 1])
            #expect(abs(all[0].recordedAt.timeIntervalSinceNow) < 60)
        }
    }

    @Test("expected versions: no stream, exists, exactly, any")
    func expectedVersions() throws {
        try TestDatabase.withStore { store, _ in
            #expect(throws: EventStoreError.wrongExpectedVersion(stream: "s", expected: .streamExists, actual: 0)) {
                try store.append(event(), to: "s", expectedVersion: .streamExists)
            }
            try store.append(event(), to: "s", expectedVersion: .exactly(0))
            try store.append(event(), to: "s", expectedVersion: .exactly(1))
            #expect(throws: EventStoreError.wrongExpectedVersion(stream: "s", expected: .exactly(1), actual: 2)) {
                try store.append(event(), to: "s", expectedVersion: .exactly(1))
            }
            #expect(throws: EventStoreError.wrongExpectedVersion(stream: "s", expected: .noStream, actual: 2)) {
                try store.append(event(), to: "s", expectedVersion: .noStream)
            }
            #expect(try store.append(event(), to: "s", expectedVersion: .streamExists).streamVersion == 3)
            #expect(try store.append(event(), to: "s", expectedVersion: .any).streamVersion == 4)
        }
    }

    @Test("a duplicate event id is refused and nothing of the batch is written")
    func duplicateID() throws {
        try TestDatabase.withStore { store, schemaName in
            let id = UUID()
            try store.append(event(id: id), to: "a", expectedVersion: .any)
            #expect(throws: EventStoreError.duplicateEventID(id)) {
                try store.append([event(), event(id: id), event()], to: "b", expectedVersion: .any)
            }
            #expect(try store.version(of: "b") == 0)
            #expect(try store.readAll(after: 0, limit: 10).count == 1)
            // No session keeps this schema's reservation lock after a failed append (the
            // function releases it before the insert that failed).
            let held = try TestDatabase.execute("SELECT count(*) FROM pg_locks WHERE relation = '\(schemaName).append_reservation'::regclass")
            #expect(held == "0")
            // Positions keep rising after a failed append (gaps are allowed).
            let next = try store.append(event(), to: "b", expectedVersion: .any)
            #expect(next.positions.lowerBound >= 2)
        }
    }

    @Test("a writer of the same stream with later positions that commits first: the function refuses (EV001), the store calls again, versions stay in position order")
    func laterPositionsCommittedFirst() throws {
        try TestDatabase.withStore { store, name in
            try store.append(event(), to: "s", expectedVersion: .noStream)
            try store.append(event(), to: "a", expectedVersion: .noStream)
            // Hold stream a's row (as the owner), so that an append to a and s reserves its
            // positions, then waits before it reaches s's row.
            let blocker = try PostgresConnection(conninfo: try TestDatabase.url())
            _ = try blocker.execute("BEGIN")
            _ = try blocker.execute("SELECT 1 FROM \(name).streams WHERE stream_id = 'a' FOR UPDATE")
            let outcome = Outcome()
            let both = Mutex<[AppendResult]>([])
            let writer = Thread {
                do {
                    let results = try store.append([StreamAppend(stream: "a", expectedVersion: .exactly(1), events: [event()]),
                                                    StreamAppend(stream: "s", expectedVersion: .any, events: [event(), event()])])
                    both.withLock { $0 = results }
                    outcome.set("appended")
                } catch { outcome.set(error) }
            }
            writer.start()
            var waiting = "0"
            for _ in 0..<500 where waiting == "0" {
                Thread.sleep(forTimeInterval: 0.01)
                waiting = try TestDatabase.execute("""
                    SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%\(name)%append%'
                    """) ?? "0"
            }
            #expect(waiting == "1")
            // Meanwhile a later append to s reserves higher positions and commits first.
            let other = try PostgresEventStore(url: try TestDatabase.url(), schema: name)
            let later = try other.append(event(), to: "s", expectedVersion: .exactly(1))
            _ = try blocker.execute("ROLLBACK")
            let result = outcome.wait()
            #expect((result as? Outcome.TextResult)?.text == "appended", "\(String(describing: result))")
            let results = both.withLock { $0 }
            #expect(results.map(\.streamVersion) == [2, 4])
            // The first try's positions (below `later`'s) are a gap; the second try's are above it.
            #expect(results.first.map { $0.positions.lowerBound > later.positions.upperBound } == true, "\(results) vs \(later)")
            let log = try store.readAll(after: 0, limit: 100)
            #expect(log.filter { $0.streamID == "s" }.map(\.version) == [1, 2, 3, 4])
            #expect(log.count == 6 && log.last?.position ?? 0 > 6, "no gap: \(log.map(\.position))")
            var verifier = try LogVerifier(store: store)
            #expect(try verifier.verifyLog().events == 6)
        }
    }

    @Test("hostile strings and payloads come back byte for byte")
    func hostileStrings() throws {
        try TestDatabase.withStore { store, _ in
            let streams = [
                #"user'; DROP TABLE events; --"#, #"a"b\c{d},e"#, "{}", "NULL", #"\"#, "עברית-سلام", "🎉👩‍👩‍👧", "a$1", "%s %n",
            ]
            // A new type holds no invisible character (a right-to-left mark would show another
            // name): refused here, and right-to-left text that is visible kept byte for byte.
            #expect(throws: EventStoreError.self) { try store.append(ProposedEvent(type: "\u{200F}RTL\u{200F}", data: Data("{}".utf8)), to: "rtl", expectedVersion: .any) }
            let types = [#"Ty"pe"#, #"back\slash"#, "{brace}", "co,mma", "NULL", "emoji 🎟️", "עברית RTL", " spaced "]
            let payloads = [
                #"{"nul":"a\u0000b","q":"\"quoted\"","b":"back\\slash","u":"\ud83c\udf89"}"#,
                #"["{", "}", ",", "NULL", null]"#,
                #"{"rtl":"‏مرحبا‏","emoji":"🎉","zwj":"👩‍👩‍👧"}"#,
                "  {\n\t\"spacing\" :  [1, 2.50, -0.0e+1]  }  ",
                #""just a string""#, "42", "null", "true",
            ]
            var appended: [(String, ProposedEvent)] = []
            for (index, stream) in streams.enumerated() {
                let batch = (0..<3).map { offset in
                    ProposedEvent(type: types[(index + offset) % types.count],
                                  data: Data(payloads[(index + offset) % payloads.count].utf8),
                                  metadata: Data(payloads[(index + offset + 1) % payloads.count].utf8))
                }
                _ = try store.append(batch, to: stream, expectedVersion: .noStream)
                appended += batch.map { (stream, $0) }
            }
            let all = try store.readAll(after: 0, limit: 1_000)
            #expect(all.count == appended.count)
            for (recorded, (stream, proposed)) in zip(all, appended) {
                #expect(recorded.streamID == stream)
                #expect(recorded.id == proposed.id)
                #expect(recorded.type == proposed.type)
                #expect(recorded.data == proposed.data)
                #expect(recorded.metadata == proposed.metadata)
            }
            for stream in streams {
                #expect(try store.read(stream: stream).count == 3)
                #expect(try store.version(of: stream) == 3)
            }
        }
    }

    @Test("a 1 MB payload is stored and read back exactly")
    func largePayload() throws {
        try TestDatabase.withStore { store, _ in
            var text = #"{"blob":""#
            let unit = #"héllo \"wörld\" \\ {}, 🎉 "#
            while text.utf8.count < 1_048_576 { text += unit }
            text += #""}"#
            let big = ProposedEvent(type: "Big", data: Data(text.utf8))
            _ = try store.append([big, event()], to: "big", expectedVersion: .any)
            let read = try store.read(stream: "big")
            #expect(read.first?.data == big.data)
            #expect(read.count == 2)
        }
    }

    @Test("invalid input is refused before the database sees it")
    func invalidInput() throws {
        try TestDatabase.withStore { store, _ in
            #expect(throws: EventStoreError.self) { try store.append([], to: "s", expectedVersion: .any) }
            #expect(throws: EventStoreError.self) { try store.append(event("T", "{not json"), to: "s", expectedVersion: .any) }
            #expect(throws: EventStoreError.self) { try store.append(event(), to: "", expectedVersion: .any) }
            let head = try store.headPosition()
            #expect(head == 0)
        }
    }

    @Test("psql users can query the json columns")
    func queryableJSON() throws {
        try TestDatabase.withStore { store, schema in
            try store.append(event("Searched", #"{"q":"jazz","n":3}"#), to: "u", expectedVersion: .any)
            let value = try TestDatabase.execute("SELECT data->>'q' FROM \(schema).events")
            #expect(value == "jazz")
        }
    }

    @Test("events are append-only in the database")
    func appendOnly() throws {
        try TestDatabase.withStore { store, schema in
            try store.append(event(), to: "u", expectedVersion: .any)
            #expect(throws: PostgresError.self) { try TestDatabase.execute("DELETE FROM \(schema).events") }
            #expect(throws: PostgresError.self) { try TestDatabase.execute("UPDATE \(schema).events SET type = 'x'") }
            #expect(try store.readAll(after: 0, limit: 10).count == 1)
        }
    }

    @Test("concurrent appends to one stream with .any all succeed, even if the server defaults to SERIALIZABLE")
    func concurrentAnyAppends() throws {
        let url = try TestDatabase.url()
        let strict = url + (url.contains("?") ? "&" : "?") + "options=-c%20default_transaction_isolation%3Dserializable"
        let schema = TestDatabase.freshSchema()
        defer { try? PostgresEventStore.dropSchema(url: url, schema: schema) }
        let store = try PostgresEventStore(url: strict, schema: schema)
        let failures = Failures()
        let threads = (0..<4).map { writer in
            Thread {
                for index in 0..<30 {
                    do { _ = try store.append(event("T", #"{"w":\#(writer),"i":\#(index)}"#), to: "hot", expectedVersion: .any) }
                    catch { failures.add("\(error)") }
                }
            }
        }
        threads.forEach { $0.start() }
        while threads.contains(where: { !$0.isFinished }) { Thread.sleep(forTimeInterval: 0.01) }
        #expect(failures.all.isEmpty, "\(failures.all.prefix(3))")
        #expect(try store.read(stream: "hot").map(\.version) == Array(1...120))
    }
}
