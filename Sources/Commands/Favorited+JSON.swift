import Foundation
import JSONKit

// The favorites' payloads written by hand (JSONKit's writer), as the metadata is
// (EventMetadata+JSON.swift): they are what the HTTP API's busiest writes record. The bytes
// are those `JSONEncoder` writes with sorted keys and slashes left alone (a test compares them
// on random payloads); text with a control character, which Foundation escapes otherwise
// than JSONKit for `\b` and `\f`, is left to `JSONEncoder` (nil here).

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
}
