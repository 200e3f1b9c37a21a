import CSQLite
import EventLog
import Foundation
import StoreSQLite

extension AuditBenchmark {
    /// The kept Merkle tree on SQLite: the follower extending it after every batched append
    /// (same file, alternating, so that other work on the machine slows both alike) against the
    /// appends themselves; extending it over the whole log at once; and an inclusion and a
    /// consistency proof from the kept tree against the same proofs made by streaming the log.
    static func keptTree(_ rows: [BenchRow], batch: Int, runs: Int, bench: inout SQLiteBenchmark, logPath: String,
                         rawRead: Double, console: inout Console) throws {
        let events = rows.count
        try followerLine(rows, batch: batch, runs: runs, bench: &bench, console: &console)
        try followerLine(rows, batch: batch, runs: runs, elsewhere: true, bench: &bench, console: &console)
        try oneEventPath(rows, bench: &bench, console: &console)

        // The whole log's tree at once (an upgraded store's first extension), then proofs.
        let store = try SQLiteEventStore(path: logPath)
        let whole = try Measurement.seconds { try LogTree.extendKept(store) }
        console.output(BenchFigure(operation: "Merkle tree extended over the whole log", ours: Double(events) / whole,
                                   baseline: Double(events) / rawRead, baselineName: "prepared SELECT of every column, no hashing", target: nil).line)
        let size = UInt64(events)
        guard size > 0 else { return }
        var streamed: [Double] = [], kept: [Double] = [], streamedConsistency: [Double] = [], keptConsistency: [Double] = []
        for run in 0..<max(runs, 3) {
            let index = (size / 3 + UInt64(run) * 7_919) % size
            let from = max(1, min(size, size / 2 + UInt64(run)))
            let ranges = try MerkleProof.inclusionRanges(index: index, size: size)
            let consistencyRanges = try MerkleProof.consistencyRanges(from: from, to: size)
            var viaStream: [[UInt8]] = [], viaKept: [[UInt8]] = []
            streamed.append(try Measurement.seconds {
                var builders = [MerkleProofBuilder(size: size, ranges: ranges)]
                try LogTree.feed(&builders, from: store)
                viaStream = try builders[0].finish().proof
            })
            kept.append(try Measurement.seconds { viaKept = try LogTree.proof(of: store, size: size, ranges: ranges).proof })
            streamedConsistency.append(try Measurement.seconds {
                var builders = [MerkleProofBuilder(size: from), MerkleProofBuilder(size: size, ranges: consistencyRanges)]
                try LogTree.feed(&builders, from: store)
                _ = try builders[1].finish()
            })
            keptConsistency.append(try Measurement.seconds { _ = try LogTree.consistencyProof(of: store, from: from, to: size) })
            guard viaStream == viaKept else { throw CLIError(message: "benchmark: the kept tree's proof differs from the streamed one", code: .failure) }
        }
        func milliseconds(_ values: [Double]) -> String { String(format: "%.2f ms", Measurement.median(values) * 1e3) }
        console.output("inclusion proof at \(String(events).groupedThousands) events: \(milliseconds(kept)) from the kept tree, \(milliseconds(streamed)) streaming the log (\(String(format: "%.0f", Measurement.median(streamed) / Measurement.median(kept)))×)")
        console.output("consistency proof at \(String(events).groupedThousands) events: \(milliseconds(keptConsistency)) from the kept tree (both roots, checked), \(milliseconds(streamedConsistency)) streaming the log")
    }

    /// The follower run after each batched append of `batch` (same file, alternating, so that
    /// other work on the machine slows both alike) against the appends themselves, `runs` times:
    /// the median of each, as one line. In the appending process's own store (as `evtool serve`
    /// runs it: the append's chain hashes taken from memory), and, with `elsewhere`, through a
    /// second store on the file (as a follower in another process: the rows read back). The
    /// same batches also go, alternating, to a file that keeps no tree: the second line is the
    /// tree's whole cost (appends and follower against appends alone), so that work the
    /// follower leaves to the appends (the WAL's checkpoints) is counted too.
    static func followerLine(_ rows: [BenchRow], batch: Int, runs: Int, elsewhere: Bool = false, bench: inout SQLiteBenchmark,
                             console: inout Console) throws {
        let events = rows.count
        var appendSeconds: [Double] = [], followerSeconds: [Double] = [], bothSeconds: [Double] = [], aloneSeconds: [Double] = []
        var appendWrites: Int?   // tile rows the first batched append wrote, measured
        for _ in 0..<runs {
            let path = bench.freshPath("evtool-follower")
            let alonePath = bench.freshPath("evtool-no-tree")
            let store = try SQLiteEventStore(path: path)
            let follower = elsewhere ? try SQLiteEventStore(path: path) : store
            let alone = try SQLiteEventStore(path: alonePath)
            var (append, follow, appendAlone) = (0.0, 0.0, 0.0)
            var start = 0
            while start < rows.count {
                let end = min(start + batch, rows.count)
                let first = rows[start]
                let proposed = rows[start..<end].map(\.event)
                let shapes = start == 0 && appendWrites == nil ? try tileShapes(path) : nil
                append += try Measurement.seconds {
                    try store.append(proposed, to: first.stream, expectedVersion: .exactly(first.version - 1))
                }
                if let shapes { appendWrites = TileShapes.written(from: shapes, to: try tileShapes(path)) }
                follow += try Measurement.seconds { _ = try follower.extendMerkleTree(limit: batch) }
                appendAlone += try Measurement.seconds {
                    try alone.append(proposed, to: first.stream, expectedVersion: .exactly(first.version - 1))
                }
                start = end
            }
            guard try store.merkleTreeState().size == UInt64(events) else {
                throw CLIError(message: "benchmark tree has \(try store.merkleTreeState().size) leaves, expected \(events)", code: .failure)
            }
            appendSeconds.append(append)
            followerSeconds.append(follow)
            bothSeconds.append(append + follow)
            aloneSeconds.append(appendAlone)
            bench.remove(path)
            bench.remove(alonePath)
        }
        let share = Measurement.median(followerSeconds) / Measurement.median(appendSeconds)
        func perEvent(_ seconds: [Double]) -> String { String(format: "%.2f", Measurement.median(seconds) / Double(events) * 1e6) }
        console.output("Merkle tree follower\(elsewhere ? " on a second connection (another process: the rows read back)" : "") after each batch of \(batch): \(perEvent(followerSeconds)) µs per event, \(String(format: "%.1f", share * 100))% of the batched append's \(perEvent(appendSeconds)) µs (target ≤ 10%: \(share <= 0.10 ? "ok" : "MISSED")); \(TileShapes.appendsLine(appendWrites ?? 0))")
        let whole = Measurement.median(bothSeconds) / Measurement.median(aloneSeconds) - 1
        console.output("  the tree's whole cost\(elsewhere ? " (second connection)" : ""): appends and follower \(perEvent(bothSeconds)) µs per event against \(perEvent(aloneSeconds)) µs for the same appends to a file with no tree: \(String(format: "%+.1f", whole * 100))% (checkpoints included; target ≤ 10%: \(whole <= 0.10 ? "ok" : "MISSED"))")
    }

    /// The `follower` suite: only the SQLite follower's lines of `audit` (after each batched
    /// append, and on the one-event path), for profiling and quick comparisons.
    static func runFollower(events: Int, batch: Int, runs: Int, directory: String, console: inout Console) throws {
        BenchCommand.preamble(&console, "the SQLite Merkle tree follower, N = \(String(events).groupedThousands) events in batches of \(batch); median of \(runs) run(s)")
        var bench = SQLiteBenchmark(directory: directory)
        let rows = Workload.rows(count: events, batchSize: batch)
        try followerLine(rows, batch: batch, runs: runs, bench: &bench, console: &console)
        try followerLine(rows, batch: batch, runs: runs, elsewhere: true, bench: &bench, console: &console)
        try oneEventPath(rows, bench: &bench, console: &console)
    }

    /// The one-event path: each event appended alone (its own transaction and commit), the
    /// follower run after each, alternating, on one file; and what the follower wrote (rows
    /// and bytes of the tiles table). Appends write nothing of the tree themselves.
    static func oneEventPath(_ rows: [BenchRow], bench: inout SQLiteBenchmark, console: inout Console) throws {
        let count = min(rows.count, 2_000)
        guard count > 0 else { return }
        let path = bench.freshPath("evtool-one-event")
        defer { bench.remove(path) }
        let store = try SQLiteEventStore(path: path)
        var (append, follow) = (0.0, 0.0)
        var versions: [String: Int64] = [:]
        var writes = TileShapes.Writes()
        for (index, row) in rows.prefix(count).enumerated() {
            let version = versions[row.stream] ?? 0
            let before = index < TileShapes.sampled ? try tileShapes(path) : nil
            append += try Measurement.seconds { try store.append(row.event, to: row.stream, expectedVersion: .exactly(version)) }
            let appended = before == nil ? nil : try tileShapes(path)
            versions[row.stream] = version + 1
            follow += try Measurement.seconds { _ = try store.extendMerkleTree(limit: LogTree.extensionBatch) }
            if let before, let appended { writes.add(before: before, appended: appended, followed: try tileShapes(path)) }
        }
        guard try store.merkleTreeState().size == UInt64(count) else {
            throw CLIError(message: "benchmark tree has \(try store.merkleTreeState().size) leaves, expected \(count)", code: .failure)
        }
        let tiles = try tileTotals(path)
        console.output(oneEventLine(count: count, append: append, follow: follow, tiles: tiles, writes: writes))
    }

    /// The one-event path's line, on either store: the follower's time per event against the
    /// appends', and what it kept.
    static func oneEventLine(count: Int, append: Double, follow: Double, tiles: (rows: Int64, bytes: Int64), writes: TileShapes.Writes) -> String {
        "one-event appends (\(count), each its own commit), follower after each: \(String(format: "%.1f", follow / Double(count) * 1e6)) µs per event, \(String(format: "%.1f", follow / append * 100))% of the one-event append's \(String(format: "%.1f", append / Double(count) * 1e6)) µs; the follower kept \(tiles.rows) tile rows (\(String(format: "%.2f", Double(tiles.rows) / Double(count))) per event, \(String(format: "%.1f", Double(tiles.bytes) / Double(count))) hash bytes per event); \(writes.line)"
    }

    /// The rows of the tiles table and the bytes of their hashes, read with the sqlite3 library.
    static func tileTotals(_ path: String) throws -> (rows: Int64, bytes: Int64) {
        try firstRow(path, "SELECT count(*), coalesce(sum(length(hashes)), 0) FROM merkle_tiles") {
            (sqlite3_column_int64($0, 0), sqlite3_column_int64($0, 1))
        }
    }

    /// Each tile of the SQLite file at `path` (``TileShapes``), read with the sqlite3 library.
    static func tileShapes(_ path: String) throws -> [String: Int64] {
        try firstRow(path, "SELECT coalesce(group_concat(level || '/' || idx || '/' || length(hashes), ' '), '') FROM merkle_tiles") {
            TileShapes.parse(String(cString: sqlite3_column_text($0, 0)))
        }
    }

    /// The first row of `sql` on the file at `path`, opened read-only, as `read` takes it.
    private static func firstRow<Value>(_ path: String, _ sql: String, _ read: (OpaquePointer) -> Value) throws -> Value {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else {
            throw CLIError(message: "benchmark: cannot open \(path)", code: .failure)
        }
        defer { sqlite3_close_v2(db) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement, sqlite3_step(statement) == SQLITE_ROW else {
            throw CLIError(message: "benchmark: cannot read the tiles: \(String(cString: sqlite3_errmsg(db)))", code: .failure)
        }
        defer { sqlite3_finalize(statement) }
        return read(statement)
    }
}
