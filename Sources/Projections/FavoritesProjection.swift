import Commands
import EventLog
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
    ///
    /// Held so that copies share structure (``List``): whether a listing is a favorite, adding
    /// and removing one cost O(1) to O(log n), and the first change to a copy (a document
    /// folded on from one time travel keeps) copies a few small pieces, not every item.
    public struct Document: DeclaredDocument {
        /// The favorites, oldest first. Cost: O(1) while the list is plain (up to 32
        /// favorites); otherwise the array is made on each read, O(n).
        public var items: [Item] {
            get { list.items }
            set { list = List(newValue) }
        }

        /// The favorites as they are held.
        var list: List

        /// Makes a document.
        public init(items: [Item]) { list = List(items) }

        /// How many favorites, O(1).
        public var count: Int { list.count }

        /// Whether `listing` is one of the favorites, O(1).
        public func contains(listing: String) -> Bool { list.contains(listing: listing) }

        /// The view's name in messages about a stored document it cannot read.
        public static let documentName = "favorites"
        /// `{"items":[…]}`: the favorites, oldest first (written from the list as it is held,
        /// the same bytes as an array field of the items; read as one).
        public static let fields = DocumentFields<Document>(blank: { Document(items: []) }, [
            DocumentField("items", write: { document, writer in
                writer.key("items")
                writer.beginArray()
                if document.list.large == nil {
                    for item in document.list.small { Item.fields.write(item, to: &writer) }
                } else {
                    for item in document.list { Item.fields.write(item, to: &writer) }
                }
                writer.endArray()
            }, read: DocumentField<Document>.array("items", \.items, Item.fields).read),
        ])
    }

    public let name = "favorites"
    public let version = 2   // 2: keys by ViewKey (the identity rule)
    public let isKeyedByUser = true

    /// Makes the projection (``Views/favorites`` is the one the projector runs).
    public init() {}

    public func reads(type: String) -> Bool {
        type == Favorited.typeName || type == Unfavorited.typeName || type == Erasure.markerType
    }

    public func key(for event: ViewEvent) -> String? {
        switch event.action {
        case .favorited, .unfavorited, .erased: return event.userKey
        default: return nil
        }
    }

    public func evolve(_ document: inout Document?, with event: ViewEvent) {
        switch event.action {
        case let .favorited(listing, summary):
            // Favoriting a current favorite changes nothing (it keeps its place).
            if document == nil { document = Document(items: []) }
            _ = document!.list.add(Item(listingID: listing, summary: summary, addedAt: event.recordedAt))
        case .unfavorited(let listing):
            document?.list.remove(listing: listing)
            if document?.list.isEmpty == true { document = nil }
        case .erased:
            document = nil
        default:
            break
        }
    }
}
