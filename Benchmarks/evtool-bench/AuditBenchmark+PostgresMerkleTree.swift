import EventLog
import Foundation
import StorePostgres

extension AuditBenchmark {
    /// The kept Merkle tree on PostgreSQL: the follower after every batched append, alternating
    /// on one schema, against the appends themselves: on the appending handle (the block from
    /// the append call hashed in the app, tiles written through `merkle_put`, as `evtool serve`
    /// runs it) and on another handle (as a follower in another process: `merkle_extend`, the
    /// server hashes); then an inclusion proof from the kept tree.
    static func keptTreePostgres(url: String, rows: [BenchRow], batch: Int, runs: Int, bench: inout PostgresBenchmark,
                                 console: inout Console) throws {
        var proofSeconds: [Double] = []
        for elsewhere in [false, true] {
            var appendSeconds: [Double] = [], followerSeconds: [Double] = []
            var appendWrites: Int?   // tile rows the first batched append wrote, measured
            for _ in 0..<runs {
                let schema = try bench.freshSchema("follower")
                defer { bench.drop(schema) }
                let store = try PostgresEventStore(url: url, schema: schema)
                let follower = elsewhere ? try PostgresEventStore(url: url, schema: schema) : store
                var (append, follow) = (0.0, 0.0)
                var start = 0
                while start < rows.count {
                    let end = min(start + batch, rows.count)
                    let first = rows[start]
                    let shapes = start == 0 && appendWrites == nil ? try bench.tileShapes(schema: schema) : nil
                    append += try Measurement.seconds {
                        try store.append(rows[start..<end].map(\.event), to: first.stream, expectedVersion: .exactly(first.version - 1))
                    }
                    if let shapes { appendWrites = TileShapes.written(from: shapes, to: try bench.tileShapes(schema: schema)) }
                    follow += try Measurement.seconds {
                        var added = 0
                        while added < end - start {
                            let step = try follower.extendMerkleTree(limit: batch).added
                            guard step > 0 else { break }
                            added += step
                        }
                    }
                    start = end
                }
                let size = try store.merkleTreeState().size
                guard size == UInt64(rows.count) else {
                    throw CLIError(message: "benchmark tree has \(size) leaves, expected \(rows.count)", code: .failure)
                }
                appendSeconds.append(append)
                followerSeconds.append(follow)
                if !elsewhere {
                    let index = size / 3
                    proofSeconds.append(try Measurement.seconds {
                        _ = try LogTree.proof(of: store, size: size, ranges: try MerkleProof.inclusionRanges(index: index, size: size))
                    })
                }
            }
            let events = Double(rows.count)
            let share = Measurement.median(followerSeconds) / Measurement.median(appendSeconds)
            let which = elsewhere ? "on another handle (another process: merkle_extend, the server hashes)" : "on the appending handle (hashes in the app, merkle_put)"
            console.output("Merkle tree follower \(which) after each batch of \(batch): \(String(format: "%.2f", Measurement.median(followerSeconds) / events * 1e6)) µs per event, \(String(format: "%.1f", share * 100))% of the batched append's \(String(format: "%.2f", Measurement.median(appendSeconds) / events * 1e6)) µs (target ≤ 10%: \(share <= 0.10 ? "ok" : "MISSED")); \(TileShapes.appendsLine(appendWrites ?? 0))")
        }
        console.output("inclusion proof at \(String(rows.count).groupedThousands) events from the kept tree: \(String(format: "%.2f ms", Measurement.median(proofSeconds) * 1e3))")
        try oneEventPathPostgres(url: url, rows: rows, bench: &bench, console: &console)
    }

    /// The one-event path on PostgreSQL: each event appended alone (`append_one`, its own
    /// commit), the follower run after each, alternating, on one schema; and what the
    /// follower wrote (rows and bytes of the tiles table), and the tile rows each append and
    /// extension wrote for the first ``TileShapes/sampled`` events, measured.
    static func oneEventPathPostgres(url: String, rows: [BenchRow], bench: inout PostgresBenchmark, console: inout Console) throws {
        let count = min(rows.count, 1_000)
        guard count > 0 else { return }
        let schema = try bench.freshSchema("one_event")
        defer { bench.drop(schema) }
        let store = try PostgresEventStore(url: url, schema: schema)
        var (append, follow) = (0.0, 0.0)
        var versions: [String: Int64] = [:]
        var writes = TileShapes.Writes()
        for (index, row) in rows.prefix(count).enumerated() {
            let version = versions[row.stream] ?? 0
            let before = index < TileShapes.sampled ? try bench.tileShapes(schema: schema) : nil
            append += try Measurement.seconds { try store.append(row.event, to: row.stream, expectedVersion: .exactly(version)) }
            let appended = before == nil ? nil : try bench.tileShapes(schema: schema)
            versions[row.stream] = version + 1
            follow += try Measurement.seconds { _ = try store.extendMerkleTree(limit: LogTree.extensionBatch) }
            if let before, let appended { writes.add(before: before, appended: appended, followed: try bench.tileShapes(schema: schema)) }
        }
        let size = try store.merkleTreeState().size
        guard size == UInt64(count) else {
            throw CLIError(message: "benchmark tree has \(size) leaves, expected \(count)", code: .failure)
        }
        let tiles = try bench.tileTotals(schema: schema)
        console.output(oneEventLine(count: count, append: append, follow: follow, tiles: tiles, writes: writes))
    }
}
