import EventLog
import Foundation

/// Keeps a store's kept Merkle tree (``EventLog/MerkleTreeStore``) up with the head from a
/// thread of its own, for long-running processes (`evtool serve`): extends it, waits for new
/// events (at most 500 ms), and again, until ``stop()``. A failure is reported once through
/// `report` (and again when it changes) and retried a second later; a store that keeps no tree
/// makes the thread end at once. Proofs do not depend on it: each extends the tree itself first.
public final class KeptTreeFollower: @unchecked Sendable {
    private let store: any EventStore
    private let report: @Sendable (String) -> Void
    private let lock = NSLock()
    private var stopping = false
    private let done = DispatchSemaphore(value: 0)

    /// Starts following `store`; `report` receives one line per new kind of failure.
    public init(store: any EventStore, report: @escaping @Sendable (String) -> Void) {
        self.store = store
        self.report = report
        Thread.detachNewThread { [self] in run() }
    }

    private var shouldStop: Bool { lock.withLock { stopping } }

    private func run() {
        defer { done.signal() }
        var lastFailure: String?
        while !shouldStop {
            do {
                guard let state = try LogTree.extendKept(store) else { return }
                lastFailure = nil
                _ = try store.waitForEvents(after: max(state.position, try store.headPosition()), timeout: .milliseconds(500))
            } catch {
                let text = "\(error)"
                if text != lastFailure { report("the Merkle tree could not be extended (retrying every second): \(text)") }
                lastFailure = text
                Thread.sleep(forTimeInterval: 1)
            }
        }
    }

    /// Stops the thread and waits for it (at most the time of one extension and one wait).
    public func stop() {
        lock.withLock { stopping = true }
        done.wait()
    }
}
