import EventLog
import Foundation
import Projections

/// `--as-of` past the end of the log is refused instead of answered with today's view.
enum AsOfCheck {
    /// Throws (exit 65, naming the head) when `point` is a position after the log's head or a
    /// time still to come; nil and points within the log pass.
    static func within(_ point: AsOf?, of store: any EventStore, now: Date = Date()) throws {
        guard let point else { return }
        switch point {
        case let .position(position):
            let head = try store.headPosition()
            guard position <= head else {
                throw CLIError(message: "'--as-of' position \(position) is beyond the head of the log (position \(head)); give a position up to \(head) or leave --as-of out for the current view", code: .invalidData)
            }
        case let .time(time):
            guard time <= now else {
                let head = try store.headPosition()
                throw CLIError(message: "'--as-of' time \(Timestamp.format(time)) is in the future, beyond the head of the log (position \(head)); leave --as-of out for the current view", code: .invalidData)
            }
        }
    }
}
