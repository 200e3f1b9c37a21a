import EventLog
import Foundation

extension AuditBenchmark {
    /// The chain hashing alone, with no database: the calls ``RawInserter`` makes for each row
    /// of a batch (three digests, the hash as the 64 hex digits bound), timed over every row;
    /// seconds per event, the median of `runs` passes.
    static func hashingAlone(_ rows: [BenchRow], runs: Int) -> Double {
        let hasher = RawInserter.ChainHashing(recordedAt: Timestamp.format(Date()))
        var seconds: [Double] = []
        var sink: UInt8 = 0
        for _ in 0..<max(runs, 1) {
            hasher.restart()
            seconds.append(Measurement.seconds {
                for row in rows {
                    hasher.link(row) { hex in sink ^= hex[63] }
                }
            })
        }
        // The digits are used, so the loop cannot be left out.
        if sink == 0xFF { print("") }
        return Measurement.median(seconds) / Double(max(rows.count, 1))
    }
}
