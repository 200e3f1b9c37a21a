import EventLog
import Foundation

/// How a following loop (``Following``: `log --follow`, `project --follow`) rides out a store
/// that goes away after it started, such as a PostgreSQL server that restarts: it waits for it
/// instead of giving up, and carries on from where it was.
///
/// The policy: when a step fails because the store cannot be reached (``EventStoreError/unavailable(_:)``,
/// or ``EventStoreError/outcomeUnknown(_:)`` when a write's connection dropped), report it once
/// (``Change/lost(_:)``), try again after a pause that grows from 50 ms to 2 s, and report
/// ``Change/back(after:position:)`` when the store is back. It keeps trying until it is back or
/// the caller asks it to stop. Any other error is rethrown. A store that cannot be reached when
/// the loop starts is the caller's error: only a store that was there and went away is waited for.
public struct Reconnecting {
    /// What happened to the store, for the caller to tell its user.
    public enum Change {
        /// The store went out of reach with this error; the loop waits for it.
        case lost(EventStoreError)
        /// The store is back after `after` seconds; the loop carries on after `position`.
        case back(after: TimeInterval, position: Int64)
    }

    /// The longest pause between tries, in seconds.
    public static let longestPause = 2.0
    private var pause = 0.05
    private var lostAt: Date?

    /// A policy with nothing lost yet.
    public init() {}

    /// Notes a step that worked: when the store had gone away, reports that it is back.
    /// - Parameter position: where the loop carries on from, for the report.
    public mutating func succeeded(from position: Int64, report: (Change) throws -> Void) rethrows {
        guard let lostAt else { return }
        self.lostAt = nil
        pause = 0.05
        try report(.back(after: Date().timeIntervalSince(lostAt), position: position))
    }

    /// Handles a step that failed: rethrows an error other than the store being out of reach;
    /// otherwise reports it (the first time), and waits before the caller tries again from its
    /// last position, returning early when `shouldStop` turns true.
    public mutating func failed(_ error: any Error, shouldStop: () -> Bool, report: (Change) throws -> Void) throws {
        guard let storeError = error as? EventStoreError else { throw error }
        switch storeError {
        case .unavailable, .outcomeUnknown: break
        default: throw storeError
        }
        if lostAt == nil {
            lostAt = Date()
            try report(.lost(storeError))
        }
        // Sleep in short slices, so that a request to stop is noticed at once.
        let until = Date().addingTimeInterval(pause)
        while Date() < until, !shouldStop() { Thread.sleep(forTimeInterval: min(0.05, pause)) }
        pause = min(pause * 2, Self.longestPause)
    }
}
