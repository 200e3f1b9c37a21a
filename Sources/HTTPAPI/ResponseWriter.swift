import EventLog
import Foundation

/// Writes the API's JSON responses by hand (member names may be dynamic, unlike the views'
/// ``Projections/JSONWriter``): compact, strings escaped as ``JSONSyntax/quoted(_:)`` does.
public struct ResponseWriter {
    /// The JSON written so far.
    public private(set) var bytes: [UInt8] = []
    private var needsComma = false

    /// Makes an empty writer.
    public init() {}

    public mutating func beginObject() { separate(); bytes.append(UInt8(ascii: "{")); needsComma = false }
    public mutating func endObject() { bytes.append(UInt8(ascii: "}")); needsComma = true }
    public mutating func beginArray() { separate(); bytes.append(UInt8(ascii: "[")); needsComma = false }
    public mutating func endArray() { bytes.append(UInt8(ascii: "]")); needsComma = true }

    /// Writes a member name; its value follows.
    public mutating func key(_ name: String) {
        separate()
        bytes.append(contentsOf: JSONSyntax.quoted(name).utf8)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    public mutating func string(_ value: String) { separate(); bytes.append(contentsOf: JSONSyntax.quoted(value).utf8); needsComma = true }
    public mutating func number(_ value: Int) { separate(); bytes.append(contentsOf: String(value).utf8); needsComma = true }
    public mutating func number(_ value: Int64) { separate(); bytes.append(contentsOf: String(value).utf8); needsComma = true }
    public mutating func bool(_ value: Bool) { separate(); bytes.append(contentsOf: (value ? "true" : "false").utf8); needsComma = true }
    public mutating func null() { separate(); bytes.append(contentsOf: "null".utf8); needsComma = true }
    /// A time in the ``Timestamp`` text form (RFC 3339, microseconds, UTC).
    public mutating func date(_ value: Date) { string(Timestamp.format(value)) }
    /// JSON that already is JSON (a stored payload or view document), copied as it is.
    public mutating func raw<Bytes: Sequence>(_ json: Bytes) where Bytes.Element == UInt8 { separate(); bytes.append(contentsOf: json); needsComma = true }
    /// An optional string, or null.
    public mutating func string(_ value: String?) { if let value { string(value) } else { null() } }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }
}
