import Commands
import EventLog
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

        /// `{"listingID":…,"name":…,"viewedAt":…}`.
        static let fields = DocumentFields<Item>(
            blank: { Item(listingID: "", name: "", viewedAt: Date(timeIntervalSince1970: 0)) },
            [.string("listingID", \.listingID), .string("name", \.name), .date("viewedAt", \.viewedAt)])
    }

    /// A user's recently viewed listings, newest first.
    public struct Document: DeclaredDocument {
        /// The listings, newest first.
        public var items: [Item]

        /// Makes a document.
        public init(items: [Item]) { self.items = items }

        /// The view's name in messages about a stored document it cannot read.
        public static let documentName = "recently viewed"
        /// `{"items":[{"listingID":…,"name":…,"viewedAt":…}]}`.
        public static let fields = DocumentFields<Document>(blank: { Document(items: []) }, [.array("items", \.items, Item.fields)])
    }

    public let name = "recently-viewed"
    public let version = 2   // 2: keys by ViewKey (the identity rule)
    public let isKeyedByUser = true

    /// Makes the projection (``Views/recentlyViewed`` is the one the projector runs).
    public init() {}

    public func reads(type: String) -> Bool {
        type == DetailsViewed.typeName || type == Erasure.markerType
    }

    public func key(for event: ViewEvent) -> String? {
        switch event.action {
        case .detailsViewed, .erased: return event.userKey
        default: return nil
        }
    }

    public func evolve(_ document: inout Document?, with event: ViewEvent) {
        if case .erased = event.action { document = nil; return }
        guard case let .detailsViewed(listing, name, _) = event.action else { return }
        if document == nil { document = Document(items: []) }
        document!.items.insertFirst(Item(listingID: listing, name: name, viewedAt: event.recordedAt),
                                    replacing: { $0.listingID == listing }, capacity: Self.capacity)
    }
}
