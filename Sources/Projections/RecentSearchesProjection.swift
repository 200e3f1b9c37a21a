import Commands
import EventLog
import Foundation
import JSONKit

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
        /// What the user searched for, as typed.
        public var keyword: String
        /// The category searched in.
        public var category: SearchCategory
        /// How far to look.
        public var distance: Double
        /// The distance's units.
        public var units: DistanceUnit
        /// Where: detected or typed.
        public var location: SearchLocation
        /// How many results came back the last time, if the client said.
        public var resultCount: Int?
        /// When it was last searched.
        public var searchedAt: Date
        /// What makes two searches the same (not stored: computed from the fields above).
        public var identity: SearchIdentity

        /// `{"category":…,"distance":N,"keyword":…,"location":{"current":{"latitude":…,"longitude":…}}|{"custom":{"text":…}},"resultCount":N?,"searchedAt":…,"units":…}`;
        /// the identity is computed once the fields are read.
        static let fields = DocumentFields<Item>(
            blank: { blankItem },
            [.rawString("category", \.category), .double("distance", \.distance), .string("keyword", \.keyword), locationField,
             .optionalInteger("resultCount", \.resultCount), .date("searchedAt", \.searchedAt), .rawString("units", \.units)],
            completed: { item in
                item.identity = RecentSearchesProjection.identity(keyword: item.keyword, category: item.category, distance: item.distance,
                                                                  units: item.units, location: item.location)
            })
        /// The item the decoder fills in.
        static let blankItem = Item(keyword: "", category: .all, distance: 0, units: .miles, location: .custom(text: ""), resultCount: nil,
                                searchedAt: Date(timeIntervalSince1970: 0),
                                identity: RecentSearchesProjection.identity(keyword: "", category: .all, distance: 0, units: .miles, location: .custom(text: "")))
        /// The location, as one of two object shapes.
        static let locationField = DocumentField<Item>("location", write: { item, writer in item.writeLocation(to: &writer) }, read: { object, item in
            guard let place = object.object("location") else { return false }
            if let current = place.object("current"), let latitude = current.number("latitude"), let longitude = current.number("longitude") {
                item.location = .current(latitude: latitude, longitude: longitude)
            } else if let text = place.object("custom")?.string("text") {
                item.location = .custom(text: text)
            } else {
                throw ViewDocumentError.missing("location", in: "recent searches")
            }
            return true
        })
    }

    /// What makes two searches the same: the normalized keyword, the category, distance and
    /// units, and the place (a detected location to three decimals of a degree, a typed one
    /// normalized like a keyword). Small values compared field by field, not one long string.
    public struct SearchIdentity: Sendable, Hashable {
        /// Where a search looked.
        public enum Place: Sendable, Hashable {
            /// A detected location, in thousandths of a degree.
            case here(latitude: Int, longitude: Int)
            /// A typed location, normalized.
            case at(String)
        }
        /// The keyword, normalized (``RecentSearchesProjection/normalize(_:)``).
        public let keyword: String
        /// The category.
        public let category: SearchCategory
        /// The distance's bits, with -0 folded into 0 (documents write both as `0`).
        public let distanceBits: UInt64
        /// The units.
        public let units: DistanceUnit
        /// The place, rounded or normalized.
        public let place: Place
    }

    /// A user's recent searches, newest first.
    public struct Document: DeclaredDocument {
        /// The searches, newest first.
        public var items: [Item]

        /// Makes a document.
        public init(items: [Item]) { self.items = items }

        /// The view's name in messages about a stored document it cannot read.
        public static let documentName = "recent searches"
        /// `{"items":[…]}`: the searches, newest first.
        public static let fields = DocumentFields<Document>(blank: { Document(items: []) }, [.array("items", \.items, Item.fields)])
    }

    public let name = "recent-searches"
    /// 2: documents no longer store each search's identity (it is computed when read).
    public let version = 3   // 3: keys by ViewKey (the identity rule)
    public let isKeyedByUser = true

    /// Makes the projection (``Views/recentSearches`` is the one the projector runs).
    public init() {}

    public func reads(type: String) -> Bool {
        type == Searched.typeName || type == Erasure.markerType
    }

    public func key(for event: ViewEvent) -> String? {
        switch event.action {
        case .searched, .erased: return event.userKey
        default: return nil
        }
    }

    public func evolve(_ document: inout Document?, with event: ViewEvent) {
        if case .erased = event.action { document = nil; return }
        guard case .searched(let search) = event.action else { return }
        let identity = search.identity
        if document == nil { document = Document(items: []) }
        document!.items.insertFirst(
            Item(keyword: search.keyword, category: search.category, distance: search.distance, units: search.units,
                 location: search.location, resultCount: search.resultCount, searchedAt: event.recordedAt, identity: identity),
            replacing: { $0.identity == identity }, capacity: Self.capacity)
    }

    /// The normalized identity of a search.
    public static func identity(keyword: String, category: SearchCategory, distance: Double, units: DistanceUnit, location: SearchLocation) -> SearchIdentity {
        let place: SearchIdentity.Place
        switch location {
        case let .current(latitude, longitude): place = .here(latitude: thousandths(latitude), longitude: thousandths(longitude))
        case let .custom(text): place = .at(normalize(text))
        }
        return SearchIdentity(keyword: normalize(keyword), category: category, distanceBits: (distance + 0).bitPattern, units: units, place: place)
    }

    /// Lowercased, trimmed, inner white space folded to one space. ASCII text (nearly every
    /// keyword) takes a byte-level path; anything else goes through Unicode-aware lowercasing.
    static func normalize(_ text: String) -> String {
        let utf8 = text.utf8
        guard utf8.allSatisfy({ $0 < 0x80 }) else {
            return text.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }
        // In a buffer on the stack: a keyword of up to 15 bytes then becomes a string without
        // touching the heap at all.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: utf8.count) { buffer in
            var count = 0
            var pendingSpace = false
            for byte in utf8 {
                if byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) {
                    pendingSpace = count > 0
                    continue
                }
                if pendingSpace { buffer[count] = 0x20; count += 1; pendingSpace = false }
                buffer[count] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
                count += 1
            }
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[..<count]), as: UTF8.self)
        }
    }

    /// Degrees to three decimals (about 100 m), as a whole number of thousandths; a value
    /// too large for that (not a place on Earth) keeps its bits, so it never traps.
    static func thousandths(_ degrees: Double) -> Int {
        let scaled = (degrees * 1_000).rounded()
        return abs(scaled) < 1e15 ? Int(scaled) : Int(truncatingIfNeeded: degrees.bitPattern)
    }
}
