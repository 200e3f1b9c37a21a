/// An independent count of a store's events table, taken apart from the position-ordered
/// read that `verify` checks, so that a row that read never visits (at position 0 or below,
/// or otherwise outside the log) is still accounted for.
public struct EventRowCensus: Sendable, Hashable {
    /// Rows at or below the position asked about, whatever their position (0 and negative
    /// included).
    public var rows: Int64
    /// The lowest position in the table, if it holds any row.
    public var lowestPosition: Int64?

    /// Makes a census.
    public init(rows: Int64, lowestPosition: Int64?) {
        self.rows = rows
        self.lowestPosition = lowestPosition
    }
}
