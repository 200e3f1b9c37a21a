import Commands
import Foundation

/// Recent searches per user: the 20 most recent distinct searches, newest first. Repeating a
/// search moves it to the top instead of listing it twice.
///
/// Two searches are the same when their normalized keyword (trimmed, inner spaces folded,
/// case-insensitive), category, distance, units and location match; a detected location
/// matches to three decimals of a degree (about 100 m), a typed one like a keyword.
public struct RecentSearchesProjection: Projection {
    /// How many searches a user's list keeps.
    public static let capacity = 20

    /// One search as the list shows it.
    public struct Item: Codable, Sendable, Hashable {
        public var keyword: String
        public var category: SearchCategory
        public var distance: Double
        public var units: DistanceUnit
        public var location: SearchLocation
        /// How many results came back the last time, if the client said.
        public var resultCount: Int?
        /// When it was last searched.
        public var searchedAt: Date
        /// What makes two searches the same.
        public var identity: String
    }

    /// A user's recent searches, newest first.
    public struct Document: Codable, Sendable, Equatable {
        public var items: [Item]
    }

    public let name = "recent-searches"
    public let version = 1
    public let isKeyedByUser = true

    public init() {}

    public func key(for event: ViewEvent) -> String? {
        if case .searched = event.event { return event.userID }
        return nil
    }

    public func evolve(_ document: Document?, with event: ViewEvent) -> Document? {
        guard case .searched(let search) = event.event else { return document }
        let identity = Self.identity(of: search)
        var items = document?.items ?? []
        items.removeAll { $0.identity == identity }
        items.insert(Item(keyword: search.keyword, category: search.category, distance: search.distance, units: search.units,
                          location: search.location, resultCount: search.results?.count, searchedAt: event.recordedAt,
                          identity: identity), at: 0)
        if items.count > Self.capacity { items.removeLast(items.count - Self.capacity) }
        return Document(items: items)
    }

    /// The normalized identity of a search.
    public static func identity(of search: Searched) -> String {
        let location: String
        switch search.location {
        case let .current(latitude, longitude):
            location = "here:" + String(format: "%.3f,%.3f", latitude, longitude)
        case let .custom(text):
            location = "at:" + normalize(text)
        }
        return [normalize(search.keyword), search.category.rawValue, String(search.distance), search.units.rawValue, location]
            .joined(separator: "\u{1F}")
    }

    static func normalize(_ text: String) -> String {
        text.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
