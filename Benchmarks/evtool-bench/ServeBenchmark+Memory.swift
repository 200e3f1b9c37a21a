import Foundation
import EventLog

extension ServeBenchmark {
    /// What the server's view memory did so far, from its `/metrics` (one line): reads it
    /// answered, reads that went to the store, the bytes it holds.
    func memoryFigures(_ server: Server) throws -> String {
        let result = try Self.run("/usr/bin/curl", ["-s", "--max-time", "10", "-H", "Authorization: Bearer \(server.auditorToken)",
                                                    "http://127.0.0.1:\(server.port)/metrics"])
        guard result.status == 0 else { throw CLIError(message: "curl /metrics failed (status \(result.status)): \(result.errors)", code: .failure) }
        func value(_ name: String) -> Int? {
            for line in result.output.split(separator: "\n") where line.hasPrefix(name + " ") {
                return Int(line.dropFirst(name.count + 1))
            }
            return nil
        }
        guard let memory = value(#"evtool_view_memory_reads_total{source="memory"}"#), let store = value(#"evtool_view_memory_reads_total{source="store"}"#),
              let bytes = value("evtool_view_memory_bytes") else {
            return "view memory: off (no evtool_view_memory_reads_total in /metrics)"
        }
        let total = max(1, memory + store)
        return "view memory: \(String(memory).groupedThousands) reads from memory, \(String(store).groupedThousands) from the store (\(String(format: "%.1f", 100 * Double(memory) / Double(total)))% from memory), \(String(format: "%.1f", Double(bytes) / 1_048_576)) MiB held"
    }
}
