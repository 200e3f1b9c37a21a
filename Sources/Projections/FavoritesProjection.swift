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
    }

    /// A user's favorites, oldest first.
    public struct Document: ViewDocument {
        /// The favorites, oldest first.
        public var items: [Item]

        public func write(to writer: inout JSONWriter) {
            writer.beginObject(); writer.key("items"); writer.beginArray()
            for item in items {
                writer.beginObject()
                writer.key("addedAt"); writer.date(item.addedAt)
                writer.key("listingID"); writer.string(item.listingID)
                writer.key("summary"); writer.beginObject()
                writer.key("category"); writer.string(item.summary.category)
                writer.key("localDateTime"); writer.string(item.summary.localDateTime)
                writer.key("name"); writer.string(item.summary.name)
                writer.key("venue"); writer.string(item.summary.venue)
                writer.endObject()
                writer.endObject()
            }
            writer.endArray(); writer.endObject()
        }

        public init(items: [Item]) { self.items = items }

        public init(json: JSONObject) throws {
            guard let elements = json.array("items") else { throw ViewDocumentError.missing("items", in: "favorites") }
            items = try elements.map { range in
                guard let item = JSONObject(json.bytes, range: range), let listing = item.string("listingID"),
                      let added = item.string("addedAt").flatMap(EventLogTimestamp.parse), let summary = item.object("summary"),
                      let name = summary.string("name"), let venue = summary.string("venue"),
                      let dateTime = summary.string("localDateTime"), let category = summary.string("category") else {
                    throw ViewDocumentError.missing("items", in: "favorites")
                }
                return Item(listingID: listing, summary: ListingSummary(name: name, venue: venue, localDateTime: dateTime, category: category), addedAt: added)
            }
        }
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
