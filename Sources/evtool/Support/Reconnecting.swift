import EventLog
import Foundation

/// How the following commands (`log --follow`, `project --follow`) ride out a store that goes
/// away after they started, such as a PostgreSQL server that restarts: they wait for it
/// instead of exiting, and carry on from where they were.
///
/// The policy: when a step fails because the store cannot be reached (``EventStoreError/unavailable(_:)``,
/// or ``EventStoreError/outcomeUnknown(_:)`` when a write's connection dropped), say so once on
/// standard error, try again after a pause that grows from 50 ms to 2 s, and say so again when
/// the store is back. It keeps trying until it is back or Ctrl-C. Any other error still ends the
/// command. A store that cannot be reached when the command starts is an error (exit 69), as
/// for every command: only a store that was there and went away is waited for.
struct Reconnecting {
    /// The longest pause between tries.
    static let longestPause = 2.0
    private var pause = 0.05
    private var lostAt: Date?

    /// Notes a step that worked: when the store had gone away, says that it is back.
    /// - Parameter position: where the command carries on from, for the message.
    mutating func succeeded(from position: Int64, console: inout Console) {
        guard let lostAt else { return }
        console.message(String(format: "the store is back after %.1f s; carrying on after position %lld", Date().timeIntervalSince(lostAt), position))
        self.lostAt = nil
        pause = 0.05
    }

    /// Handles a step that failed: rethrows an error other than the store being out of reach;
    /// otherwise reports it (the first time), and waits before the caller tries again from its
    /// last position (returning early on Ctrl-C).
    mutating func failed(_ error: any Error, console: inout Console) throws {
        guard let storeError = error as? EventStoreError else { throw error }
        switch storeError {
        case .unavailable, .outcomeUnknown: break
        default: throw storeError
        }
        if lostAt == nil {
            lostAt = Date()
            console.message("lost the store (\(Evtool.errorLine(storeError.description))); trying again, every \(Int(Self.longestPause)) s at most, until it is back (Ctrl-C stops)")
        }
        try console.flush()
        // Sleep in short slices, so that Ctrl-C is noticed at once.
        let until = Date().addingTimeInterval(pause)
        while Date() < until, !Interrupt.isRequested { Thread.sleep(forTimeInterval: min(0.05, pause)) }
        pause = min(pause * 2, Self.longestPause)
    }
}
