import EventLog
import Foundation
import JSONKit

// The metadata's JSON written by hand (JSONKit's writer): every command writes it once, and
// Foundation's `JSONEncoder` cost a tenth of a server's CPU per write (in a profile of
// `evtool serve`). The bytes are those `JSONEncoder` writes with sorted keys and slashes
// left alone (a test compares them on random metadata).

extension EventMetadata {
    /// The metadata as compact JSON with sorted keys, as ``encoded()`` returns it.
    /// Cost: one pass over the fields' UTF-8.
    func writtenJSON() -> Data {
        var writer = JSONWriter()
        writer.beginObject()   // the keys in the order JSONEncoder's .sortedKeys puts them
        writer.key("causationID"); writer.string(causationID)
        writer.key("correlationID"); writer.string(correlationID)
        writer.key("handledAt"); writer.unescapedString { Timestamp.append(microseconds: Timestamp.microseconds(handledAt), to: &$0) }
        writer.key("occurredAt"); writer.unescapedString { Timestamp.append(microseconds: Timestamp.microseconds(occurredAt), to: &$0) }
        if let requestID { writer.key("requestID"); writer.string(requestID) }
        writer.key("schemaVersion"); writer.number(Self.schemaVersion)
        writer.key("source"); writer.string(source)
        writer.key("userID"); writer.string(userID)
        writer.endObject()
        return writer.data
    }

    /// Whether a field holds a control character: Foundation escapes some of them (`\b`, `\f`)
    /// otherwise than JSONKit does, so such metadata (which the rules mostly refuse) is
    /// written by `JSONEncoder`, to keep every event's metadata in one byte form.
    var hasControlCharacters: Bool {
        func has(_ text: String) -> Bool { text.utf8.contains { $0 < 0x20 } }
        return has(userID) || has(correlationID) || has(causationID) || has(source) || (requestID.map(has) ?? false)
    }
}
