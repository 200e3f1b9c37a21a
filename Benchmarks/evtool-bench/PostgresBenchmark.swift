import CLibPQ
import EventLog
import Foundation
import StorePostgres

/// The PostgreSQL store against the best plain use of libpq on the same server, the same
/// rows and the same table (the raw runs write into a schema the store created): `COPY`
/// for bulk loads, a prepared single-row `INSERT` per transaction, and one `SELECT`.
struct PostgresBenchmark {
    let url: String
    private var schemaNumber = 0

    init(url: String) { self.url = url }

    /// A new, empty store schema (dropped first if present).
    mutating func freshSchema(_ label: String) throws -> String {
        schemaNumber += 1
        let schema = "bench_\(label)_\(getpid())_\(schemaNumber)"
        try PostgresEventStore.dropSchema(url: url, schema: schema)
        _ = try PostgresEventStore(url: url, schema: schema)
        return schema
    }

    func drop(_ schema: String) { try? PostgresEventStore.dropSchema(url: url, schema: schema) }

    // MARK: - evtool

    /// Appends `rows` through the store, `batchSize` rows per append, each with its expected version.
    func ourAppend(_ rows: [BenchRow], batchSize: Int, schema: String) throws -> Double {
        let store = try PostgresEventStore(url: url, schema: schema)
        return try Measurement.seconds {
            var start = 0
            while start < rows.count {
                let end = min(start + batchSize, rows.count)
                let first = rows[start]
                try store.append(rows[start..<end].map(\.event), to: first.stream, expectedVersion: .exactly(first.version - 1))
                start = end
            }
        }
    }

    /// One event per append with its expected version, from `writers` threads sharing one
    /// store (one connection each); thread i appends the rows of the streams with
    /// index ≡ i (mod writers), in order, so every expected version holds.
    func ourConcurrentAppend(_ rows: [BenchRow], writers: Int, schema: String) throws -> Double {
        let store = try PostgresEventStore(url: url, schema: schema, maximumIdleConnections: writers)
        var shares = [[BenchRow]](repeating: [], count: writers)
        for row in rows { shares[abs(row.stream.hashValue) % writers].append(row) }
        let failures = FailureBox()
        let shared = shares
        return Measurement.seconds {
            Measurement.onThreads(writers) { writer in
                do {
                    for row in shared[writer] {
                        try store.append([row.event], to: row.stream, expectedVersion: .exactly(row.version - 1))
                    }
                } catch {
                    failures.record("\(error)")
                }
            }
            if let failure = failures.first { fatalError("concurrent append failed: \(failure)") }
        }
    }

    /// Reads the whole log through the store in batches; returns seconds and events read.
    func ourRead(schema: String, batchSize: Int = 1_000) throws -> (seconds: Double, count: Int) {
        try Measurement.timedRead(try PostgresEventStore(url: url, schema: schema), batchSize: batchSize)
    }

    // MARK: - Raw libpq

    private func rawConnect(_ conninfo: String? = nil) -> OpaquePointer {
        guard let connection = PQconnectdb(conninfo ?? url), PQstatus(connection) == CONNECTION_OK else { fatalError("raw connect failed") }
        return connection
    }

    private func rawExec(_ connection: OpaquePointer, _ sql: String, expect: ExecStatusType = PGRES_COMMAND_OK) {
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        guard PQresultStatus(result) == expect else { fatalError("raw exec failed: \(String(cString: PQerrorMessage(connection)))") }
    }

    /// `COPY … FROM STDIN` (text format) of `rows` into the store's table, one transaction.
    func rawCopy(_ rows: [BenchRow], schema: String) -> Double {
        let connection = rawConnect()
        defer { PQfinish(connection) }
        let recordedAt = Timestamp.format(Date())
        return Measurement.seconds {
            rawExec(connection, "COPY \(schema).events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id) FROM STDIN", expect: PGRES_COPY_IN)
            var buffer: [UInt8] = []
            buffer.reserveCapacity(1 << 20)
            func flush() {
                let sent = buffer.withUnsafeBufferPointer { raw in
                    raw.baseAddress!.withMemoryRebound(to: CChar.self, capacity: raw.count) { PQputCopyData(connection, $0, Int32(raw.count)) }
                }
                guard sent == 1 else { fatalError("COPY data failed") }
                buffer.removeAll(keepingCapacity: true)
            }
            func field(_ bytes: some Sequence<UInt8>) {
                for byte in bytes {
                    switch byte {
                    case UInt8(ascii: "\\"): buffer += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
                    case UInt8(ascii: "\t"): buffer += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
                    case UInt8(ascii: "\n"): buffer += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
                    case UInt8(ascii: "\r"): buffer += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
                    default: buffer.append(byte)
                    }
                }
            }
            let tab = UInt8(ascii: "\t")
            for (index, row) in rows.enumerated() {
                buffer += String(index + 1).utf8; buffer.append(tab)
                field(row.stream.utf8); buffer.append(tab)
                buffer += String(row.version).utf8; buffer.append(tab)
                buffer += row.idText.utf8; buffer.append(tab)
                field(row.event.type.utf8); buffer.append(tab)
                field(row.event.data); buffer.append(tab)
                field(row.event.metadata); buffer.append(tab)
                buffer += recordedAt.utf8; buffer.append(tab)
                buffer += "1".utf8; buffer.append(UInt8(ascii: "\n"))
                if buffer.count > 1 << 19 { flush() }
            }
            flush()
            guard PQputCopyEnd(connection, nil) == 1 else { fatalError("COPY end failed") }
            while let result = PQgetResult(connection) {
                defer { PQclear(result) }
                guard PQresultStatus(result) == PGRES_COMMAND_OK else { fatalError("COPY failed: \(String(cString: PQerrorMessage(connection)))") }
            }
        }
    }

    /// A prepared single-row `INSERT`, one autocommit transaction per row, over `writers`
    /// connections (one thread each; row i goes to connection i mod `writers`).
    func rawSingleInserts(_ rows: [BenchRow], schema: String, writers: Int = 1) -> Double {
        let connections = (0..<writers).map { _ in RawConnection(rawConnect()) }
        defer { connections.forEach { PQfinish($0.handle) } }
        for connection in connections {
            let prepared = PQprepare(connection.handle, "insert", """
                INSERT INTO \(schema).events (position, stream_id, version, event_id, type, data, metadata, recorded_at, tx_id)
                VALUES ($1, $2, $3, $4, $5, $6, $7, now(), pg_current_xact_id())
                """, 0, nil)
            guard PQresultStatus(prepared) == PGRES_COMMAND_OK else { fatalError("raw prepare failed: \(String(cString: PQerrorMessage(connection.handle)))") }
            PQclear(prepared)
        }
        return Measurement.seconds {
            Measurement.onThreads(writers) { writer in
                let connection = connections[writer].handle
                for index in stride(from: writer, to: rows.count, by: writers) {
                    let row = rows[index]
                    let values = [String(index + 1), row.stream, String(row.version), row.idText, row.event.type,
                                  String(decoding: row.event.data, as: UTF8.self), String(decoding: row.event.metadata, as: UTF8.self)]
                    let copies = values.map { strdup($0) }
                    defer { copies.forEach { free($0) } }
                    let pointers = copies.map { UnsafePointer($0) }
                    let result = PQexecPrepared(connection, "insert", 7, pointers, nil, nil, 0)
                    defer { PQclear(result) }
                    guard PQresultStatus(result) == PGRES_COMMAND_OK else { fatalError("raw insert failed: \(String(cString: PQerrorMessage(connection)))") }
                }
            }
        }
    }

    /// The same benchmark on connections that do not wait for the disk's flush at commit
    /// (`synchronous_commit = off` through libpq's `options`, on every connection it and its
    /// stores open): what each append costs in processor time alone.
    func withoutFlushWait() throws -> PostgresBenchmark {
        var failure: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(url, &failure) else {
            let message = failure.map { String(cString: $0) } ?? "unreadable"
            if let failure { PQfreemem(failure) }
            throw CLIError(message: "--postgres: \(message)", code: .usage)
        }
        defer { PQconninfoFree(options) }
        var settings: [String] = []
        var given = ""
        var index = 0
        while let keyword = options[index].keyword {
            defer { index += 1 }
            guard let value = options[index].val else { continue }
            let key = String(cString: keyword)
            if key == "options" { given = String(cString: value) + " "; continue }
            settings.append(Self.setting(key, String(cString: value)))
        }
        settings.append(Self.setting("options", given + "-c synchronous_commit=off"))
        return PostgresBenchmark(url: settings.joined(separator: " "))
    }

    /// One `key='value'` of a libpq connection string, the value quoted as libpq reads it.
    private static func setting(_ key: String, _ value: String) -> String {
        "\(key)='" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    /// The same server's `message_store` database, when message-db is installed in it
    /// (../shared/bench/README: message-db's `database/install.sh` with that server's
    /// PGHOST/PGPORT): the URL for it, or nil.
    func messageDBURL() -> String? {
        // libpq reads the URL (or key/value string) itself: every setting but the database is
        // kept as given, however its query is written (`?host=/tmp` holds a slash).
        var failure: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(url, &failure) else {
            if let failure { PQfreemem(failure) }
            return nil
        }
        defer { PQconninfoFree(options) }
        var settings: [String] = []
        var index = 0
        while let keyword = options[index].keyword {
            defer { index += 1 }
            let key = String(cString: keyword)
            guard key != "dbname", let value = options[index].val else { continue }
            settings.append(Self.setting(key, String(cString: value)))
        }
        let candidate = (settings + ["dbname=message_store"]).joined(separator: " ")
        guard let connection = PQconnectdb(candidate) else { return nil }
        defer { PQfinish(connection) }
        guard PQstatus(connection) == CONNECTION_OK else { return nil }
        let result = PQexec(connection, "SELECT 1 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'message_store' AND p.proname = 'write_message'")
        defer { PQclear(result) }
        return PQresultStatus(result) == PGRES_TUPLES_OK && PQntuples(result) == 1 ? candidate : nil
    }

    /// message-db's `write_message(id, stream, type, data, metadata, expected_version)` per
    /// event (prepared, autocommit), the same rows, into a cleared `message_store.messages`;
    /// throws when message-db refuses (a broken install).
    func messageDBWrites(_ rows: [BenchRow], url messageDB: String) throws -> Double {
        let connection = rawConnect(messageDB)
        defer { PQfinish(connection) }
        func run(_ sql: String) throws {
            let result = PQexec(connection, sql)
            defer { PQclear(result) }
            guard PQresultStatus(result) == PGRES_COMMAND_OK else { throw CLIError(message: "message-db: \(String(cString: PQerrorMessage(connection)))", code: .failure) }
        }
        // message-db's functions call each other unqualified: its role's search_path.
        try run("SET search_path = message_store, public")
        try run("TRUNCATE message_store.messages")
        let prepared = PQprepare(connection, "write", "SELECT message_store.write_message($1::varchar, $2::varchar, $3::varchar, $4::jsonb, $5::jsonb, $6::bigint)", 0, nil)
        defer { PQclear(prepared) }
        guard PQresultStatus(prepared) == PGRES_COMMAND_OK else { throw CLIError(message: "message-db: \(String(cString: PQerrorMessage(connection)))", code: .failure) }
        var failure: String?
        let seconds = Measurement.seconds {
            for row in rows where failure == nil {
                // message-db's versions start at 0, and -1 is a new stream.
                let values = [row.idText, row.stream, row.event.type, String(decoding: row.event.data, as: UTF8.self),
                              String(decoding: row.event.metadata, as: UTF8.self), String(row.version - 2)]
                let copies = values.map { strdup($0) }
                defer { copies.forEach { free($0) } }
                let pointers = copies.map { UnsafePointer($0) }
                let result = PQexecPrepared(connection, "write", 6, pointers, nil, nil, 0)
                defer { PQclear(result) }
                if PQresultStatus(result) != PGRES_TUPLES_OK { failure = String(cString: PQerrorMessage(connection)) }
            }
        }
        if let failure { throw CLIError(message: "message-db write_message failed: \(failure)", code: .failure) }
        return seconds
    }

    /// One `SELECT` of every column of the log in position order (text format), touching
    /// each value's bytes; the chain hash too when `withHash` (what verify reads).
    func rawRead(schema: String, withHash: Bool = false) -> (seconds: Double, count: Int) {
        let connection = rawConnect()
        defer { PQfinish(connection) }
        var count = 0, checksum = 0
        let seconds = Measurement.seconds {
            let result = PQexec(connection, "SELECT position, stream_id, version, event_id, type, data, metadata, recorded_at\(withHash ? ", hash" : "") FROM \(schema).events ORDER BY position")
            defer { PQclear(result) }
            guard PQresultStatus(result) == PGRES_TUPLES_OK else { fatalError("raw read failed: \(String(cString: PQerrorMessage(connection)))") }
            count = Int(PQntuples(result))
            for row in 0..<Int32(count) {
                for column: Int32 in 0..<(withHash ? 9 : 8) {
                    checksum &+= Int(PQgetvalue(result, row, column).pointee) &+ Int(PQgetlength(result, row, column))
                }
            }
        }
        precondition(checksum != 0 || count == 0)
        return (seconds, count)
    }
}

/// A raw connection handed to one benchmark thread.
private struct RawConnection: @unchecked Sendable {
    // @unchecked: each connection is used by exactly one thread of concurrentPerform.
    let handle: OpaquePointer
    init(_ handle: OpaquePointer) { self.handle = handle }
}

/// The first failure of several threads.
private final class FailureBox: @unchecked Sendable {
    // @unchecked: every access goes through `lock`.
    private let lock = NSLock()
    private var failure: String?
    func record(_ message: String) { lock.lock(); if failure == nil { failure = message }; lock.unlock() }
    var first: String? { lock.lock(); defer { lock.unlock() }; return failure }
}

extension BenchCommand {
    static func runPostgres(url: String, events: Int, single: Int, batch: Int, runs: Int, console: inout Console) throws {
        preamble(&console, "PostgreSQL store, N = \(String(events).groupedThousands) batched (\(batch)/append) and read, \(String(single).groupedThousands) one per call; ~1,000 user streams; median of \(runs) run(s)")
        var bench = PostgresBenchmark(url: url)
        let version = PQlibVersion()
        console.output("libpq \(version / 10_000).\(version % 100); server: \(url.split(separator: "@").last.map(String.init) ?? "(from PG* variables)")")
        console.output(BenchFigure.header)
        var figures: [BenchFigure] = []

        // Batched append against COPY of the same rows.
        var batchedRows = Workload.rows(count: events, batchSize: batch)
        var ours: [Double] = [], raw: [Double] = []
        var readSchema = ""
        for run in 0..<runs {
            let rawSchema = try bench.freshSchema("copy")
            raw.append(bench.rawCopy(batchedRows, schema: rawSchema))
            bench.drop(rawSchema)
            let ourSchema = try bench.freshSchema("batched")
            ours.append(try bench.ourAppend(batchedRows, batchSize: batch, schema: ourSchema))
            if run < runs - 1 { bench.drop(ourSchema) } else { readSchema = ourSchema }
        }
        figures.append(BenchFigure(operation: "append, batches of \(batch)", ours: Double(events) / Measurement.median(ours),
                                   baseline: Double(events) / Measurement.median(raw), baselineName: "COPY of the same rows", target: 0.5))
        console.output(figures.last!.line); console.flush()
        batchedRows = []

        // Full read against one raw SELECT.
        ours = []; raw = []
        for _ in 0..<runs {
            let rawRead = bench.rawRead(schema: readSchema)
            let ourRead = try bench.ourRead(schema: readSchema)
            guard rawRead.count == events, ourRead.count == events else {
                throw CLIError(message: "benchmark read \(ourRead.count) events (raw \(rawRead.count)), expected \(events)", code: .failure)
            }
            raw.append(rawRead.seconds); ours.append(ourRead.seconds)
        }
        figures.append(BenchFigure(operation: "read whole log (batches of 1,000)", ours: Double(events) / Measurement.median(ours),
                                   baseline: Double(events) / Measurement.median(raw), baselineName: "one SELECT of every column", target: 0.5))
        console.output(figures.last!.line); console.flush()
        bench.drop(readSchema)

        // One event per call, against raw single-row INSERT transactions over 1 and 8
        // connections and message-db's write_message. Each round times every pair back to
        // back, and odd rounds run the pairs in the reverse order (ours first), so that the
        // disk's flush rate, which swings from minute to minute on a shared machine, lands on
        // both sides; each pair's per-round ratios and their spread are printed.
        let singleRows = Workload.rows(count: single, batchSize: 1, seed: 11)
        var oneConnection = RoundPairs(), eightConnections = RoundPairs(), againstMessageDB = RoundPairs()
        let messageDBURL = bench.messageDBURL()
        let rate = { (seconds: Double) in Double(single) / seconds }
        for round in 0..<runs {
            var steps: [() throws -> Void] = []
            var ourOne = 0.0, rawOne = 0.0, ourEight = 0.0, rawEight = 0.0, messageDBOne = 0.0
            steps.append {
                let rawSchema = try bench.freshSchema("insert")
                rawOne = rate(bench.rawSingleInserts(singleRows, schema: rawSchema))
                bench.drop(rawSchema)
            }
            steps.append {
                let ourSchema = try bench.freshSchema("single")
                ourOne = rate(try bench.ourAppend(singleRows, batchSize: 1, schema: ourSchema))
                bench.drop(ourSchema)
            }
            if let messageDBURL {
                steps.append { messageDBOne = rate(try bench.messageDBWrites(singleRows, url: messageDBURL)) }
            }
            steps.append {
                let rawSchema = try bench.freshSchema("insert8")
                rawEight = rate(bench.rawSingleInserts(singleRows, schema: rawSchema, writers: 8))
                bench.drop(rawSchema)
            }
            steps.append {
                let ourSchema = try bench.freshSchema("writers8")
                ourEight = rate(try bench.ourConcurrentAppend(singleRows, writers: 8, schema: ourSchema))
                bench.drop(ourSchema)
            }
            for step in round % 2 == 0 ? steps : steps.reversed() { try step() }
            oneConnection.add(ours: ourOne, baseline: rawOne)
            if messageDBURL != nil { againstMessageDB.add(ours: ourOne, baseline: messageDBOne) }
            eightConnections.add(ours: ourEight, baseline: rawEight)
        }
        let oneWriter = oneConnection.oursMedian
        figures.append(BenchFigure(operation: "append, one event per call, 1 connection", ours: oneWriter,
                                   baseline: oneConnection.baselineMedian, baselineName: "prepared INSERT, one transaction per row", target: 0.8))
        console.output(figures.last!.line)
        console.output("  " + oneConnection.line); console.flush()
        figures.append(BenchFigure(operation: "append, one event per call, 8 writers", ours: eightConnections.oursMedian,
                                   baseline: oneWriter, baselineName: "the same with 1 writer: the ratio is the speed-up", target: 3.0))
        console.output(figures.last!.line); console.flush()
        // What the machine allows: the same speed-up for raw single-row inserts.
        figures.append(BenchFigure(operation: "raw INSERT per transaction, 8 connections", ours: eightConnections.baselineMedian,
                                   baseline: oneConnection.baselineMedian, baselineName: "raw with 1 connection: the machine's own speed-up", target: nil))
        console.output(figures.last!.line); console.flush()
        figures.append(BenchFigure(operation: "append, one event per call, 8 writers", ours: eightConnections.oursMedian,
                                   baseline: eightConnections.baselineMedian,
                                   baselineName: "prepared INSERT, one transaction per row, 8 connections", target: 0.7))
        console.output(figures.last!.line)
        console.output("  " + eightConnections.line)

        if againstMessageDB.rounds.isEmpty {
            console.output("message-db: not installed in this server's message_store database (../shared/bench/README says how); no same-run figure")
        } else {
            figures.append(BenchFigure(operation: "append, one event per call, vs message-db", ours: oneWriter,
                                       baseline: againstMessageDB.baselineMedian,
                                       baselineName: "message-db write_message per event, same server, same rows", target: 1.2))
            console.output(figures.last!.line)
            console.output("  " + againstMessageDB.line)
        }

        // The same one-connection appends without waiting for the flush: processor time alone,
        // which the durable ratios above are not on a disk whose flush is slower the longer it
        // idled (docs/explanation/ordering.md, "Why the durable ratio is lower").
        var unflushed = try bench.withoutFlushWait()
        let unflushedMessageDB = unflushed.messageDBURL()
        var processor = RoundPairs(), processorMessageDB = RoundPairs()
        for round in 0..<runs {
            var ours = 0.0, raw = 0.0, messageDB = 0.0
            var steps: [() throws -> Void] = [
                {
                    let rawSchema = try unflushed.freshSchema("insert_nowait")
                    raw = rate(unflushed.rawSingleInserts(singleRows, schema: rawSchema))
                    unflushed.drop(rawSchema)
                },
                {
                    let ourSchema = try unflushed.freshSchema("single_nowait")
                    ours = rate(try unflushed.ourAppend(singleRows, batchSize: 1, schema: ourSchema))
                    unflushed.drop(ourSchema)
                },
            ]
            if let unflushedMessageDB {
                steps.append { messageDB = rate(try unflushed.messageDBWrites(singleRows, url: unflushedMessageDB)) }
            }
            for step in round % 2 == 0 ? steps : steps.reversed() { try step() }
            processor.add(ours: ours, baseline: raw)
            if unflushedMessageDB != nil { processorMessageDB.add(ours: ours, baseline: messageDB) }
        }
        figures.append(BenchFigure(operation: "append, one event per call, no flush wait", ours: processor.oursMedian,
                                   baseline: processor.baselineMedian,
                                   baselineName: "the same raw INSERTs, synchronous_commit=off on both: processor time", target: nil))
        console.output(figures.last!.line)
        console.output("  " + processor.line)
        if !processorMessageDB.rounds.isEmpty {
            figures.append(BenchFigure(operation: "append, one event per call, no flush wait", ours: processor.oursMedian,
                                       baseline: processorMessageDB.baselineMedian,
                                       baselineName: "message-db write_message, synchronous_commit=off on both", target: nil))
            console.output(figures.last!.line)
            console.output("  " + processorMessageDB.line)
        }
        console.flush()

        // The peers' figures for the same operations, when ../shared/bench ran just before.
        for line in PeerFigures.lines(prefixes: ["mdb.write", "es.pg.per_call", "pg.py.insert_per_tx"],
                                      ours: ["mdb.write": oneWriter, "es.pg.per_call": oneWriter, "pg.py.insert_per_tx": oneWriter],
                                      targets: ["mdb.write": 1.2]) {
            console.output(line)
        }
        console.flush()
    }
}
