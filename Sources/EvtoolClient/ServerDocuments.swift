import Foundation

/// The server's JSON, both ways: request bodies of actions, and the view documents it answers.
enum ServerDocuments {
    /// The kind of an action as the outbox files it.
    static func kind(of action: Action) -> String {
        switch action {
        case .search: return "search"
        case .favorite: return "favorite"
        case .unfavorite: return "unfavorite"
        case .viewDetails: return "view"
        }
    }

    /// The request body of an action (nil for a removal, which has none).
    static func body(of action: Action) -> Data? {
        switch action {
        case let .search(search):
            var object: [String: Any] = ["keyword": search.keyword, "category": search.category, "distance": search.distance, "units": search.units]
            switch search.place {
            case let .here(latitude, longitude): object["here"] = ["latitude": latitude, "longitude": longitude]
            case let .named(text): object["location"] = text
            }
            if let ids = search.resultListingIDs { object["results"] = ["count": ids.count, "listingIDs": ids] }
            return try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        case let .favorite(_, summary):
            let object = ["name": summary.name, "venue": summary.venue, "localDateTime": summary.localDateTime, "category": summary.category]
            return try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        case .unfavorite:
            return nil
        case let .viewDetails(details):
            return details.json
        }
    }

    /// The action an outbox row holds.
    static func action(kind: String, listing: String?, body: Data?) throws(ClientError) -> Action {
        let object = body.flatMap { try? JSONSerialization.jsonObject(with: $0) } as? [String: Any] ?? [:]
        switch kind {
        case "search":
            let place: SearchPlace
            if let here = object["here"] as? [String: Any] {
                place = .here(latitude: number(here["latitude"]), longitude: number(here["longitude"]))
            } else {
                place = .named(object["location"] as? String ?? "")
            }
            let results = (object["results"] as? [String: Any])?["listingIDs"] as? [String]
            return .search(Search(keyword: object["keyword"] as? String ?? "", category: object["category"] as? String ?? "All",
                                  distance: number(object["distance"]), units: object["units"] as? String ?? "miles", place: place, resultListingIDs: results))
        case "favorite":
            return .favorite(listingID: listing ?? "", summary: ListingSummary(
                name: object["name"] as? String ?? "", venue: object["venue"] as? String ?? "",
                localDateTime: object["localDateTime"] as? String ?? "", category: object["category"] as? String ?? ""))
        case "unfavorite":
            return .unfavorite(listingID: listing ?? "")
        case "view":
            return .viewDetails(try ListingDetails(json: body ?? Data()))
        default:
            throw ClientError.storage("the outbox holds an action of an unknown kind '\(kind)'")
        }
    }

    static func number(_ value: Any?) -> Double {
        (value as? NSNumber)?.doubleValue ?? 0
    }

    /// The server's time text (RFC 3339 with fractional seconds).
    static func date(_ value: Any?) -> Date {
        guard let text = value as? String else { return Date(timeIntervalSince1970: 0) }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text) ?? Date(timeIntervalSince1970: 0)
    }

    static func items(_ document: Data) -> [[String: Any]] {
        ((try? JSONSerialization.jsonObject(with: document)) as? [String: Any])?["items"] as? [[String: Any]] ?? []
    }

    /// `{"items":[{"addedAt","listingID","summary":{…}}]}`.
    static func favorites(_ document: Data) -> [Favorite] {
        items(document).map { item in
            let summary = item["summary"] as? [String: Any] ?? [:]
            return Favorite(listingID: item["listingID"] as? String ?? "",
                            summary: ListingSummary(name: summary["name"] as? String ?? "", venue: summary["venue"] as? String ?? "",
                                                    localDateTime: summary["localDateTime"] as? String ?? "", category: summary["category"] as? String ?? ""),
                            addedAt: date(item["addedAt"]))
        }
    }

    /// `{"items":[{"category","distance","keyword","location":{"current":{…}}|{"custom":{"text"}},"resultCount"?,"searchedAt","units"}]}`.
    static func recentSearches(_ document: Data) -> [RecentSearch] {
        items(document).map { item in
            let location = item["location"] as? [String: Any] ?? [:]
            let place: SearchPlace
            if let current = location["current"] as? [String: Any] {
                place = .here(latitude: number(current["latitude"]), longitude: number(current["longitude"]))
            } else {
                place = .named((location["custom"] as? [String: Any])?["text"] as? String ?? "")
            }
            return RecentSearch(keyword: item["keyword"] as? String ?? "", category: item["category"] as? String ?? "",
                                distance: number(item["distance"]), units: item["units"] as? String ?? "", place: place,
                                resultCount: (item["resultCount"] as? NSNumber)?.intValue, searchedAt: date(item["searchedAt"]))
        }
    }

    /// `{"items":[{"listingID","name","viewedAt"}]}`.
    static func recentlyViewed(_ document: Data) -> [RecentlyViewed] {
        items(document).map { item in
            RecentlyViewed(listingID: item["listingID"] as? String ?? "", name: item["name"] as? String ?? "", viewedAt: date(item["viewedAt"]))
        }
    }

    /// `{"listingID","favorite","details"}`: the details as JSON, or nil.
    static func listingDetails(_ document: Data) -> Data? {
        guard let object = (try? JSONSerialization.jsonObject(with: document)) as? [String: Any],
              let details = object["details"] as? [String: Any] else { return nil }
        return try? JSONSerialization.data(withJSONObject: details, options: [.sortedKeys])
    }

    /// The version an `ETag` (`"12"`) names, or nil.
    static func version(etag: String?) -> Int64? {
        guard let etag, etag.count >= 3, etag.hasPrefix("\""), etag.hasSuffix("\"") else { return nil }
        return Int64(etag.dropFirst().dropLast())
    }
}
