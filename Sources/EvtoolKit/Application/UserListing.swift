import Foundation
import Projections

/// A listing's details page as one user sees it.
public struct UserListing: Sendable {
    /// The listing.
    public var listingID: String
    /// The cached details (the latest any user fetched); nil when no one opened it yet.
    public var details: CachedDetailsProjection.Document?
    /// Whether the listing is one of the user's favorites now ("Remove" rather than "Save Event").
    public var isFavorite: Bool
    /// The user's stream version the answer was read at.
    public var streamVersion: Int64

    /// Makes a page.
    public init(listingID: String, details: CachedDetailsProjection.Document?, isFavorite: Bool, streamVersion: Int64) {
        self.listingID = listingID
        self.details = details
        self.isFavorite = isFavorite
        self.streamVersion = streamVersion
    }
}
