/// What came back from a search.
public struct SearchResults: Sendable, Hashable, Codable {
    /// How many listings matched (may be more than the ids kept).
    public var count: Int
    /// The ids of the listings shown, in the order shown.
    public var listingIDs: [String]

    /// Makes a result summary.
    public init(count: Int, listingIDs: [String]) {
        self.count = count
        self.listingIDs = listingIDs
    }
}
