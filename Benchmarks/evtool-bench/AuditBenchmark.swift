import CSQLite
import EventLog
import Foundation
import StoreSQLite

/// The cost of the audit trail on SQLite: batched appends with and without computing the hash
/// chain (same rows, same raw insert loop, same run), the store's own hashing append, and
/// `evtool verify` against a raw read of the same log.
enum AuditBenchmark {
    static func run(events: Int, batch: Int, runs: Int, directory: String, console: inout Console) throws {
        BenchCommand.preamble(&console, "audit trail on SQLite, N = \(String(events).groupedThousands) events in batches of \(batch); median of \(runs) run(s)")
        var bench = SQLiteBenchmark(directory: directory)
        let rows = Workload.rows(count: events, batchSize: batch)
        console.output(BenchFigure.header)

        // Batched appends: the raw loop writes the same rows with a constant hash, or with each
        // event's chain hash computed as the store does (three SHA-256 digests per event). The
        // two alternate batch by batch (into two files), so that other work on the machine
        // slows both alike.
        var plain: [Double] = [], hashed: [Double] = [], ours: [Double] = []
        var verifyPath = ""
        for run in 0..<runs {
            let plainPath = bench.freshPath("raw-nohash")
            let hashedPath = bench.freshPath("raw-hash")
            let pair = rawInsertPair(rows, batchSize: batch, plainPath: plainPath, hashedPath: hashedPath)
            plain.append(pair.plain)
            hashed.append(pair.hashed)
            bench.remove(plainPath)
            bench.remove(hashedPath)
            let ourPath = bench.freshPath("evtool-hash")
            ours.append(try bench.ourAppend(rows, batchSize: batch, path: ourPath))
            if run < runs - 1 { bench.remove(ourPath) } else { verifyPath = ourPath }
        }
        let withHash = BenchFigure(operation: "append, batches of \(batch), hashing", ours: Double(events) / Measurement.median(hashed),
                                   baseline: Double(events) / Measurement.median(plain),
                                   baselineName: "the same raw INSERT loop without hashing, batches alternating; target: hashing costs ≤ 15%", target: 0.85)
        console.output(withHash.line)
        console.output(BenchFigure(operation: "append, batches of \(batch), evtool store", ours: Double(events) / Measurement.median(ours),
                                   baseline: Double(events) / Measurement.median(plain),
                                   baselineName: "raw INSERT loop without hashing", target: 0.7).line)
        console.output("hashing costs \(String(format: "%.1f", (1 - withHash.ratio) * 100))% of batched append throughput")
        let alone = hashingAlone(rows, runs: runs)
        console.output("chain hashing alone (the same calls, no database): \(String(format: "%.2f", alone * 1e6)) µs per event, against \(String(format: "%.2f", Measurement.median(plain) / Double(events) * 1e6)) µs for the raw insert")
        console.flush()

        // Verify against a raw read of the same file.
        var raw: [Double] = [], verify: [Double] = [], rawCPU: [Double] = [], verifyCPU: [Double] = []
        for _ in 0..<runs {
            var cpu = processorSeconds()
            let read = bench.rawRead(path: verifyPath)
            rawCPU.append(processorSeconds() - cpu)
            raw.append(read.seconds)
            let store = try SQLiteEventStore(path: verifyPath)
            var verifier = try LogVerifier(store: store)
            var report: VerificationReport?
            cpu = processorSeconds()
            verify.append(try Measurement.seconds { report = try verifier.verifyLog() })
            verifyCPU.append(processorSeconds() - cpu)
            guard read.count == events, report?.events == Int64(events) else {
                throw CLIError(message: "benchmark verified \(report?.events ?? 0) events (raw read \(read.count)), expected \(events)", code: .failure)
            }
        }
        console.output(BenchFigure(operation: "verify whole log", ours: Double(events) / Measurement.median(verify),
                                   baseline: Double(events) / Measurement.median(raw),
                                   baselineName: "prepared SELECT of every column, no hashing", target: 0.5).line)
        console.output("verify used \(String(format: "%.2f", Measurement.median(verifyCPU) / Measurement.median(rawCPU)))× the processor time of the raw read (all threads: \(String(format: "%.2f", Measurement.median(verifyCPU))) s against \(String(format: "%.2f", Measurement.median(rawCPU))) s)")
        // The Merkle tree kept in the store (docs/explanation/audit.md): its follower's cost against the
        // batched append, and proofs from the kept tree against streaming the log.
        try keptTree(rows, batch: batch, runs: runs, bench: &bench, logPath: verifyPath, rawRead: Measurement.median(raw), console: &console)
        Measurement.resetPeak()
        let before = Measurement.residentMemory().current
        var verifier = try LogVerifier(store: try SQLiteEventStore(path: verifyPath))
        _ = try verifier.verifyLog()
        console.output("peak memory growth while verifying \(String(events).groupedThousands) events in ~1,000 streams: \(Measurement.mebibytes(max(Measurement.residentMemory().peak - before, 0)))")
        bench.remove(verifyPath)
    }

    /// Processor time (user and system, all threads) used by this process so far, in seconds.
    static func processorSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    /// Writes `rows` twice, batch by batch alternating between a file without hashing and one
    /// with the chain hash (the first of the two alternates too); returns each one's seconds.
    static func rawInsertPair(_ rows: [BenchRow], batchSize: Int, plainPath: String, hashedPath: String) -> (plain: Double, hashed: Double) {
        let plain = RawInserter(path: plainPath, hashing: false)
        let hashed = RawInserter(path: hashedPath, hashing: true)
        var (plainSeconds, hashedSeconds) = (0.0, 0.0)
        var start = 0
        var batchNumber = 0
        while start < rows.count {
            let batch = rows[start..<min(start + batchSize, rows.count)]
            if batchNumber % 2 == 0 {
                plainSeconds += Measurement.seconds { plain.insert(batch) }
                hashedSeconds += Measurement.seconds { hashed.insert(batch) }
            } else {
                hashedSeconds += Measurement.seconds { hashed.insert(batch) }
                plainSeconds += Measurement.seconds { plain.insert(batch) }
            }
            start += batchSize
            batchNumber += 1
        }
        return (plainSeconds, hashedSeconds)
    }
}

/// A raw sqlite3 connection with a prepared INSERT, for ``AuditBenchmark/rawInsertPair``.
final class RawInserter {
    private let db: OpaquePointer
    private let statement: OpaquePointer
    private let hashing: Bool
    private let chain = ChainHashing(recordedAt: Timestamp.format(Date()))
    private let recordedAt = Timestamp.format(Date())
    private static let constant = Array(String(repeating: "0", count: 64).utf8)

    /// The chain hashing of the store's append (`SQLiteEventStore.insert`): each event's link
    /// written over its predecessor's in one buffer, its 64 hex digits beside it, bound from
    /// there; a stream's head kept while its rows follow each other (the store reads it once
    /// per stream in an append) and looked up when the stream changes.
    final class ChainHashing {
        private let hasher = EventChain.Hasher()
        private var heads: [String: [UInt8]] = [:]
        private var current: String?
        private let chain = UnsafeMutableRawPointer.allocate(byteCount: 96, alignment: 8)
        private var recordedAt: String

        init(recordedAt: String) {
            self.recordedAt = recordedAt
            restart()
        }

        deinit { chain.deallocate() }

        /// Forgets every stream's head.
        func restart() {
            heads = [:]
            current = nil
        }

        /// Hashes `row` after its stream's head; calls `body` with the hash's 64 hex digits.
        func link(_ row: BenchRow, _ body: (UnsafeRawBufferPointer) -> Void) {
            if current != row.stream {
                if let current { heads[current] = [UInt8](UnsafeRawBufferPointer(start: chain, count: 32)) }
                (heads[row.stream] ?? EventChain.genesis).withUnsafeBytes { chain.copyMemory(from: $0.baseAddress!, byteCount: 32) }
                current = row.stream
            }
            var (stream, type) = (row.stream, row.event.type)
            stream.withUTF8 { streamBytes in
                type.withUTF8 { typeBytes in
                    recordedAt.withUTF8 { timeBytes in
                        row.event.data.withUnsafeBytes { data in
                            row.event.metadata.withUnsafeBytes { metadata in
                                hasher.hash(previous: UnsafeRawBufferPointer(start: chain, count: 32), stream: UnsafeRawBufferPointer(streamBytes),
                                            version: row.version, id: row.event.id, type: UnsafeRawBufferPointer(typeBytes),
                                            recordedAt: UnsafeRawBufferPointer(timeBytes), data: data, metadata: metadata, into: chain)
                            }
                        }
                    }
                }
            }
            HexEncoding.encode(UnsafeRawBufferPointer(start: chain, count: 32), into: chain + 32)
            body(UnsafeRawBufferPointer(start: chain + 32, count: 64))
        }
    }

    init(path: String, hashing: Bool) {
        _ = try? SQLiteEventStore(path: path)   // the schema, created by the store
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db else { fatalError("raw open failed") }
        self.db = db
        self.hashing = hashing
        var statement: OpaquePointer?
        let sql = "INSERT INTO events (stream_id, version, event_id, type, data, metadata, recorded_at, hash) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { fatalError("raw prepare failed") }
        self.statement = statement
        exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL")
    }

    deinit {
        sqlite3_finalize(statement)
        sqlite3_close_v2(db)
    }

    private func exec(_ sql: String) {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { fatalError("raw exec failed: \(String(cString: sqlite3_errmsg(db)))") }
    }

    /// One batch in one transaction.
    func insert(_ rows: ArraySlice<BenchRow>) {
        exec("BEGIN IMMEDIATE")
        for row in rows {
            if hashing {
                chain.link(row) { hex in _ = sqlite3_bind_text(statement, 8, hex.baseAddress!.assumingMemoryBound(to: CChar.self), 64, evtool_sqlite_transient()) }
            } else {
                _ = Self.constant.withUnsafeBytes { sqlite3_bind_text(statement, 8, $0.baseAddress!.assumingMemoryBound(to: CChar.self), 64, evtool_sqlite_transient()) }
            }
            _ = row.stream.withCString { sqlite3_bind_text(statement, 1, $0, -1, evtool_sqlite_transient()) }
            sqlite3_bind_int64(statement, 2, row.version)
            _ = row.idText.withCString { sqlite3_bind_text(statement, 3, $0, 36, evtool_sqlite_transient()) }
            _ = row.event.type.withCString { sqlite3_bind_text(statement, 4, $0, -1, evtool_sqlite_transient()) }
            _ = recordedAt.withCString { sqlite3_bind_text(statement, 7, $0, 27, evtool_sqlite_transient()) }
            row.event.data.withUnsafeBytes { data in
                row.event.metadata.withUnsafeBytes { metadata in
                    sqlite3_bind_text(statement, 5, data.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(data.count), evtool_sqlite_static())
                    sqlite3_bind_text(statement, 6, metadata.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(metadata.count), evtool_sqlite_static())
                    guard sqlite3_step(statement) == SQLITE_DONE else { fatalError("raw insert failed: \(String(cString: sqlite3_errmsg(db)))") }
                    sqlite3_reset(statement)
                }
            }
        }
        exec("COMMIT")
    }
}
