import Foundation

/// A point in the log's past at which to compute a view.
public enum AsOf: Sendable, Hashable {
    /// Everything up to and including this position.
    case position(Int64)
    /// Everything the store recorded at or before this time.
    case time(Date)

    /// Whether an event at `position`, recorded at `recordedAt`, is part of the log as of this point.
    public func includes(position: Int64, recordedAt: Date) -> Bool {
        switch self {
        case .position(let limit): return position <= limit
        case .time(let limit): return recordedAt <= limit
        }
    }
}
