import EventLog
import Foundation
import Projections

/// Reading the log as it grows, and keeping the views current as it grows, riding out a store
/// that goes away meanwhile (``Reconnecting``). The caller says what to do with each step
/// through callbacks and when to stop (`shouldStop`, checked at least every half second).
public enum Following {
    /// Hands the events after `position` to `events`, in position order and in batches of up
    /// to 1,000, at most `limit` in all; returns how many it handed over.
    ///
    /// Without `follow` it stops at the head, and a store error is thrown. With `follow` it
    /// waits for new events (calling `idle` before each wait, e.g. to flush output) until
    /// `shouldStop` or the limit, and waits out a store that went away (`reconnecting` tells
    /// of it), carrying on after the last event handed over, so none is skipped or repeated.
    @discardableResult
    public static func log(
        _ store: any EventStore, after position: Int64, limit: Int = .max, follow: Bool,
        shouldStop: () -> Bool,
        events: ([RecordedEvent]) throws -> Void,
        idle: () throws -> Void = {},
        reconnecting: (Reconnecting.Change) throws -> Void
    ) throws -> Int {
        var handed = 0
        var cursor = position
        var policy = Reconnecting()
        while handed < limit, !shouldStop() {
            let batch: [RecordedEvent]
            do {
                batch = try store.readAll(after: cursor, limit: min(1_000, limit - handed))
                if follow { try policy.succeeded(from: cursor, report: reconnecting) }
            } catch where follow {
                try idle()
                try policy.failed(error, shouldStop: shouldStop, report: reconnecting)
                continue
            }
            if let last = batch.last {
                try events(batch)
                handed += batch.count
                cursor = last.position
                continue
            }
            guard follow else { break }
            try idle()
            do {
                while !shouldStop(), try !store.waitForEvents(after: cursor, timeout: .milliseconds(500)) {}
            } catch {
                try policy.failed(error, shouldStop: shouldStop, report: reconnecting)
            }
        }
        return handed
    }

    /// Keeps the views `names` current until `shouldStop`: applies new events as they are
    /// recorded, calling `reached` with each new position the views got to.
    ///
    /// On a store with leases (``ProjectionLeasing``, PostgreSQL) each view is advanced by one
    /// follower at a time: this one takes the leases it can, checks every 2 s for views whose
    /// follower died, and tells `leases` which views it advances whenever that changes (and
    /// once at the start; an empty list means another follower advances every view). A store
    /// that goes away is waited for (`reconnecting` tells of it); then the views start afresh
    /// from the checkpoints the store holds and the leases are taken again.
    /// - Parameter gathering: how long to let new events gather after a catch-up that moved
    ///   the views before the next one (0: at once), so that under a stream of writes each
    ///   view commits a batch every `gathering` seconds instead of a few events at a time.
    /// - Parameter extendingTree: whether each step also extends the kept Merkle tree (false
    ///   where a ``KeptTreeFollower`` of its own does, as in `evtool serve`).
    public static func views(
        _ store: any EventStore & ProjectionStore, names viewNames: [String] = Views.all.map(\.name),
        gathering: TimeInterval = 0, extendingTree: Bool = true,
        shouldStop: () -> Bool,
        leases: ([String]) throws -> Void = { _ in },
        reached: (Int64) throws -> Void,
        reconnecting: (Reconnecting.Change) throws -> Void
    ) throws {
        let leasing = store as? any ProjectionLeasing
        var held: [String: any ProjectionLease] = [:]
        var heldNames: [String] = []
        var reported = false
        var nextLeaseCheck = Date.distantPast
        var head: Int64 = -1
        var following = Projector(store: store)
        var policy = Reconnecting()
        while !shouldStop() {
            do {
                if let leasing, Date() >= nextLeaseCheck {
                    for name in viewNames where held[name]?.isHeld != true {
                        held[name] = try leasing.tryLease(name)
                    }
                    let now = viewNames.filter { held[$0] != nil }
                    if now != heldNames || !reported {
                        heldNames = now
                        reported = true
                        try leases(heldNames)
                    }
                    nextLeaseCheck = Date().addingTimeInterval(2)
                }
                let names = leasing == nil ? viewNames : heldNames
                guard !names.isEmpty else {
                    try policy.succeeded(from: head, report: reconnecting)
                    Thread.sleep(forTimeInterval: 0.5)
                    continue
                }
                let position = try following.catchUp(names)
                // The kept Merkle tree follows the head too (docs/explanation/audit.md).
                if extendingTree { try LogTree.extendKept(store) }
                try policy.succeeded(from: position, report: reconnecting)
                if position != head {
                    head = position
                    try reached(head)
                    if gathering > 0 { Thread.sleep(forTimeInterval: gathering) }
                }
                _ = try store.waitForEvents(after: head, timeout: .milliseconds(500))
            } catch {
                try policy.failed(error, shouldStop: shouldStop, report: reconnecting)
                // Start afresh from the checkpoints the store holds (a commit whose outcome
                // was lost is then either there or redone), and take the leases again: the
                // sessions that held them are gone.
                following = Projector(store: store)
                held = [:]
                nextLeaseCheck = .distantPast
            }
        }
    }
}
