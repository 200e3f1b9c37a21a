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
    public struct Item: Sendable, Hashable {
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
    public struct Document: ViewDocument {
        public var items: [Item]

        public init(items: [Item]) { self.items = items }

        public func write(to writer: inout JSONWriter) {
            writer.beginObject(); writer.key("items"); writer.beginArray()
            for item in items {
                writer.beginObject()
                writer.key("category"); writer.string(item.category.rawValue)
                writer.key("distance"); writer.number(item.distance)
                writer.key("identity"); writer.string(item.identity)
                writer.key("keyword"); writer.string(item.keyword)
                writer.key("location"); writer.beginObject()
                switch item.location {
                case let .current(latitude, longitude):
                    writer.key("current"); writer.beginObject()
                    writer.key("latitude"); writer.number(latitude)
                    writer.key("longitude"); writer.number(longitude)
                    writer.endObject()
                case let .custom(text):
                    writer.key("custom"); writer.beginObject(); writer.key("text"); writer.string(text); writer.endObject()
                }
                writer.endObject()
                if let count = item.resultCount { writer.key("resultCount"); writer.number(count) }
                writer.key("searchedAt"); writer.date(item.searchedAt)
                writer.key("units"); writer.string(item.units.rawValue)
                writer.endObject()
            }
            writer.endArray(); writer.endObject()
        }

        public init(json: JSONObject) throws {
            guard let elements = json.array("items") else { throw ViewDocumentError.missing("items", in: "recent searches") }
            items = try elements.map { range in
                guard let item = JSONObject(json.bytes, range: range), let keyword = item.string("keyword"),
                      let category = item.string("category").flatMap(SearchCategory.init(rawValue:)),
                      let distance = item.number("distance"), let units = item.string("units").flatMap(DistanceUnit.init(rawValue:)),
                      let identity = item.string("identity"), let searchedAt = item.string("searchedAt").flatMap(EventLogTimestamp.parse),
                      let place = item.object("location") else {
                    throw ViewDocumentError.missing("items", in: "recent searches")
                }
                let location: SearchLocation
                if let current = place.object("current"), let latitude = current.number("latitude"), let longitude = current.number("longitude") {
                    location = .current(latitude: latitude, longitude: longitude)
                } else if let text = place.object("custom")?.string("text") {
                    location = .custom(text: text)
                } else {
                    throw ViewDocumentError.missing("location", in: "recent searches")
                }
                return Item(keyword: keyword, category: category, distance: distance, units: units, location: location,
                            resultCount: item.integer("resultCount"), searchedAt: searchedAt, identity: identity)
            }
        }
    }

    public let name = "recent-searches"
    public let version = 1
    public let isKeyedByUser = true

    public init() {}

    public func key(for event: ViewEvent) -> String? {
        if case .searched = event.action { return event.userID }
        return nil
    }

    public func evolve(_ document: inout Document?, with event: ViewEvent) {
        guard case .searched(let search) = event.action else { return }
        let identity = Self.identity(of: search)
        if document == nil { document = Document(items: []) }
        document!.items.insertFirst(
            Item(keyword: search.keyword, category: search.category, distance: search.distance, units: search.units,
                 location: search.location, resultCount: search.results?.count, searchedAt: event.recordedAt, identity: identity),
            replacing: { $0.identity == identity }, capacity: Self.capacity)
    }

    /// The normalized identity of a search.
    public static func identity(of search: Searched) -> String {
        let location: String
        switch search.location {
        case let .current(latitude, longitude):
            location = "here:" + rounded(latitude) + "," + rounded(longitude)
        case let .custom(text):
            location = "at:" + normalize(text)
        }
        return normalize(search.keyword) + "|" + search.category.rawValue + "|" + String(search.distance) + "|" + search.units.rawValue + "|" + location
    }

    /// Lowercased, trimmed, inner white space folded to one space. ASCII text (nearly every
    /// keyword) takes a byte-level path; anything else goes through Unicode-aware lowercasing.
    static func normalize(_ text: String) -> String {
        let utf8 = text.utf8
        guard utf8.allSatisfy({ $0 < 0x80 }) else {
            return text.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var pendingSpace = false
        for byte in utf8 {
            if byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) {
                pendingSpace = !bytes.isEmpty
                continue
            }
            if pendingSpace { bytes.append(0x20); pendingSpace = false }
            bytes.append(byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Degrees to three decimals, as text (about 100 m).
    static func rounded(_ degrees: Double) -> String {
        let thousandths = Int((degrees * 1_000).rounded())
        return String(thousandths)
    }
}
