import Commands
import Foundation
import JSONKit

/// Cached details per listing: the latest details any user fetched, when and by whom, and how
/// many times they were viewed, so a details page can be shown again without a new fetch.
///
/// The details are kept as the exact JSON that was recorded, never decoded and re-encoded.
public struct CachedDetailsProjection: Projection {
    public struct Document: DeclaredDocument {
        /// The latest details fetched, as recorded (a ``ListingDetails`` in JSON).
        public var details: Data
        /// When they were fetched (the store's recording time of that view).
        public var fetchedAt: Date
        /// The user whose view fetched them.
        public var fetchedBy: String
        /// How many times any user opened the listing's details.
        public var views: Int

        public init(details: Data, fetchedAt: Date, fetchedBy: String, views: Int) {
            self.details = details
            self.fetchedAt = fetchedAt
            self.fetchedBy = fetchedBy
            self.views = views
        }

        /// The details, decoded.
        public func decodedDetails() throws -> ListingDetails {
            try JSONDecoder().decode(ListingDetails.self, from: details)
        }

        /// The view's name in messages about a stored document it cannot read.
        public static let documentName = "cached details"
        /// `{"details":{…},"fetchedAt":…,"fetchedBy":…,"views":N}`, the details as recorded.
        public static let fields = DocumentFields<Document>(
            blank: { Document(details: Data(), fetchedAt: Date(timeIntervalSince1970: 0), fetchedBy: "", views: 0) },
            [.raw("details", \.details), .date("fetchedAt", \.fetchedAt), .string("fetchedBy", \.fetchedBy), .integer("views", \.views)])
    }

    public let name = "cached-details"
    public let version = 2   // 2: keys by ViewKey (the identity rule)
    public let isKeyedByUser = false

    /// Makes the projection (``Views/cachedDetails`` is the one the projector runs).
    public init() {}

    public func reads(type: String) -> Bool { type == DetailsViewed.typeName }

    public func key(for event: ViewEvent) -> String? {
        if case let .detailsViewed(listing, _, _) = event.action { return ViewKey.listing(listing) }
        return nil
    }

    public func evolve(_ document: inout Document?, with event: ViewEvent) {
        guard case let .detailsViewed(_, _, details) = event.action else { return }
        document = Document(details: details, fetchedAt: event.recordedAt, fetchedBy: event.userID, views: (document?.views ?? 0) + 1)
    }
}
