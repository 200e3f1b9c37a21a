import Commands
import EventLog
import Foundation

/// A recorded event decoded once for all the projections, keeping only what views read.
public struct ViewEvent: Sendable {
    /// What the user did, as far as the views care.
    public enum Action: Sendable, Hashable {
        case searched(Searched)
        case favorited(listingID: String, summary: ListingSummary)
        case unfavorited(listingID: String)
        /// The details are kept as the exact JSON the user saw (the cached details view
        /// serves them again without decoding them).
        case detailsViewed(listingID: String, name: String, details: Data)
    }

    /// The event's place in the log.
    public var position: Int64
    /// The acting user (the event's stream).
    public var userID: String
    /// When the store recorded it.
    public var recordedAt: Date
    /// What the user did.
    public var action: Action

    public init(position: Int64, userID: String, recordedAt: Date, action: Action) {
        self.position = position
        self.userID = userID
        self.recordedAt = recordedAt
        self.action = action
    }

    /// Decodes a recorded event; nil when its type is not one of the domain's (such events do
    /// not concern any view) or its payload cannot be read (the projector counts those).
    ///
    /// Events of the current schema versions take a fast path that reads only the fields the
    /// views need, straight from the bytes (FIELD-NOTES §8); anything else (older versions,
    /// which need upcasting) goes through ``DomainEvent/decode(type:data:)``. A test checks
    /// that both paths agree.
    public static func decode(_ recorded: RecordedEvent) -> ViewEvent? {
        guard let action = fastAction(type: recorded.type, data: recorded.data) ?? slowAction(type: recorded.type, data: recorded.data) else {
            return nil
        }
        return ViewEvent(position: recorded.position, userID: recorded.streamID, recordedAt: recorded.recordedAt, action: action)
    }

    /// The action through the domain's own (Codable) decoder, with upcasting.
    public static func slowAction(type: String, data: Data) -> Action? {
        guard let event = try? DomainEvent.decode(type: type, data: data) else { return nil }
        switch event {
        case .searched(let search): return .searched(search)
        case .favorited(let favorite): return .favorited(listingID: favorite.listingID, summary: favorite.summary)
        case .unfavorited(let unfavorite): return .unfavorited(listingID: unfavorite.listingID)
        case .detailsViewed(let viewed):
            guard let object = JSONObject(data), let details = object.raw("details") else { return nil }
            return .detailsViewed(listingID: viewed.listingID, name: viewed.details.info.name, details: details)
        }
    }

    /// The action read straight from the bytes, for the current schema versions; nil when the
    /// payload is of another version or not of the expected shape (the slow path decides).
    public static func fastAction(type: String, data: Data) -> Action? {
        guard let object = JSONObject(data) else { return nil }
        switch type {
        case Searched.typeName:
            guard object.integer("schemaVersion") == Searched.schemaVersion,
                  let keyword = object.string("keyword"),
                  let category = object.string("category").flatMap(SearchCategory.init(rawValue:)),
                  let distance = object.number("distance"),
                  let units = object.string("units").flatMap(DistanceUnit.init(rawValue:)),
                  let locationObject = object.object("location"), locationObject.count == 1 else { return nil }
            let location: SearchLocation
            if let current = locationObject.object("current") {
                guard let latitude = current.number("latitude"), let longitude = current.number("longitude") else { return nil }
                location = .current(latitude: latitude, longitude: longitude)
            } else if let custom = locationObject.object("custom"), let text = custom.string("text") {
                location = .custom(text: text)
            } else {
                return nil
            }
            var results: SearchResults?
            if !object.isNullOrMissing("results") {
                guard let found = object.object("results"), let count = found.integer("count"), let ids = found.strings("listingIDs") else { return nil }
                results = SearchResults(count: count, listingIDs: ids)
            }
            return .searched(Searched(keyword: keyword, category: category, distance: distance, units: units, location: location, results: results))
        case Favorited.typeName:
            guard object.integer("schemaVersion") == Favorited.schemaVersion, let listing = object.string("listingID"),
                  let summary = object.object("summary"), let name = summary.string("name"), let venue = summary.string("venue"),
                  let dateTime = summary.string("localDateTime"), let category = summary.string("category") else { return nil }
            return .favorited(listingID: listing, summary: ListingSummary(name: name, venue: venue, localDateTime: dateTime, category: category))
        case Unfavorited.typeName:
            guard object.integer("schemaVersion") == Unfavorited.schemaVersion, let listing = object.string("listingID") else { return nil }
            return .unfavorited(listingID: listing)
        case DetailsViewed.typeName:
            // Only the listing's name is needed from inside the (large) details: find it
            // without scanning the rest of them.
            guard object.integer("schemaVersion") == DetailsViewed.schemaVersion, let listing = object.string("listingID"),
                  let detailsRange = object.range("details"),
                  let infoRange = JSONObject.member("info", of: data, in: detailsRange),
                  let nameRange = JSONObject.member("name", of: data, in: infoRange),
                  let name = JSONScan.string(data, nameRange) else { return nil }
            return .detailsViewed(listingID: listing, name: name, details: data.subdata(in: detailsRange))
        default:
            return nil
        }
    }
}
