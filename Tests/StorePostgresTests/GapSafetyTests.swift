import EventLog
import Foundation
@testable import StorePostgres
import Synchronization
import TestSupport
import Testing

/// The sequence-gap problem: a follower reading by position must never skip an event that
/// commits after a later-positioned one.
@Suite("PostgreSQL store: gap-safe global order under concurrent writers")
struct GapSafetyTests {
    /// Makes commits land out of position order often: each insert sleeps 0–3 ms after the
    /// positions are reserved, so a writer with a smaller position often commits later.
    static func addJitter(schema: String, url: String? = nil) throws {
        let connection = try PostgresConnection(conninfo: try url ?? TestDatabase.url())
        try connection.execute("""
            CREATE FUNCTION \(schema).jitter() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN PERFORM pg_sleep(random() * 0.003); RETURN NULL; END $$;
            CREATE TRIGGER jitter AFTER INSERT ON \(schema).events FOR EACH STATEMENT EXECUTE FUNCTION \(schema).jitter();
            """)
    }

    @Test("writer processes and threads append at once; the follower sees every event once, in rebuild order")
    func concurrentWritersAndFollower() throws {
        let url = try TestDatabase.url()
        let schema = TestDatabase.freshSchema()
        defer { try? PostgresEventStore.dropSchema(url: url, schema: schema) }
        _ = try PostgresEventStore(url: url, schema: schema)
        try Self.addJitter(schema: schema)
        try Self.followersSeeEveryEvent(writingTo: url, readingFrom: url, schema: schema)
    }

    /// Writer processes (psql) and threads append to `url` at once while two followers read
    /// `readURL` by position (the same server, or a standby of it whose commits are applied
    /// before they are acknowledged): each follower must see every event once, in the
    /// rebuild's order.
    static func followersSeeEveryEvent(writingTo url: String, readingFrom readURL: String, schema: String) throws {

        let threadWriters = 4, processWriters = 2, appendsPerWriter = 120
        let committed = Mutex<Set<UUID>>([])
        let failures = Failures()
        let writersLeft = Counter(threadWriters + processWriters)

        // Writer processes: psql sessions calling the append function directly, one
        // autocommit statement per append, to overlapping and their own streams. Like any
        // caller, they call again when the function answers EV001 (a writer of the same
        // stream with later positions committed first); any other error stops the script.
        var processes: [Thread] = []
        for writer in 0..<processWriters {
            var script = "\\set ON_ERROR_STOP 0\n"
            var ids: [UUID] = []
            for index in 0..<appendsPerWriter {
                let count = 1 + index % 3
                let batch = (0..<count).map { _ in UUID() }
                ids += batch
                let stream = index % 2 == 0 ? "shared-\(index % 3)" : "process-\(writer)"
                let uuids = batch.map { "'\($0.lowercaseString)'" }.joined(separator: ",")
                let types = Array(repeating: "'Viewed'", count: count).joined(separator: ",")
                let data = (0..<count).map { "'{\"w\":\"p\(writer)\",\"i\":\(index),\"k\":\($0)}'" }.joined(separator: ",")
                let meta = Array(repeating: "'{}'", count: count).joined(separator: ",")
                let times = Array(repeating: "NULL", count: count).joined(separator: ",")
                let call = "SELECT status FROM \(schema).append(ARRAY['\(stream)'], ARRAY[0], ARRAY[0::bigint], ARRAY[\(count)], ARRAY[\(uuids)]::uuid[], ARRAY[\(types)]::text[], ARRAY[\(data)]::json[], ARRAY[\(meta)]::json[], ARRAY[\(times)]::timestamptz[]);\n"
                let attempts = 8
                script += call + "SELECT :'SQLSTATE' AS last, :'SQLSTATE' = 'EV001' AS again \\gset\n"
                for _ in 1..<attempts {
                    script += "\\if :again\n" + call + "SELECT :'SQLSTATE' AS last, :'SQLSTATE' = 'EV001' AS again \\gset\n"
                }
                script += String(repeating: "\\endif\n", count: attempts - 1)
                script += "\\set ON_ERROR_STOP 1\nSELECT 1 / (:'last' = '00000')::int;\n\\set ON_ERROR_STOP 0\n"
            }
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("evtool-\(schema)-\(writer).sql")
            try script.write(to: file, atomically: true, encoding: .utf8)
            let arguments = ["psql", "-X", "-q", "-o", "/dev/null", "-d", url, "-f", file.path]
            let batchIDs = ids
            processes.append(Thread {
                defer { writersLeft.add(-1); try? FileManager.default.removeItem(at: file) }
                do {
                    let (status, _) = try ChildProcess.run(arguments)
                    if status == 0 { committed.withLock { $0.formUnion(batchIDs) } } else { failures.add("psql writer exited with \(status)") }
                } catch {
                    failures.add("psql writer: \(error)")
                }
            })
        }

        // Writer threads: each its own store (own connections), appending with expected
        // versions to their own stream and with `.any` to the shared ones.
        let threads = (0..<threadWriters).map { writer in
            Thread {
                defer { writersLeft.add(-1) }
                do {
                    let store = try PostgresEventStore(url: url, schema: schema)
                    var own: Int64 = 0
                    for index in 0..<appendsPerWriter {
                        let batch = (0..<(1 + index % 3)).map { _ in event("Searched", #"{"w":"t\#(writer)","i":\#(index)}"#) }
                        if index % 2 == 0 {
                            _ = try store.append(batch, to: "shared-\(index % 3)", expectedVersion: .any)
                        } else {
                            own = try store.append(batch, to: "thread-\(writer)", expectedVersion: .exactly(own)).streamVersion
                        }
                        committed.withLock { $0.formUnion(batch.map(\.id)) }
                    }
                } catch {
                    failures.add("writer \(writer): \(error)")
                }
            }
        }

        // The followers stop at the deadline below at the latest.
        let giveUp = Date().addingTimeInterval(110)
        // The follower: reads by position while the writers run.
        let follower = try PostgresEventStore(url: readURL, schema: schema, createIfMissing: false)
        let seen = Mutex<[RecordedEvent]>([])
        let followerDone = Counter(0)
        let followerThread = Thread {
            defer { followerDone.add(1) }
            var cursor: Int64 = 0
            do {
                while true {
                    let finished = writersLeft.value == 0
                    let batch = try follower.readAll(after: cursor, limit: 37)
                    if let last = batch.last { cursor = last.position }
                    let count = seen.withLock { $0 += batch; return $0.count }
                    // An empty batch after the writers finished is not the end: what a follower
                    // may take stops at the cluster's oldest running transaction, which other
                    // tests on the shared server hold open. Go on until every committed event.
                    if finished && batch.isEmpty && (count >= committed.withLock({ $0.count }) || Date() > giveUp) { return }
                }
            } catch {
                failures.add("follower: \(error)")
            }
        }

        // A second follower: PostgresFollower, woken by NOTIFY, reading the same way.
        let notified = Mutex<[RecordedEvent]>([])
        let notifiedDone = Counter(0)
        let notifiedThread = Thread {
            defer { notifiedDone.add(1) }
            do {
                let follower = try PostgresFollower(url: readURL, schema: schema, recheckInterval: .milliseconds(500))
                while true {
                    let finished = writersLeft.value == 0
                    let batch = try follower.next(timeout: .milliseconds(100), limit: 53)
                    let count = notified.withLock { $0 += batch; return $0.count }
                    if finished && batch.isEmpty && (count >= committed.withLock({ $0.count }) || Date() > giveUp) { return }
                }
            } catch {
                failures.add("notified follower: \(error)")
            }
        }

        followerThread.start()
        notifiedThread.start()
        processes.forEach { $0.start() }
        threads.forEach { $0.start() }
        let deadline = Date().addingTimeInterval(120)
        while !(followerDone.value == 1 && notifiedDone.value == 1) && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(notifiedDone.value == 1, "the notified follower did not finish in time")
        #expect((followerDone.value == 1), "the follower did not finish in time")
        #expect(failures.all.isEmpty, "\(failures.all)")

        let followed = seen.withLock { $0 }
        let rebuild = try PostgresEventStore(url: url, schema: schema).readAll(after: 0, limit: 1_000_000)
        let expected = committed.withLock { $0 }
        #expect(expected.count > 1_000)
        #expect(rebuild.count == expected.count)
        #expect(Set(rebuild.map(\.id)) == expected)
        #expect(followed.count == rebuild.count, "the follower saw \(followed.count) events, the rebuild \(rebuild.count)")
        #expect(Set(followed.map(\.id)).count == followed.count, "the follower saw an event twice")
        #expect(followed.map(\.id) == rebuild.map(\.id), "the follower's order differs from the rebuild's")
        #expect(notified.withLock { $0 }.map(\.id) == rebuild.map(\.id), "PostgresFollower's events differ from the rebuild's")
        #expect(zip(rebuild, rebuild.dropFirst()).allSatisfy { $0.position < $1.position })
        try expectTransactionOrderFollowsPositions(url: url, schema: schema)
        // Per-stream versions are 1…n without gaps.
        for stream in Set(rebuild.map(\.streamID)) {
            let versions = rebuild.filter { $0.streamID == stream }.map(\.version)
            #expect(versions == Array(1...Int64(versions.count)), "stream \(stream)")
        }
    }

    /// The rule every reader's safety rests on (docs/explanation/ordering.md, "Why no event is
    /// skipped"): among the log's rows, transaction ids never fall as positions rise.
    static func expectTransactionOrderFollowsPositions(url: String, schema: String) throws {
        let inversions = PostgresResultText.value(try PostgresConnection(conninfo: url).execute("""
            SELECT count(*) FILTER (WHERE tx_id < previous) || ' of ' || count(*)
            FROM (SELECT tx_id, lag(tx_id) OVER (ORDER BY position) AS previous FROM \(schema).events) AS ordered
            """)) ?? "?"
        #expect(inversions.hasPrefix("0 of ") && inversions != "0 of 0", "rows with a smaller transaction id than the row before them: \(inversions)")
    }

    @Test("eight one-event writers and a batched writer at once, no jitter: every append lands once, and transaction ids rise with positions (the one-event reservation takes no lock writers wait for)")
    func oneEventWritersKeepTransactionOrder() throws {
        let url = try TestDatabase.url()
        let schema = TestDatabase.freshSchema()
        defer { try? PostgresEventStore.dropSchema(url: url, schema: schema) }
        _ = try PostgresEventStore(url: url, schema: schema)
        let failures = Failures()
        let appended = Counter(0)
        let done = Counter(0)
        let writers = (0..<9).map { writer in
            Thread {
                defer { done.add(1) }
                do {
                    let store = try PostgresEventStore(url: url, schema: schema)
                    for index in 0..<150 {
                        let count = writer == 8 ? 1 + index % 40 : 1
                        let batch = (0..<count).map { _ in event("Searched", #"{"w":\#(writer),"i":\#(index)}"#) }
                        _ = try store.append(batch, to: index % 2 == 0 ? "shared-\(index % 5)" : "writer-\(writer)", expectedVersion: .any)
                        appended.add(count)
                    }
                } catch {
                    failures.add("writer \(writer): \(error)")
                }
            }
        }
        writers.forEach { $0.start() }
        let deadline = Date().addingTimeInterval(120)
        while done.value < writers.count && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(done.value == writers.count, "the writers did not finish in time")
        #expect(failures.all.isEmpty, "\(failures.all)")
        let log = try PostgresEventStore(url: url, schema: schema).readAll(after: 0, limit: 1_000_000)
        #expect(log.count == appended.value)
        #expect(Set(log.map(\.id)).count == log.count)
        try Self.expectTransactionOrderFollowsPositions(url: url, schema: schema)
        var verifier = try LogVerifier(store: PostgresEventStore(url: url, schema: schema))
        #expect(try verifier.verifyLog().events == log.count)
    }

    @Test("the control: reading by position alone (no transaction-id filter) can skip late commits")
    func naiveReaderCanSkip() throws {
        // Not an assertion that gaps happen (timing decides), but evidence that the workload
        // above produces out-of-order commits: the count is printed.
        let url = try TestDatabase.url()
        let schema = TestDatabase.freshSchema()
        defer { try? PostgresEventStore.dropSchema(url: url, schema: schema) }
        _ = try PostgresEventStore(url: url, schema: schema)
        try Self.addJitter(schema: schema)
        let total = Counter(0)
        let failures = Failures()
        let writers = (0..<4).map { writer in
            Thread {
                do {
                    let store = try PostgresEventStore(url: url, schema: schema)
                    for index in 0..<100 {
                        _ = try store.append(event("T", #"{"i":\#(index)}"#), to: "w\(writer)", expectedVersion: .any)
                        total.add(1)
                    }
                } catch {
                    failures.add("writer \(writer): \(error)")
                }
            }
        }
        writers.forEach { $0.start() }
        let raw = try PostgresConnection(conninfo: url)
        var cursor: Int64 = 0, naiveSeen = 0
        while writers.contains(where: { !$0.isFinished }) {
            let result = try raw.execute("SELECT position FROM \(schema).events WHERE position > \(cursor) ORDER BY position")
            for row in 0..<result.rowCount { cursor = Int64(result.string(row: row, column: 0))!; naiveSeen += 1 }
        }
        let finalCount = total.value
        let rest = try raw.execute("SELECT count(*) FROM \(schema).events WHERE position > \(cursor)")
        let skipped = finalCount - naiveSeen - (Int(PostgresResultText.value(rest) ?? "0") ?? 0)
        print("control: a position-only follower skipped \(skipped) of \(finalCount) events (late commits)")
        #expect(failures.all.isEmpty, "\(failures.all)")
        #expect(finalCount == 400)
        #expect(naiveSeen > 0, "the naive reader read nothing while the writers ran")
    }
}

/// A counter shared between threads.
final class Counter: Sendable {
    private let count: Mutex<Int>
    init(_ start: Int) { count = Mutex(start) }
    func add(_ delta: Int) { count.withLock { $0 += delta } }
    var value: Int { count.withLock { $0 } }
}
