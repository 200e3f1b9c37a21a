import Commands
import Foundation

/// Recently viewed per user: the 20 listings whose details they opened most recently, newest
/// first, each once.
public struct RecentlyViewedProjection: Projection {
    /// How many listings a user's list keeps.
    public static let capacity = 20

    public struct Item: Codable, Sendable, Hashable {
        public var listingID: String
        /// The listing's name from the details seen.
        public var name: String
        /// When the user last opened it.
        public var viewedAt: Date
    }

    /// A user's recently viewed listings, newest first.
    public struct Document: Codable, Sendable, Equatable {
        public var items: [Item]
    }

    public let name = "recently-viewed"
    public let version = 1
    public let isKeyedByUser = true

    public init() {}

    public func key(for event: ViewEvent) -> String? {
        if case .detailsViewed = event.event { return event.userID }
        return nil
    }

    public func evolve(_ document: Document?, with event: ViewEvent) -> Document? {
        guard case .detailsViewed(let viewed) = event.event else { return document }
        var items = document?.items ?? []
        items.removeAll { $0.listingID == viewed.listingID }
        items.insert(Item(listingID: viewed.listingID, name: viewed.details.info.name, viewedAt: event.recordedAt), at: 0)
        if items.count > Self.capacity { items.removeLast(items.count - Self.capacity) }
        return Document(items: items)
    }
}
