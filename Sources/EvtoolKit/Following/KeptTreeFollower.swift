import EventLog
import Foundation

/// Keeps a store's kept Merkle tree (``EventLog/MerkleTreeStore``) up with the head from a
/// thread of its own, for long-running processes (`evtool serve`): extends it, waits for new
/// events (at most 500 ms), and again, until ``stop()``. A failure is reported once through
/// `report` (and again when it changes) and retried a second later; a store that keeps no tree
/// makes the thread end at once. Proofs do not depend on it: each extends the tree itself first.
public final class KeptTreeFollower: Sendable {
    private let thread: FollowingThread

    /// Starts following `store`; `report` receives one line per new kind of failure.
    public init(store: any EventStore, report: @escaping @Sendable (String) -> Void) {
        thread = FollowingThread(failure: { "the Merkle tree could not be extended (retrying every second): \($0)" }, report: report) { thread in
            guard let state = try LogTree.extendKept(store) else { return false }
            thread.succeeded()
            _ = try store.waitForEvents(after: max(state.position, try store.headPosition()), timeout: .milliseconds(500))
            return true
        }
    }

    /// Stops the thread and waits for it (at most the time of one extension and one wait).
    public func stop() { thread.stop() }
}
