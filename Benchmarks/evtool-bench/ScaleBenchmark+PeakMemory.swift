import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

extension ScaleBenchmark {
    /// A child's own peak resident set: its `VmHWM` (`/proc/PID/status`), read once when it has
    /// just started and then every 10 ms on a thread of its own until it has exited (``finish()``).
    ///
    /// Not `wait4`'s `ru_maxrss`: `posix_spawn` starts the child with `vfork` semantics (it
    /// shares this process's memory until it `exec`s), and Linux keeps the larger of the old
    /// memory's peak and the new one's as the child's, so `ru_maxrss` is never below this
    /// process's own peak. This process had read a 1.2 GiB store through a 2 GiB memory map
    /// (`--compare-cache`) when it spawned `evtool verify`, which then "peaked" at 845 MiB.
    final class PeakMemory: @unchecked Sendable {
        // Safe: `peak` and `running` are behind `state`; the polling block only reads `pid`.
        private let pid: pid_t
        private let state = Mutex((peak: 0, running: true))
        private let done = DispatchSemaphore(value: 0)

        /// Starts polling `pid`'s status (a thread of its own: the global queues' threads may all
        /// be busy for longer than a short child runs).
        init(pid: pid_t) {
            self.pid = pid
            sample()
            let thread = Thread { [self] in
                while state.withLock({ $0.running }) {
                    sample()
                    usleep(10_000)
                }
                done.signal()
            }
            thread.start()
        }

        /// One reading of the child's `VmHWM`, kept when it is the largest so far.
        private func sample() {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                  let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                  let kib = Int(line.split(separator: " ").dropFirst().first ?? "") else { return }
            state.withLock { $0.peak = max($0.peak, kib * 1_024) }
        }

        /// Stops polling (call it after the child exited and before it is reaped, so that its
        /// pid cannot name another process yet) and returns the peak in bytes (0: never read).
        func finish() -> Int {
            state.withLock { $0.running = false }
            done.wait()
            return state.withLock { $0.peak }
        }
    }

    /// Waits until `pid` has exited without reaping it (`waitid` with `WNOWAIT`).
    static func waitForExit(_ pid: pid_t) {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
    }
}
