import Commands
import EventLog
import Foundation
import StoreSQLite

/// Commands handled per second through the runner (load state, decide, append) on the SQLite
/// file store, for users with short and long streams, so the cost of long histories shows.
enum CommandsBenchmark {
    static func run(runs: Int, quick: Bool, directory: String, console: inout Console) throws {
        BenchCommand.preamble(&console, "commands through the runner on an SQLite file (durable), 10 users; median of \(runs) run(s)")
        let commands = quick ? 300 : 2_000
        var rows: [(label: String, steady: Double, first: Double)] = []
        for (label, length) in [("10-event streams", 10), ("10,000-event streams", 10_000)] {
            var steady: [Double] = [], first: [Double] = []
            for run in 0..<runs {
                let path = "\(directory)/commands-\(length)-\(run).sqlite"
                let store = try SQLiteEventStore(path: path)
                let snapshots = EventStoreSnapshots(store: try SQLiteEventStore(path: path + ".snapshots"))
                let result = try CommandBenchmark.run(store: store, users: 10, streamLength: length, commands: commands, snapshots: snapshots)
                steady.append(result.commandsPerSecond)
                first.append(result.firstCommandSeconds)
                for suffix in ["", "-wal", "-shm", ".snapshots", ".snapshots-wal", ".snapshots-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            }
            rows.append((label, Measurement.median(steady), Measurement.median(first)))
            console.output("\(label.padded(to: 24)) \(String(Int(rows.last!.steady)).groupedThousands) commands/s steady; first command of a process \(String(format: "%.2f", rows.last!.first * 1_000)) ms (snapshots)")
            console.flush()
        }
        let slowdown = rows[0].steady / rows[1].steady
        let firstSlowdown = rows[1].first / max(rows[0].first, 1e-9)
        console.output("long streams cost \(String(format: "%.2f", slowdown))× steady, \(String(format: "%.2f", firstSlowdown))× for a process's first command (target: ≤ 5×)")
    }
}
