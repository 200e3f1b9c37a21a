import Commands
import Foundation

/// Cached details per listing: the latest details any user fetched, when and by whom, and how
/// many times they were viewed, so a details page can be shown again without a new fetch.
public struct CachedDetailsProjection: Projection {
    public struct Document: Codable, Sendable, Equatable {
        /// The latest details fetched.
        public var details: ListingDetails
        /// When they were fetched (the store's recording time of that view).
        public var fetchedAt: Date
        /// The user whose view fetched them.
        public var fetchedBy: String
        /// How many times any user opened the listing's details.
        public var views: Int
    }

    public let name = "cached-details"
    public let version = 1
    public let isKeyedByUser = false

    public init() {}

    public func key(for event: ViewEvent) -> String? {
        if case .detailsViewed(let viewed) = event.event { return viewed.listingID }
        return nil
    }

    public func evolve(_ document: Document?, with event: ViewEvent) -> Document? {
        guard case .detailsViewed(let viewed) = event.event else { return document }
        return Document(details: viewed.details, fetchedAt: event.recordedAt, fetchedBy: event.userID, views: (document?.views ?? 0) + 1)
    }
}
