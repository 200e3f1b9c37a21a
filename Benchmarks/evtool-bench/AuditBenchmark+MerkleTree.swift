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
        var appendSeconds: [Double] = [], followerSeconds: [Double] = []
        for _ in 0..<runs {
            let path = bench.freshPath("evtool-follower")
            let store = try SQLiteEventStore(path: path)
            var (append, follow) = (0.0, 0.0)
            var start = 0
            while start < rows.count {
                let end = min(start + batch, rows.count)
                let first = rows[start]
                append += try Measurement.seconds {
                    try store.append(rows[start..<end].map(\.event), to: first.stream, expectedVersion: .exactly(first.version - 1))
                }
                follow += try Measurement.seconds { _ = try store.extendMerkleTree(limit: batch) }
                start = end
            }
            guard try store.merkleTreeState().size == UInt64(events) else {
                throw CLIError(message: "benchmark tree has \(try store.merkleTreeState().size) leaves, expected \(events)", code: .failure)
            }
            appendSeconds.append(append)
            followerSeconds.append(follow)
            bench.remove(path)
        }
        let share = Measurement.median(followerSeconds) / Measurement.median(appendSeconds)
        console.output("Merkle tree follower after each batch of \(batch): \(String(format: "%.2f", Measurement.median(followerSeconds) / Double(events) * 1e6)) µs per event, \(String(format: "%.1f", share * 100))% of the batched append's \(String(format: "%.2f", Measurement.median(appendSeconds) / Double(events) * 1e6)) µs (target ≤ 10%: \(share <= 0.10 ? "ok" : "MISSED")); appends themselves: 0 extra writes")

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
}
