/// Something a user asks to do; each carries the data the event it records would hold.
public enum UserCommand: Sendable, Hashable {
    /// Record a search.
    case search(Searched)
    /// Add a listing to the favorites.
    case favorite(listingID: String, summary: ListingSummary)
    /// Remove a listing from the favorites.
    case unfavorite(listingID: String)
    /// Record that the user opened a listing's details, and what they saw.
    case viewDetails(listingID: String, details: ListingDetails)
}
