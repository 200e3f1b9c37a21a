import Commands
import Foundation

/// Favorites per user: the listings they favorited and have not removed since, in the order
/// added, each with the summary a list row shows. An empty list removes the key.
public struct FavoritesProjection: Projection {
    /// One favorite as a list row shows it.
    public struct Item: Codable, Sendable, Hashable {
        public var listingID: String
        public var summary: ListingSummary
        /// When it was favorited (the store's recording time).
        public var addedAt: Date
    }

    /// A user's favorites, oldest first.
    public struct Document: Codable, Sendable, Equatable {
        public var items: [Item]
    }

    public let name = "favorites"
    public let version = 1
    public let isKeyedByUser = true

    public init() {}

    public func key(for event: ViewEvent) -> String? {
        switch event.event {
        case .favorited, .unfavorited: return event.userID
        default: return nil
        }
    }

    public func evolve(_ document: Document?, with event: ViewEvent) -> Document? {
        var items = document?.items ?? []
        switch event.event {
        case .favorited(let favorited):
            // Favoriting a current favorite changes nothing (it keeps its place).
            if !items.contains(where: { $0.listingID == favorited.listingID }) {
                items.append(Item(listingID: favorited.listingID, summary: favorited.summary, addedAt: event.recordedAt))
            }
        case .unfavorited(let unfavorited):
            items.removeAll { $0.listingID == unfavorited.listingID }
        default:
            return document
        }
        return items.isEmpty ? nil : Document(items: items)
    }
}
