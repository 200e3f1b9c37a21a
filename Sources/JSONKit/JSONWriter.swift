import Foundation

/// The one JSON writer of the package: compact JSON written by hand into bytes. The view
/// documents are written on every commit of every changed key, where Foundation's encoder
/// would cost more than the database; the API's responses, the transfer formats and the
/// command line's JSON output use the same writer, so they escape text the same way
/// (``JSONString``).
public struct JSONWriter {
    /// The JSON written so far.
    public var bytes: [UInt8] { storage }
    @usableFromInline var storage: [UInt8] = []
    @usableFromInline var needsComma = false

    /// Makes an empty writer.
    @inlinable public init() { storage.reserveCapacity(256) }

    /// The JSON written so far.
    @inlinable public var data: Data { Data(storage) }

    /// The JSON written so far, as text.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Opens an object; members follow as ``key(_:)`` and a value each.
    @inlinable public mutating func beginObject() { separate(); storage.append(UInt8(ascii: "{")); needsComma = false }
    /// Closes the object opened last.
    @inlinable public mutating func endObject() { storage.append(UInt8(ascii: "}")); needsComma = true }
    /// Opens an array; its values follow.
    @inlinable public mutating func beginArray() { separate(); storage.append(UInt8(ascii: "[")); needsComma = false }
    /// Closes the array opened last.
    @inlinable public mutating func endArray() { storage.append(UInt8(ascii: "]")); needsComma = true }

    /// Writes a member name known at compile time (copied, not escaped: it must need no escaping); the value follows.
    @inlinable public mutating func key(_ name: StaticString) {
        separate()
        storage.append(UInt8(ascii: "\""))
        storage.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        // Byte by byte, not an array literal: that made a heap allocation per member written.
        storage.append(UInt8(ascii: "\""))
        storage.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Writes a member name made at run time (escaped); the value follows. (Labelled, so that
    /// a literal name picks the copying ``key(_:)`` above.)
    @inlinable public mutating func key(escaping name: String) {
        separate()
        JSONString.append(name, to: &storage)
        storage.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// A string value.
    @inlinable public mutating func string(_ value: String) {
        separate()
        JSONString.append(value, to: &storage)
        needsComma = true
    }

    /// A string value, or null.
    @inlinable public mutating func string(_ value: String?) { if let value { string(value) } else { null() } }

    /// A whole number.
    @inlinable public mutating func number(_ value: Int) { number(Int64(value)) }

    /// A whole number (the digits `String(value)` has, written without making that string).
    @inlinable public mutating func number(_ value: Int64) { separate(); Self.appendDecimal(value, to: &storage); needsComma = true }

    /// A finite number, written as Swift's shortest round-tripping form (`10`, `2.5`, `34.0224`);
    /// JSON has no infinity or NaN, so those are written as `null` (the decoders never produce
    /// them, so a view never holds one).
    @inlinable public mutating func number(_ value: Double) {
        separate()
        if !value.isFinite {
            storage.append(contentsOf: "null".utf8)
        } else if value == value.rounded(), abs(value) < 1e15 {
            Self.appendDecimal(Int64(value), to: &storage)
        } else {
            storage.append(contentsOf: String(value).utf8)
        }
        needsComma = true
    }

    /// `true` or `false`.
    @inlinable public mutating func bool(_ value: Bool) { separate(); storage.append(contentsOf: (value ? "true" : "false").utf8); needsComma = true }
    /// `null`.
    @inlinable public mutating func null() { separate(); storage.append(contentsOf: "null".utf8); needsComma = true }

    /// JSON that is already JSON (a stored payload or view document), copied as it is.
    @inlinable public mutating func raw<Bytes: Sequence>(_ json: Bytes) where Bytes.Element == UInt8 { separate(); storage.append(contentsOf: json); needsComma = true }

    /// JSON that is already JSON, held as `Data` (a view's kept details), copied in one go.
    @inlinable public mutating func raw(_ json: Data) {
        separate()
        json.withUnsafeBytes { storage.append(contentsOf: $0) }
        needsComma = true
    }

    /// Empties the writer and keeps its storage, so that the next document is written into
    /// memory already allocated (a commit writes thousands of documents one after the other).
    @inlinable public mutating func removeAll() {
        storage.removeAll(keepingCapacity: true)
        needsComma = false
    }

    /// A string value written by `body` straight into the bytes, between the quotes (for
    /// text that never needs escaping, such as a formatted time): no intermediate `String`.
    @inlinable public mutating func unescapedString(_ body: (inout [UInt8]) -> Void) {
        separate()
        storage.append(UInt8(ascii: "\""))
        body(&storage)
        storage.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// Appends the decimal digits of `value` (with a minus sign when negative): the bytes of
    /// `String(value)`, from a buffer on the stack.
    @inlinable static func appendDecimal(_ value: Int64, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var rest = value.magnitude
        if rest < 10 {
            bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest))
            return
        }
        // UInt64.max has 20 digits.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = 20
            while rest != 0 {
                start -= 1
                digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    @inlinable mutating func separate() {
        if needsComma { storage.append(UInt8(ascii: ",")) }
    }
}
