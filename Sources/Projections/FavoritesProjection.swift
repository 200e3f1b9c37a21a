import Commands
import Foundation
import JSONKit

/// Favorites per user: the listings they favorited and have not removed since, in the order
/// added, each with the summary a list row shows. An empty list removes the key.
///
/// Document: `{"items":[{"addedAt":"…","listingID":"L7","summary":{"category":…,"localDateTime":…,"name":…,"venue":…}}]}`.
public struct FavoritesProjection: Projection {
    /// One favorite as a list row shows it.
    public struct Item: Sendable, Hashable {
        /// The listing's id.
        public var listingID: String
        /// What the list row shows, as recorded with the favorite.
        public var summary: ListingSummary
        /// When it was favorited (the store's recording time).
        public var addedAt: Date

        /// `{"addedAt":"…","listingID":"L7","summary":{"category":…,"localDateTime":…,"name":…,"venue":…}}`.
        static let fields = DocumentFields<Item>(
            blank: { Item(listingID: "", summary: ListingSummary(name: "", venue: "", localDateTime: "", category: ""), addedAt: Date(timeIntervalSince1970: 0)) },
            [.date("addedAt", \.addedAt), .string("listingID", \.listingID), .object("summary", \.summary, summaryFields)])
        /// A summary as a favorite keeps it.
        static let summaryFields = DocumentFields<ListingSummary>(
            blank: { ListingSummary(name: "", venue: "", localDateTime: "", category: "") },
            [.string("category", \.category), .string("localDateTime", \.localDateTime), .string("name", \.name), .string("venue", \.venue)])
    }

    /// A user's favorites, oldest first.
    public struct Document: DeclaredDocument {
        /// The favorites, oldest first.
        public var items: [Item]

        /// Makes a document.
        public init(items: [Item]) { self.items = items }

        /// The view's name in messages about a stored document it cannot read.
        public static let documentName = "favorites"
        /// `{"items":[…]}`: the favorites, oldest first.
        public static let fields = DocumentFields<Document>(blank: { Document(items: []) }, [.array("items", \.items, Item.fields)])
    }

    public let name = "favorites"
    public let version = 2   // 2: keys by ViewKey (the identity rule)
    public let isKeyedByUser = true

    /// Makes the projection (``Views/favorites`` is the one the projector runs).
    public init() {}

    public func key(for event: ViewEvent) -> String? {
        switch event.action {
        case .favorited, .unfavorited: return event.userKey
        default: return nil
        }
    }

    public func evolve(_ document: inout Document?, with event: ViewEvent) {
        switch event.action {
        case let .favorited(listing, summary):
            // Favoriting a current favorite changes nothing (it keeps its place).
            if document == nil { document = Document(items: []) }
            if !document!.items.contains(where: { $0.listingID == listing }) {
                document!.items.append(Item(listingID: listing, summary: summary, addedAt: event.recordedAt))
            }
        case .unfavorited(let listing):
            document?.items.removeAll { $0.listingID == listing }
            if document?.items.isEmpty == true { document = nil }
        default:
            break
        }
    }
}
