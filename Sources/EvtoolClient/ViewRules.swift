import Foundation

/// The server's view rules (Sources/Projections), folded on the device: what the server's
/// favorites, recent searches and recently viewed become once the pending actions are
/// recorded. A property test (Tests/EvtoolClientTests) checks them against the server's
/// projections on random action sequences.
public enum ViewRules {
    /// How many recent searches and recently viewed listings the server keeps.
    public static let capacity = 20

    /// Favorites: a new favorite goes last (a current favorite keeps its place and summary);
    /// a removed one goes.
    public static func fold(_ favorites: inout [Favorite], _ action: Action, at time: Date) {
        switch action {
        case let .favorite(listingID, summary):
            guard !favorites.contains(where: { $0.listingID == listingID }) else { return }
            favorites.append(Favorite(listingID: listingID, summary: summary, addedAt: time))
        case let .unfavorite(listingID):
            favorites.removeAll { $0.listingID == listingID }
        default:
            break
        }
    }

    /// Recent searches: newest first, a repeated search moved to the top, at most ``capacity``.
    public static func fold(_ searches: inout [RecentSearch], _ action: Action, at time: Date) {
        guard case let .search(search) = action else { return }
        let item = RecentSearch(keyword: search.keyword, category: search.category, distance: search.distance, units: search.units,
                                place: search.place, resultCount: search.resultListingIDs?.count, searchedAt: time)
        let identity = Self.identity(of: item)
        insertFirst(&searches, item, replacing: { Self.identity(of: $0) == identity })
    }

    /// Recently viewed: newest first, each listing once, at most ``capacity``.
    public static func fold(_ viewed: inout [RecentlyViewed], _ action: Action, at time: Date) {
        guard case let .viewDetails(details) = action else { return }
        insertFirst(&viewed, RecentlyViewed(listingID: details.listingID, name: details.name, viewedAt: time),
                    replacing: { $0.listingID == details.listingID })
    }

    /// What makes two searches the same on the server: the keyword normalized (lowercased,
    /// trimmed, inner white space folded), the category, distance and units, and the place (a
    /// detected one to three decimals of a degree, a typed one normalized like a keyword).
    public struct SearchIdentity: Hashable, Sendable {
        let keyword: String
        let category: String
        let distanceBits: UInt64
        let units: String
        let place: Place

        enum Place: Hashable {
            case here(Int, Int)
            case named(String)
        }
    }

    /// The identity of a search.
    public static func identity(of search: RecentSearch) -> SearchIdentity {
        let place: SearchIdentity.Place
        switch search.place {
        case let .here(latitude, longitude): place = .here(thousandths(latitude), thousandths(longitude))
        case let .named(text): place = .named(normalize(text))
        }
        return SearchIdentity(keyword: normalize(search.keyword), category: search.category, distanceBits: (search.distance + 0).bitPattern,
                              units: search.units, place: place)
    }

    static func normalize(_ text: String) -> String {
        text.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    static func thousandths(_ degrees: Double) -> Int {
        let scaled = (degrees * 1_000).rounded()
        return abs(scaled) < 1e15 ? Int(scaled) : Int(truncatingIfNeeded: degrees.bitPattern)
    }

    static func insertFirst<Element>(_ list: inout [Element], _ element: Element, replacing isSame: (Element) -> Bool) {
        list.removeAll(where: isSame)
        list.insert(element, at: 0)
        if list.count > capacity { list.removeLast(list.count - capacity) }
    }
}
