/// What a list row shows of a listing (a concert, game or show).
public struct ListingSummary: Sendable, Hashable, Codable {
    /// The listing's name.
    public var name: String
    /// The venue's name.
    public var venue: String
    /// The local date and time as the source gave it, e.g. `2026-12-05 19:30:00`.
    public var localDateTime: String
    /// The listing's category as the source gave it (e.g. `Music`); picks the row's icon.
    public var category: String

    /// Makes a summary.
    public init(name: String, venue: String, localDateTime: String, category: String) {
        self.name = name
        self.venue = venue
        self.localDateTime = localDateTime
        self.category = category
    }
}
