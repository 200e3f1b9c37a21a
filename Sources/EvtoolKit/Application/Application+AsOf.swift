import EventLog
import Foundation
import Projections

extension Application {
    /// The one rule for a view, details or history `as-of` a point, on every face: a point
    /// past the end of the log (a position after the head, a time still to come) is refused
    /// naming the head, instead of being answered with today's view as if it were the past.
    /// - Throws: ``ApplicationError/invalid(field:message:)`` with the field `as-of`.
    public static func checkWithinLog(_ point: AsOf?, of store: any EventStore, now: Date = Date()) throws(ApplicationError) {
        guard let point else { return }
        do {
            switch point {
            case let .position(position):
                let head = try store.headPosition()
                guard position <= head else {
                    throw ApplicationError.invalid(field: "as-of", message: "as-of position \(position) is beyond the head of the log (position \(head)); give a position up to \(head), or no as-of for the current view")
                }
            case let .time(time):
                guard time <= now else {
                    let head = try store.headPosition()
                    throw ApplicationError.invalid(field: "as-of", message: "as-of time \(Timestamp.format(time)) is in the future, beyond the head of the log (position \(head)); give a time up to now, or no as-of for the current view")
                }
            }
        } catch let error as ApplicationError {
            throw error
        } catch {
            throw ApplicationError(error)
        }
    }

    /// ``checkWithinLog(_:of:now:)`` on this application's store.
    public func checkWithinLog(_ point: AsOf?) throws(ApplicationError) {
        try Self.checkWithinLog(point, of: store)
    }
}
