import Foundation
import Projections

/// One page of a user's history, oldest first.
public struct HistoryPage: Sendable, Hashable {
    /// The entries of this page.
    public var entries: [History.Entry]
    /// The position to pass as `after` for the next page; nil when this is the last.
    public var nextAfter: Int64?

    /// Makes a page.
    public init(entries: [History.Entry], nextAfter: Int64?) {
        self.entries = entries
        self.nextAfter = nextAfter
    }
}
