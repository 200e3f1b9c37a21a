import Commands
import EventLog
import Foundation
import JSONKit

/// A recorded event decoded once for all the projections, keeping only what views read.
///
/// A struct, stored inline in the decoded batch: no allocation per event, and no reference
/// count shared between the thread that decodes and the thread that applies.
public struct ViewEvent: Sendable {
    /// What the user did, as far as the views care.
    public enum Action: Sendable, Hashable {
        case searched(Search)
        case favorited(listingID: String, summary: ListingSummary)
        case unfavorited(listingID: String)
        /// The details are kept as the exact JSON the user saw (the cached details view
        /// serves them again without decoding them).
        case detailsViewed(listingID: String, name: String, details: Data)
        /// The marker an erasure left in the user's stream (``Erasure/markerType``): every
        /// event of the stream through `throughVersion` was erased, so each view keyed by the
        /// user forgets what it kept of them at once, as a rebuild from the tombstones does.
        case erased(throughVersion: Int64)
    }

    /// A search as the views see it: what was asked and how many results came back (the
    /// result listing ids, which no view shows, are not read), with its normalized identity
    /// computed once, while decoding (on the projector's reading thread).
    public struct Search: Sendable, Hashable {
        /// What the user searched for.
        public let keyword: String
        /// The category searched in.
        public let category: SearchCategory
        /// How far to look.
        public let distance: Double
        /// The distance's units.
        public let units: DistanceUnit
        /// Where: detected or typed.
        public let location: SearchLocation
        /// How many results came back, if the client said.
        public let resultCount: Int?
        /// What makes two searches the same (``RecentSearchesProjection/identity(keyword:category:distance:units:location:)``).
        public let identity: RecentSearchesProjection.SearchIdentity

        /// Makes a search and computes its identity.
        public init(keyword: String, category: SearchCategory, distance: Double, units: DistanceUnit, location: SearchLocation, resultCount: Int?) {
            self.keyword = keyword
            self.category = category
            self.distance = distance
            self.units = units
            self.location = location
            self.resultCount = resultCount
            self.identity = RecentSearchesProjection.identity(keyword: keyword, category: category, distance: distance, units: units, location: location)
        }

        /// The search a `Searched` event records.
        public init(_ searched: Searched) {
            self.init(keyword: searched.keyword, category: searched.category, distance: searched.distance, units: searched.units,
                      location: searched.location, resultCount: searched.results?.count)
        }
    }

    /// The event's place in the log.
    public let position: Int64
    /// The acting user (the owner of the event's stream: ``UserStream/userID(ofStream:)``).
    public let userID: String
    /// The key of the user's documents in the views keyed by user (``ViewKey/user(_:)``),
    /// computed once per event (on the reading thread during a catch-up) for all of them.
    public let userKey: String
    /// When the store recorded it.
    public let recordedAt: Date
    /// What the user did.
    public let action: Action

    /// Makes a view event (and computes the user's view key).
    public init(position: Int64, userID: String, recordedAt: Date, action: Action) {
        self.position = position
        self.userID = userID
        self.userKey = ViewKey.user(userID)
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
    /// Decodes an event lent by ``EventStore/scanAll(after:limit:_:)`` (as ``decode(_:)-(RecordedEvent)``).
    public static func decode(_ lent: LentEvent) -> ViewEvent? {
        guard let action = fastAction(type: lent.type, bytes: lent.data) ?? slowAction(type: lent.type, data: Data(lent.data)) else {
            return nil
        }
        return ViewEvent(position: lent.position, userID: UserStream.userID(ofStream: lent.streamID), recordedAt: lent.recordedAt, action: action)
    }

    /// The view event of a recorded event; nil for an event no view reads (another type) or a payload that cannot be decoded.
    public static func decode(_ recorded: RecordedEvent) -> ViewEvent? {
        guard let action = fastAction(type: recorded.type, data: recorded.data) ?? slowAction(type: recorded.type, data: recorded.data) else {
            return nil
        }
        return ViewEvent(position: recorded.position, userID: UserStream.userID(ofStream: recorded.streamID), recordedAt: recorded.recordedAt, action: action)
    }

    /// The action through the domain's own (Codable) decoder, with upcasting.
    public static func slowAction(type: String, data: Data) -> Action? {
        guard let event = try? DomainEvent.decode(type: type, data: data) else { return nil }
        switch event {
        case .searched(let search): return .searched(Search(search))
        case .favorited(let favorite): return .favorited(listingID: favorite.listingID, summary: favorite.summary)
        case .unfavorited(let unfavorite): return .unfavorited(listingID: unfavorite.listingID)
        case .detailsViewed(let viewed):
            guard let object = JSONObject(data), let details = object.raw("details") else { return nil }
            return .detailsViewed(listingID: viewed.listingID, name: viewed.details.info.name, details: details)
        }
    }

    /// The action read straight from the bytes in one pass over each object's members, for
    /// the current schema versions; nil when the payload is of another version or not of the
    /// expected shape (the slow path decides).
    public static func fastAction(type: String, data: Data) -> Action? {
        data.withUnsafeBytes { fastAction(type: type, bytes: $0) }
    }

    /// ``fastAction(type:data:)`` over bytes lent by the store.
    ///
    /// The fast path declines (the slow path decides) whenever the Codable decoder could read
    /// the payload differently: a member it reads given twice, a member name with escapes, a
    /// number out of `Double`'s finite range, an escaped string the decoder would refuse. For
    /// `DetailsViewed` it reads the listing id, the version and `details.info.name`, and keeps
    /// the details as the bytes that were logged without checking each of their fields.
    public static func fastAction(type: String, bytes raw: UnsafeRawBufferPointer) -> Action? {
        let whole = 0..<raw.count
        switch type {
        case Searched.typeName: return fastSearch(raw, whole).map(Action.searched)
        case Favorited.typeName: return Favorited(scanning: raw).map { .favorited(listingID: $0.listingID, summary: $0.summary) }
        case Unfavorited.typeName: return Unfavorited(scanning: raw).map { .unfavorited(listingID: $0.listingID) }
        case DetailsViewed.typeName:
            // Only the listing's name is needed from inside the (large) details: it is
            // found without scanning the rest of them.
            var listing: String?, version: Int?, details: Range<Int>?, seen = MemberNames(raw)
            guard JSONScan.forEachMember(raw, whole, { name, value in
                if seen.first(name, "details", 0) { details = value }
                else if seen.first(name, "listingID", 1) { listing = JSONScan.string(raw, value) }
                else if seen.first(name, "schemaVersion", 2) { version = JSONScan.integer(raw, value) }
            }), seen.usable, version == DetailsViewed.schemaVersion, let listing, let details,
                  let info = JSONScan.member("info", of: raw, in: details),
                  let nameRange = JSONScan.member("name", of: raw, in: info),
                  let name = JSONScan.string(raw, nameRange) else { return nil }
            return .detailsViewed(listingID: listing, name: name, details: Data(UnsafeRawBufferPointer(rebasing: raw[details])))
        case Erasure.markerType:
            return Erasure.markerThroughVersion(raw).map { .erased(throughVersion: $0) }
        default:
            return nil
        }
    }

    private static func fastSearch(_ raw: UnsafeRawBufferPointer, _ range: Range<Int>) -> Search? {
        var keyword: String?, category: SearchCategory?, distance: Double?, units: DistanceUnit?, version: Int?
        var location: SearchLocation?, resultCount: Int?, resultsUsable = true, unusable = false, seen = MemberNames(raw)
        guard JSONScan.forEachMember(raw, range, { name, value in
            if seen.first(name, "keyword", 0) { keyword = JSONScan.string(raw, value) }
            else if seen.first(name, "category", 1) { category = JSONScan.string(raw, value).flatMap(SearchCategory.init(rawValue:)) }
            else if seen.first(name, "distance", 2) { distance = JSONScan.number(raw, value) }
            else if seen.first(name, "units", 3) { units = JSONScan.string(raw, value).flatMap(DistanceUnit.init(rawValue:)) }
            else if seen.first(name, "schemaVersion", 4) { version = JSONScan.integer(raw, value) }
            else if seen.first(name, "location", 5) {
                location = fastLocation(raw, value)
                if location == nil { unusable = true }
            } else if seen.first(name, "results", 6) {
                guard !JSONScan.isNull(raw, value) else { return }
                var count: Int?, idsAreStrings = false, inner = MemberNames(raw)
                let wellFormed = JSONScan.forEachMember(raw, value) { name, value in
                    if inner.first(name, "count", 0) { count = JSONScan.integer(raw, value) }
                    else if inner.first(name, "listingIDs", 1) { idsAreStrings = JSONScan.isArrayOfStrings(raw, value) }
                }
                resultsUsable = wellFormed && inner.usable && count != nil && idsAreStrings
                resultCount = count
            }
        }), seen.usable, !unusable, resultsUsable, version == Searched.schemaVersion, let keyword, let category, let distance, let units, let location else {
            return nil
        }
        return Search(keyword: keyword, category: category, distance: distance, units: units, location: location, resultCount: resultCount)
    }

    /// `{"current":{"latitude":…,"longitude":…}}` or `{"custom":{"text":…}}`, nothing else.
    private static func fastLocation(_ raw: UnsafeRawBufferPointer, _ range: Range<Int>) -> SearchLocation? {
        var location: SearchLocation?, members = 0, seen = MemberNames(raw)
        guard JSONScan.forEachMember(raw, range, { name, value in
            members += 1
            if seen.first(name, "current", 0) {
                var latitude: Double?, longitude: Double?, inner = MemberNames(raw)
                guard JSONScan.forEachMember(raw, value, { name, value in
                    if inner.first(name, "latitude", 0) { latitude = JSONScan.number(raw, value) }
                    else if inner.first(name, "longitude", 1) { longitude = JSONScan.number(raw, value) }
                }), inner.usable, let latitude, let longitude else { return }
                location = .current(latitude: latitude, longitude: longitude)
            } else if seen.first(name, "custom", 1) {
                var text: String?, inner = MemberNames(raw)
                guard JSONScan.forEachMember(raw, value, { name, value in
                    if inner.first(name, "text", 0) { text = JSONScan.string(raw, value) }
                }), inner.usable, let text else { return }
                location = .custom(text: text)
            }
        }), seen.usable, members == 1 else { return nil }
        return location
    }
}
