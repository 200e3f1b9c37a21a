import Foundation
@testable import evtool_bench
import Testing

/// `bench scale`'s peak memory of a child (`evtool rebuild`, `evtool verify`) is the child's
/// own, not the benchmark's: `wait4`'s `ru_maxrss` of a child started by `posix_spawn` is at
/// least the parent's peak (the child shares its memory until it execs), which made
/// `evtool verify` seem to grow from 141 to 845 MiB with the log (docs/explanation/scale.md).
@Suite("Peak memory of a child process")
struct PeakMemoryTests {
    @Test("a small child of a large parent measures small; a child that grows measures its growth")
    func ownPeak() throws {
        // This process: 300 MiB more, written (so resident) before the children start.
        let ballast = [UInt8](repeating: 1, count: 300 << 20)
        let small = try ScaleBenchmark.child("/bin/sleep", ["0.3"])
        #expect(small.maxResident < 50 << 20, "sleep measured \(small.maxResident) bytes")
        // A shell that holds a 60 MB string (command substitution) for a moment.
        let large = try ScaleBenchmark.child("/bin/sh", ["-c", #"x=$(head -c 60000000 /dev/zero | tr '\0' a); sleep 0.3; echo ${#x}"#])
        #expect(large.output == "60000000\n", "\(large.output)")
        #expect(large.maxResident > 55 << 20 && large.maxResident < 280 << 20, "sh measured \(large.maxResident) bytes")
        withExtendedLifetime(ballast) {}
    }
}
