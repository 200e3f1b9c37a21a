import EventLog
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Timing and memory readings for the benchmarks.
enum Measurement {
    /// Seconds taken by `body`, on the monotonic clock.
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    /// The median of some readings.
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// Resident memory now (VmRSS) and the peak since the last ``resetPeak()`` (VmHWM), in bytes.
    static func residentMemory() -> (current: Int, peak: Int) {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
        func field(_ name: String) -> Int {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name) }) else { return 0 }
            return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) * 1024
        }
        return (field("VmRSS:"), field("VmHWM:"))
    }

    /// Returns freed heap memory to the system and restarts the peak-RSS reading from now
    /// (Linux: writing 5 to /proc/self/clear_refs resets VmHWM).
    static func resetPeak() {
        // glibc's malloc_trim, looked up at run time (Swift's Glibc module does not export it).
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
            typealias Trim = @convention(c) (Int) -> Int32
            _ = unsafeBitCast(symbol, to: Trim.self)(0)
        }
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    static func mebibytes(_ bytes: Int) -> String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }
}

extension Measurement {
    /// Reads the log through a store in batches up to `limit`, touching every payload;
    /// returns the seconds taken and the events read.
    static func timedRead(_ store: any EventStore, limit: Int64 = .max, batchSize: Int = 1_000) throws -> (seconds: Double, count: Int) {
        var count = 0
        var bytes = 0
        let seconds = try Measurement.seconds {
            var cursor: Int64 = 0
            while cursor < limit {
                let batch = try store.readAll(after: cursor, limit: batchSize)
                guard let last = batch.last else { break }
                for event in batch { bytes &+= event.data.count &+ event.metadata.count }
                count += batch.count
                cursor = last.position
            }
        }
        precondition(bytes > 0 || count == 0)
        return (seconds, count)
    }
}
