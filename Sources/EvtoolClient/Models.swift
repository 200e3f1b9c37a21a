import Foundation

/// What a list row of a listing shows: the summary a favorite keeps.
public struct ListingSummary: Codable, Hashable, Sendable {
    /// The event's name, e.g. "Hamilton".
    public var name: String
    /// Where it takes place.
    public var venue: String
    /// When, in the venue's local time, e.g. "2026-12-05 19:30:00".
    public var localDateTime: String
    /// The category, e.g. "Arts & Theatre".
    public var category: String

    /// Makes a summary.
    public init(name: String, venue: String, localDateTime: String, category: String) {
        self.name = name
        self.venue = venue
        self.localDateTime = localDateTime
        self.category = category
    }
}

/// Where a search looked.
public enum SearchPlace: Hashable, Sendable {
    /// The device's detected location.
    case here(latitude: Double, longitude: Double)
    /// A place the user typed, e.g. "Los Angeles".
    case named(String)
}

/// A search as the user made it.
public struct Search: Hashable, Sendable {
    /// What the user typed.
    public var keyword: String
    /// The category searched in ("All", "Music", "Sports", "Arts & Theatre", "Film", "Miscellaneous").
    public var category: String
    /// How far to look, in ``units``.
    public var distance: Double
    /// "miles" or "km".
    public var units: String
    /// Where.
    public var place: SearchPlace
    /// The listings the search found, in the order shown, if the app reports them.
    public var resultListingIDs: [String]?

    /// Makes a search; the defaults are the server's (all categories, 10 miles).
    public init(keyword: String, category: String = "All", distance: Double = 10, units: String = "miles", place: SearchPlace,
                resultListingIDs: [String]? = nil) {
        self.keyword = keyword
        self.category = category
        self.distance = distance
        self.units = units
        self.place = place
        self.resultListingIDs = resultListingIDs
    }
}

/// The details of a listing as the app fetched them: the JSON object the server takes for
/// `POST /v1/users/{user}/views` (at least `{"listingID":"L1","info":{"name":"Hamilton"}}`).
public struct ListingDetails: Hashable, Sendable {
    /// The listing's id (the object's `listingID`).
    public let listingID: String
    /// The listing's name (the object's `info.name`).
    public let name: String
    /// The object as JSON, sent as it is.
    public let json: Data

    /// Reads the details from their JSON object.
    /// - Throws: ``ClientError/invalidAction(field:message:)`` when the bytes are not a JSON
    ///   object with a `listingID` string and an `info` object holding a `name` string.
    public init(json: Data) throws(ClientError) {
        guard let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any] else {
            throw ClientError.invalidAction(field: "details", message: "the details must be a JSON object")
        }
        guard let listingID = object["listingID"] as? String, !listingID.isEmpty else {
            throw ClientError.invalidAction(field: "listingID", message: "the details must have a listingID string")
        }
        guard let info = object["info"] as? [String: Any], let name = info["name"] as? String else {
            throw ClientError.invalidAction(field: "info.name", message: "the details must have an info object with a name string")
        }
        self.listingID = listingID
        self.name = name
        self.json = json
    }

    /// The least details: a listing's id and name.
    public init(listingID: String, name: String) {
        let object: [String: Any] = ["listingID": listingID, "info": ["name": name]]
        // A dictionary of strings always serializes.
        self.json = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        self.listingID = listingID
        self.name = name
    }
}

/// A user action the app records.
public enum Action: Hashable, Sendable {
    /// The user searched.
    case search(Search)
    /// The user saved a listing ("Save Event").
    case favorite(listingID: String, summary: ListingSummary)
    /// The user removed a listing from their favorites.
    case unfavorite(listingID: String)
    /// The user opened a listing's details.
    case viewDetails(ListingDetails)

    /// The listing the action concerns, if any.
    public var listingID: String? {
        switch self {
        case .search: return nil
        case let .favorite(listingID, _), let .unfavorite(listingID): return listingID
        case let .viewDetails(details): return details.listingID
        }
    }
}

/// An action in the outbox, not yet acknowledged by the server.
public struct PendingAction: Hashable, Sendable {
    /// Its place in the outbox (the order it is sent in).
    public let sequence: Int64
    /// The `Idempotency-Key` it is sent with, every time.
    public let idempotencyKey: String
    /// The action.
    public let action: Action
    /// When the app recorded it.
    public let recordedAt: Date
}

/// One favorite, as the favorites list shows it.
public struct Favorite: Hashable, Sendable {
    /// The listing's id.
    public var listingID: String
    /// What the row shows.
    public var summary: ListingSummary
    /// When it was saved: the server's time, or the device's for one not sent yet.
    public var addedAt: Date
}

/// One recent search.
public struct RecentSearch: Hashable, Sendable {
    /// What the user typed.
    public var keyword: String
    /// The category.
    public var category: String
    /// The distance.
    public var distance: Double
    /// The distance's units.
    public var units: String
    /// Where.
    public var place: SearchPlace
    /// How many results it had, when the app said.
    public var resultCount: Int?
    /// When it was last made.
    public var searchedAt: Date
}

/// One recently viewed listing.
public struct RecentlyViewed: Hashable, Sendable {
    /// The listing's id.
    public var listingID: String
    /// Its name.
    public var name: String
    /// When the user last opened it.
    public var viewedAt: Date
}

/// A listing as the user sees it on the details screen.
public struct ListingPage: Hashable, Sendable {
    /// The listing's id.
    public var listingID: String
    /// Whether it is one of the user's favorites ("Saved" rather than "Save Event").
    public var isFavorite: Bool
    /// The details JSON last seen (the user's own view not sent yet, else the server's), if any.
    public var details: Data?
}

/// An action the server refused (a 4xx): taken out of the outbox, with the server's problem
/// document, kept until the app dismisses it.
public struct RefusedAction: Hashable, Sendable {
    /// Its place in the outbox when it was recorded.
    public let sequence: Int64
    /// The action.
    public let action: Action
    /// When the app recorded it.
    public let recordedAt: Date
    /// Why the server refused it.
    public let problem: Problem
}
