import Foundation
import JSONKit

// The favorites' payloads written by hand (JSONKit's writer), as the metadata is
// (EventMetadata+JSON.swift), and read back by one scan of their bytes: they are what the HTTP
// API's busiest writes record, what every load of a user's decision state folds
// (``UserDecider/evolve(_:recorded:)``) and what the favorites view reads most. The bytes
// written are those `JSONEncoder` writes with sorted keys and slashes left alone (a test
// compares them on random payloads); text with a control character, which Foundation escapes
// otherwise than JSONKit for `\b` and `\f`, is left to `JSONEncoder` (nil here). A payload
// the scan cannot read exactly as `JSONDecoder` would (another schema version, a member read
// given twice, a name with escapes, a string the decoder would refuse, a missing member) is
// left to the decoder (nil here), which upcasts or names what is wrong; a test compares both
// readers.

extension Favorited {
    /// The payload's JSON as `JSONEncoder` writes it, or nil when a field holds a control character.
    func writtenJSON() -> Data? {
        let texts = [listingID, summary.category, summary.localDateTime, summary.name, summary.venue]
        guard !texts.contains(where: { $0.utf8.contains { $0 < 0x20 } }) else { return nil }
        var writer = JSONWriter()
        writer.beginObject()   // the keys in the order JSONEncoder's .sortedKeys puts them
        writer.key("listingID"); writer.string(listingID)
        writer.key("schemaVersion"); writer.number(Self.schemaVersion)
        writer.key("summary")
        summary.write(to: &writer)
        writer.endObject()
        return writer.data
    }

    /// The payload of schema version 1 read straight from its bytes (members in any order,
    /// others ignored, as the decoder does); nil when only the decoder can tell.
    public init?(scanning raw: UnsafeRawBufferPointer) {
        var listing: String?, version: Int?, summary: ListingSummary?, seen = MemberNames(raw)
        guard JSONScan.forEachMember(raw, 0..<raw.count, { name, value in
            if seen.first(name, "listingID", 0) { listing = JSONScan.string(raw, value) }
            else if seen.first(name, "schemaVersion", 1) { version = JSONScan.integer(raw, value) }
            else if seen.first(name, "summary", 2) { summary = ListingSummary(scanning: raw, value) }
        }), seen.usable, version == Self.schemaVersion, let listing, let summary else { return nil }
        self.init(listingID: listing, summary: summary)
    }
}

extension Unfavorited {
    /// The payload's JSON as `JSONEncoder` writes it, or nil when the id holds a control character.
    func writtenJSON() -> Data? {
        guard !listingID.utf8.contains(where: { $0 < 0x20 }) else { return nil }
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("listingID"); writer.string(listingID)
        writer.key("schemaVersion"); writer.number(Self.schemaVersion)
        writer.endObject()
        return writer.data
    }

    /// The payload of schema version 1 read straight from its bytes; nil when only the
    /// decoder can tell (as ``Favorited/init(scanning:)``).
    public init?(scanning raw: UnsafeRawBufferPointer) {
        var listing: String?, version: Int?, seen = MemberNames(raw)
        guard JSONScan.forEachMember(raw, 0..<raw.count, { name, value in
            if seen.first(name, "listingID", 0) { listing = JSONScan.string(raw, value) }
            else if seen.first(name, "schemaVersion", 1) { version = JSONScan.integer(raw, value) }
        }), seen.usable, version == Self.schemaVersion, let listing else { return nil }
        self.init(listingID: listing)
    }
}
