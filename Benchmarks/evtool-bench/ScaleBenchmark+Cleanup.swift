import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

extension ScaleBenchmark {
    /// What to remove if the suite is interrupted: its SQLite files and PostgreSQL schemas, and
    /// the `evtool` child it is waiting for. On SIGINT or SIGTERM the handler (on its own queue)
    /// ends the child, runs every removal still registered, and exits with 128 + the signal.
    enum Cleanup {
        private struct State {
            var removals: [String: @Sendable () -> Void] = [:]
            var child: pid_t?
            var sources: [any DispatchSourceSignal] = []
        }
        private static let state = Mutex(State())

        /// Registers `remove` under `name` (a path or a schema), and the signal handlers once.
        static func register(_ name: String, _ remove: @escaping @Sendable () -> Void) {
            state.withLock { state in
                state.removals[name] = remove
                guard state.sources.isEmpty else { return }
                for number in [SIGINT, SIGTERM] {
                    signal(number, SIG_IGN)   // the dispatch source takes it instead
                    let source = DispatchSource.makeSignalSource(signal: number, queue: DispatchQueue(label: "evtool-bench.cleanup"))
                    source.setEventHandler { interrupted(number) }
                    source.resume()
                    state.sources.append(source)
                }
            }
        }

        /// Forgets `name` once its store has been removed the ordinary way.
        static func unregister(_ name: String) {
            _ = state.withLock { $0.removals.removeValue(forKey: name) }
        }

        /// The child being waited for (nil: none).
        static func child(_ pid: pid_t?) {
            state.withLock { $0.child = pid }
        }

        private static func interrupted(_ number: Int32) {
            let (removals, child) = state.withLock { state in
                let taken = (Array(state.removals.values), state.child)
                state.removals = [:]
                return taken
            }
            if let child { kill(child, SIGTERM) }
            FileHandle.standardError.write(Data("evtool-bench: interrupted; removing the scale suite's \(removals.count) store(s)\n".utf8))
            for remove in removals { remove() }
            _exit(128 + number)   // not exit(): the main thread is still using the stores
        }
    }
}
