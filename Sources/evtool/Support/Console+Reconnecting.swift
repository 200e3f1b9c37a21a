import EvtoolKit
import Foundation

extension Console {
    /// Tells the user on standard error that the store went away or is back
    /// (``EvtoolKit/Reconnecting``), flushing what was printed before.
    mutating func report(_ change: Reconnecting.Change) throws {
        switch change {
        case let .lost(error):
            message("lost the store (\(Evtool.errorLine(error.description))); trying again, every \(Int(Reconnecting.longestPause)) s at most, until it is back (Ctrl-C stops)")
            try flush()
        case let .back(seconds, position):
            message(String(format: "the store is back after %.1f s; carrying on after position %lld", seconds, position))
        }
    }
}
