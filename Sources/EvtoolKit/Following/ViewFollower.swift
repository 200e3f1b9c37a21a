import EventLog
import Foundation
import Projections

/// Keeps a store's views current from a thread of its own while `evtool serve` runs, as
/// `evtool project --follow` does (``Following/views(_:names:shouldStop:leases:reached:reconnecting:)``):
/// a read then finds its view at the head, or a few events behind, instead of catching up
/// everything recorded since the last read while other readers of the view wait for it.
///
/// On PostgreSQL each view is advanced by one follower at a time, whichever server (or
/// `project --follow`) holds its lease. It leaves the kept Merkle tree to the server's
/// ``KeptTreeFollower``, so the two do not extend it in turns. A store that goes away is
/// waited for; any other failure is reported once through `report` (and again when it
/// changes) and tried again a second later. Reads do not depend on it: a view that is behind
/// is caught up by its reader.
public final class ViewFollower: Sendable {
    private let thread: FollowingThread

    /// How long new events gather between two catch-ups under writes: each view then commits
    /// once per 50 ms at most, and a read finds its view at most that far (plus a catch-up)
    /// behind, which it catches up itself.
    static let gathering: TimeInterval = 0.05

    /// Starts following `store`; `report` receives one line per new kind of failure, and one
    /// when a store that went away is back.
    public init(store: any EventStore & ProjectionStore, report: @escaping @Sendable (String) -> Void) {
        thread = FollowingThread(failure: { "views: could not be kept current (retrying every second; reads catch them up): \($0)" }, report: report) { thread in
            try Following.views(store, gathering: Self.gathering, extendingTree: false, shouldStop: { thread.shouldStop }, reached: { _ in thread.succeeded() }, reconnecting: { change in
                switch change {
                case let .lost(error): report("views: the store is out of reach, waiting for it: \(error)")
                case let .back(after, position): report("views: the store is back after \(Int(after.rounded())) s; following from position \(position)")
                }
            })
            return true
        }
    }

    /// Stops the thread and waits for it (at most the time of one catch-up and one wait).
    public func stop() { thread.stop() }
}
