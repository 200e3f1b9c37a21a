import Commands
import Foundation
import JSONKit

/// Recently viewed per user: the 20 listings whose details they opened most recently, newest
/// first, each once.
public struct RecentlyViewedProjection: Projection {
    /// How many listings a user's list keeps.
    public static let capacity = 20

    /// One listing the user opened.
    public struct Item: Sendable, Hashable {
        /// The listing's id.
        public var listingID: String
        /// The listing's name from the details seen.
        public var name: String
        /// When the user last opened it.
        public var viewedAt: Date
    }

    /// A user's recently viewed listings, newest first.
    public struct Document: ViewDocument {
        /// The listings, newest first.
        public var items: [Item]

        public init(items: [Item]) { self.items = items }

        public func write(to writer: inout JSONWriter) {
            writer.beginObject(); writer.key("items"); writer.beginArray()
            for item in items {
                writer.beginObject()
                writer.key("listingID"); writer.string(item.listingID)
                writer.key("name"); writer.string(item.name)
                writer.key("viewedAt"); writer.date(item.viewedAt)
                writer.endObject()
            }
            writer.endArray(); writer.endObject()
        }

        public init(json: JSONObject) throws {
            guard let elements = json.array("items") else { throw ViewDocumentError.missing("items", in: "recently viewed") }
            items = try elements.map { range in
                guard let item = JSONObject(json.bytes, range: range), let listing = item.string("listingID"), let name = item.string("name"),
                      let viewedAt = item.string("viewedAt").flatMap(EventLogTimestamp.parse) else {
                    throw ViewDocumentError.missing("items", in: "recently viewed")
                }
                return Item(listingID: listing, name: name, viewedAt: viewedAt)
            }
        }
    }

    public let name = "recently-viewed"
    public let version = 2   // 2: keys by ViewKey (the identity rule)
    public let isKeyedByUser = true

    /// Makes the projection (``Views/recentlyViewed`` is the one the projector runs).
    public init() {}

    public func key(for event: ViewEvent) -> String? {
        if case .detailsViewed = event.action { return event.userKey }
        return nil
    }

    public func evolve(_ document: inout Document?, with event: ViewEvent) {
        guard case let .detailsViewed(listing, name, _) = event.action else { return }
        if document == nil { document = Document(items: []) }
        document!.items.insertFirst(Item(listingID: listing, name: name, viewedAt: event.recordedAt),
                                    replacing: { $0.listingID == listing }, capacity: Self.capacity)
    }
}
