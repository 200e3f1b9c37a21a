import Foundation

/// Read access to one JSON object's members by byte ranges into the bytes that hold it:
/// values are decoded only when asked for, and a nested value can be kept as raw bytes.
///
/// The scan does not validate: it reads payloads from the log, which every store validated
/// when they were appended (``JSONSyntax``), and stored view documents the projections wrote.
/// On malformed bytes it returns nil or misses members; it never reads out of bounds.
public struct JSONObject {
    /// The bytes the object is in.
    public let bytes: Data
    /// Each member: where its name's characters are (inside the quotes) and where its value is.
    @usableFromInline var entries: [(name: Range<Int>, value: Range<Int>)] = []

    /// Reads the object that makes up `bytes`; nil when they do not start with an object.
    public init?(_ bytes: Data) {
        self.init(bytes, range: 0..<bytes.count)
    }

    /// Reads the object at offsets `range` of `bytes`.
    public init?(_ bytes: Data, range: Range<Int>) {
        self.bytes = bytes
        guard let entries = bytes.withUnsafeBytes({ JSONScan.members(UnsafeRawBufferPointer(rebasing: $0[range]), offset: range.lowerBound) }) else {
            return nil
        }
        self.entries = entries
    }

    /// How many members the object has.
    public var count: Int { entries.count }

    /// The members' names as written between their quotes (an escape in a name is not decoded).
    public var names: [String] {
        bytes.withUnsafeBytes { raw in entries.map { String(decoding: UnsafeRawBufferPointer(rebasing: raw[$0.name]), as: UTF8.self) } }
    }

    /// Where a member's value is, by name.
    @inlinable public func range(_ name: StaticString) -> Range<Int>? {
        let count = name.utf8CodeUnitCount
        return bytes.withUnsafeBytes { raw -> Range<Int>? in
            for entry in entries where entry.name.count == count {
                if memcmp(raw.baseAddress! + entry.name.lowerBound, name.utf8Start, count) == 0 { return entry.value }
            }
            return nil
        }
    }

    /// A string member; nil when missing or not a string.
    @inlinable public func string(_ key: StaticString) -> String? {
        range(key).flatMap { JSONScan.string(bytes, $0) }
    }

    /// A string member written without escapes, as its bytes spell it; nil when missing, not a
    /// string, or holding a `\` escape (which a caller that must answer exactly as
    /// Foundation's decoder does leaves to it).
    @inlinable public func plainString(_ key: StaticString) -> String? {
        guard let range = range(key) else { return nil }
        return bytes.withUnsafeBytes { raw -> String? in
            guard range.count >= 2, raw[range.lowerBound] == UInt8(ascii: "\""), raw[range.upperBound - 1] == UInt8(ascii: "\"") else { return nil }
            let inner = UnsafeRawBufferPointer(rebasing: raw[(range.lowerBound + 1)..<(range.upperBound - 1)])
            guard inner.isEmpty || memchr(inner.baseAddress!, Int32(UInt8(ascii: "\\")), inner.count) == nil else { return nil }
            return String(decoding: inner, as: UTF8.self)
        }
    }

    /// A number member; nil when missing or not a (finite) number.
    @inlinable public func number(_ key: StaticString) -> Double? {
        guard let range = range(key) else { return nil }
        return bytes.withUnsafeBytes { JSONScan.number($0, range) }
    }

    /// A whole-number member; nil when missing or not a whole number that fits an `Int`.
    @inlinable public func integer(_ key: StaticString) -> Int? {
        guard let range = range(key) else { return nil }
        return bytes.withUnsafeBytes { JSONScan.integer($0, range) }
    }

    /// A nested object member.
    @inlinable public func object(_ key: StaticString) -> JSONObject? {
        range(key).flatMap { JSONObject(bytes, range: $0) }
    }

    /// An array member's elements as byte ranges (offsets into `bytes`).
    @inlinable public func array(_ key: StaticString) -> [Range<Int>]? {
        guard let range = range(key) else { return nil }
        return bytes.withUnsafeBytes { JSONScan.elements(UnsafeRawBufferPointer(rebasing: $0[range]), offset: range.lowerBound) }
    }

    /// A member's exact bytes (e.g. a nested payload to keep as it is).
    @inlinable public func raw(_ key: StaticString) -> Data? {
        range(key).map { bytes.subdata(in: $0) }
    }
}

/// The package's one JSON scanner, behind ``JSONObject``, the projections' event decoding
/// and ``JSONSyntax/members(of:in:)``: one pass, no allocation but the result, no
/// validation (its input was validated when appended, or was written by ``JSONWriter``);
/// on malformed bytes it returns nil or misses members, never reads out of bounds.
public enum JSONScan {
    /// Whether `byte` is JSON white space (space, line feed, carriage return, tab).
    @inlinable public static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }

    /// The end (exclusive) of the value starting at `start`, or nil if it runs off the end.
    @inlinable public static func valueEnd(_ raw: UnsafeRawBufferPointer, from start: Int) -> Int? {
        var index = start
        guard index < raw.count else { return nil }
        switch raw[index] {
        case UInt8(ascii: "\""):
            return stringEnd(raw, from: index)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            // Skips runs of bytes that cannot change the nesting with a table lookup per byte
            // (most of a large payload is text inside strings).
            var depth = 0
            let bytes = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            let count = raw.count
            return structural.withUnsafeBufferPointer { table -> Int? in
                while index < count {
                    let byte = bytes[index]
                    switch table[Int(byte)] {
                    case 0:
                        index += 1
                    case 1:   // a string: skip to its closing quote
                        guard let quote = closingQuote(bytes, from: index + 1, count: count) else { return nil }
                        index = quote + 1
                    case 2:
                        depth += 1
                        index += 1
                    default:
                        depth -= 1
                        index += 1
                        if depth == 0 { return index }
                    }
                }
                return nil
            }
        default:
            while index < raw.count {
                let byte = raw[index]
                if byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") || isSpace(byte) { break }
                index += 1
            }
            return index > start ? index : nil
        }
    }

    /// What each byte means to ``valueEnd(_:from:)`` outside strings: 1 opens a string, 2 opens
    /// an object or array, 3 closes one, 0 nothing.
    @usableFromInline static let structural: [UInt8] = (0..<256).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "\""): return 1
        case UInt8(ascii: "{"), UInt8(ascii: "["): return 2
        case UInt8(ascii: "}"), UInt8(ascii: "]"): return 3
        default: return 0
        }
    }

    /// The end (exclusive) of the string whose opening quote is at `start`.
    @inlinable public static func stringEnd(_ raw: UnsafeRawBufferPointer, from start: Int) -> Int? {
        closingQuote(raw.baseAddress!.assumingMemoryBound(to: UInt8.self), from: start + 1, count: raw.count).map { $0 + 1 }
    }

    /// Where the string that goes on at `start` ends: its closing quote, the first one not
    /// escaped. Eight bytes at a time while none of them is a quote or a backslash (the
    /// bytes of a word that are zero after XOR with either character show up in
    /// `(v - 0x01…) & ~v & 0x80…`, lowest first), then byte by byte at the one found.
    @inline(__always)
    @inlinable public static func closingQuote(_ bytes: UnsafePointer<UInt8>, from start: Int, count: Int) -> Int? {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        var index = start
        while true {
            while index + 8 <= count {
                let word = UInt64(littleEndian: UnsafeRawPointer(bytes + index).loadUnaligned(as: UInt64.self))
                let quotes = word ^ 0x2222_2222_2222_2222, slashes = word ^ 0x5C5C_5C5C_5C5C_5C5C
                let found = (((quotes &- ones) & ~quotes) | ((slashes &- ones) & ~slashes)) & highs
                if found == 0 { index += 8; continue }
                index += found.trailingZeroBitCount / 8
                break
            }
            guard index < count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "\""): return index
            case UInt8(ascii: "\\"): index += 2
            default: index += 1
            }
        }
    }

    /// The members of the object that `raw` holds; ranges are offset by `offset`.
    @inlinable public static func members(_ raw: UnsafeRawBufferPointer, offset: Int) -> [(name: Range<Int>, value: Range<Int>)]? {
        var index = 0
        while index < raw.count, isSpace(raw[index]) { index += 1 }
        guard index < raw.count, raw[index] == UInt8(ascii: "{") else { return nil }
        index += 1
        var entries: [(name: Range<Int>, value: Range<Int>)] = []
        entries.reserveCapacity(8)
        while true {
            while index < raw.count, isSpace(raw[index]) || raw[index] == UInt8(ascii: ",") { index += 1 }
            guard index < raw.count else { return nil }
            if raw[index] == UInt8(ascii: "}") { return entries }
            guard raw[index] == UInt8(ascii: "\""), let nameEnd = valueEnd(raw, from: index) else { return nil }
            let name = (index + 1 + offset)..<(nameEnd - 1 + offset)
            index = nameEnd
            while index < raw.count, isSpace(raw[index]) { index += 1 }
            guard index < raw.count, raw[index] == UInt8(ascii: ":") else { return nil }
            index += 1
            while index < raw.count, isSpace(raw[index]) { index += 1 }
            guard let valueEnd = valueEnd(raw, from: index) else { return nil }
            entries.append((name, (index + offset)..<(valueEnd + offset)))
            index = valueEnd
        }
    }

    /// The elements of the array that `raw` holds; ranges are offset by `offset`.
    @inlinable public static func elements(_ raw: UnsafeRawBufferPointer, offset: Int) -> [Range<Int>]? {
        var index = 0
        while index < raw.count, isSpace(raw[index]) { index += 1 }
        guard index < raw.count, raw[index] == UInt8(ascii: "[") else { return nil }
        index += 1
        var elements: [Range<Int>] = []
        while true {
            while index < raw.count, isSpace(raw[index]) || raw[index] == UInt8(ascii: ",") { index += 1 }
            guard index < raw.count else { return nil }
            if raw[index] == UInt8(ascii: "]") { return elements }
            guard let end = valueEnd(raw, from: index) else { return nil }
            elements.append((index + offset)..<(end + offset))
            index = end
        }
    }

    /// Calls `body` with each member of the object at `range` of `raw` (where the member's
    /// name is, inside the quotes, and where its value is), in one pass and without allocating.
    /// - Returns: false when the bytes there are not an object, or a member's name is written
    ///   with escapes (`"re\u0073ults"` would need unescaping to compare; the fast decoder
    ///   leaves such objects to the full one).
    @inline(__always)
    @inlinable public static func forEachMember(_ raw: UnsafeRawBufferPointer, _ range: Range<Int>, _ body: (Range<Int>, Range<Int>) -> Void) -> Bool {
        var index = range.lowerBound
        let end = range.upperBound
        while index < end, isSpace(raw[index]) { index += 1 }
        guard index < end, raw[index] == UInt8(ascii: "{") else { return false }
        index += 1
        let bounded = UnsafeRawBufferPointer(rebasing: raw[..<end])
        while true {
            while index < end, isSpace(raw[index]) || raw[index] == UInt8(ascii: ",") { index += 1 }
            guard index < end else { return false }
            if raw[index] == UInt8(ascii: "}") { return true }
            guard raw[index] == UInt8(ascii: "\""), let nameEnd = valueEnd(bounded, from: index) else { return false }
            let name = (index + 1)..<(nameEnd - 1)
            guard memchr(raw.baseAddress! + name.lowerBound, Int32(UInt8(ascii: "\\")), name.count) == nil else { return false }
            index = nameEnd
            while index < end, isSpace(raw[index]) { index += 1 }
            guard index < end, raw[index] == UInt8(ascii: ":") else { return false }
            index += 1
            while index < end, isSpace(raw[index]) { index += 1 }
            guard let valueEnd = valueEnd(bounded, from: index) else { return false }
            body(name, index..<valueEnd)
            index = valueEnd
        }
    }

    /// The range of member `name` of the object at `range` of `raw`, scanning only as far as
    /// that member.
    @inlinable public static func member(_ name: StaticString, of raw: UnsafeRawBufferPointer, in range: Range<Int>) -> Range<Int>? {
        var found: Range<Int>?
        var index = range.lowerBound
        let end = range.upperBound
        let bounded = UnsafeRawBufferPointer(rebasing: raw[..<end])
        while index < end, isSpace(raw[index]) { index += 1 }
        guard index < end, raw[index] == UInt8(ascii: "{") else { return nil }
        index += 1
        while found == nil {
            while index < end, isSpace(raw[index]) || raw[index] == UInt8(ascii: ",") { index += 1 }
            guard index < end, raw[index] == UInt8(ascii: "\""), let nameEnd = valueEnd(bounded, from: index) else { return nil }
            let nameRange = (index + 1)..<(nameEnd - 1)
            index = nameEnd
            while index < end, isSpace(raw[index]) || raw[index] == UInt8(ascii: ":") { index += 1 }
            guard let valueEnd = valueEnd(bounded, from: index) else { return nil }
            if equals(raw, nameRange, name) { found = index..<valueEnd }
            index = valueEnd
        }
        return found
    }

    /// Whether the bytes at `range` of `raw` are exactly `name`.
    @inline(__always)
    @inlinable public static func equals(_ raw: UnsafeRawBufferPointer, _ range: Range<Int>, _ name: StaticString) -> Bool {
        range.count == name.utf8CodeUnitCount && memcmp(raw.baseAddress! + range.lowerBound, name.utf8Start, range.count) == 0
    }

    /// The string value at `range` of `raw`, unescaped; nil if it is not a string.
    @inlinable public static func string(_ raw: UnsafeRawBufferPointer, _ range: Range<Int>) -> String? {
        guard range.count >= 2, raw[range.lowerBound] == UInt8(ascii: "\""), raw[range.upperBound - 1] == UInt8(ascii: "\"") else { return nil }
        let inner = UnsafeRawBufferPointer(rebasing: raw[(range.lowerBound + 1)..<(range.upperBound - 1)])
        if memchr(inner.baseAddress!, Int32(UInt8(ascii: "\\")), inner.count) == nil { return String(decoding: inner, as: UTF8.self) }
        return (try? JSONSerialization.jsonObject(with: Data(UnsafeRawBufferPointer(rebasing: raw[range])), options: .fragmentsAllowed)) as? String
    }

    /// A whole number at `range` of `raw`; nil when it is not one (or does not fit an `Int`).
    @inlinable public static func integer(_ raw: UnsafeRawBufferPointer, _ range: Range<Int>) -> Int? {
        var value = 0
        var negative = false
        var sawDigit = false
        for index in range {
            let byte = raw[index]
            if index == range.lowerBound, byte == UInt8(ascii: "-") { negative = true; continue }
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (plus, overflow2) = times.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            if overflow1 || overflow2 { return nil }
            value = plus
            sawDigit = true
        }
        return sawDigit ? (negative ? -value : value) : nil
    }

    /// A number at `range` of `raw`; nil when it is not one.
    @inlinable public static func number(_ raw: UnsafeRawBufferPointer, _ range: Range<Int>) -> Double? {
        guard let first = range.isEmpty ? nil : raw[range.lowerBound],
              first == UInt8(ascii: "-") || (first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9")) else { return nil }
        // Small whole numbers (most distances) are exact as Doubles: no text conversion.
        if range.count <= 15, let whole = integer(raw, range), whole != 0 || first != UInt8(ascii: "-") { return Double(whole) }
        if range.count <= 17, let decimal = shortDecimal(raw, range) { return decimal }
        // Only finite values: `1e400` is valid JSON that no decoder turns into a Double.
        return Double(String(decoding: UnsafeRawBufferPointer(rebasing: raw[range]), as: UTF8.self)).flatMap { $0.isFinite ? $0 : nil }
    }

    /// A decimal of at most 15 digits and no exponent (`34.0224`, `-118.2851`: a detected
    /// location's degrees) without text conversion; nil for anything else. Its digits as a
    /// whole number are below 2^53 and the power of ten it is divided by is at most 10^15, so
    /// both are exact Doubles and the one correctly rounded division gives exactly the Double
    /// nearest the decimal, as the text conversion does (Clinger's fast path).
    @inlinable public static func shortDecimal(_ raw: UnsafeRawBufferPointer, _ range: Range<Int>) -> Double? {
        var index = range.lowerBound
        let negative = index < range.upperBound && raw[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        var digits: Int64 = 0, count = 0, fraction = 0, sawPoint = false
        while index < range.upperBound {
            let byte = raw[index]
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                count += 1
                guard count <= 15 else { return nil }
                digits = digits * 10 + Int64(byte - UInt8(ascii: "0"))
                if sawPoint { fraction += 1 }
            } else if byte == UInt8(ascii: "."), !sawPoint, count > 0 {
                sawPoint = true
            } else {
                return nil   // an exponent, a sign inside, anything else: the text conversion decides
            }
            index += 1
        }
        guard count > 0, !sawPoint || fraction > 0 else { return nil }
        let magnitude = Double(digits) / powersOfTen[fraction]
        return negative ? -magnitude : magnitude
    }

    /// 10^0 … 10^15, each exact as a Double.
    @usableFromInline static let powersOfTen: [Double] = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15]

    /// Whether the value at `range` of `raw` is the literal `null`.
    @inlinable public static func isNull(_ raw: UnsafeRawBufferPointer, _ range: Range<Int>) -> Bool {
        range.count == 4 && memcmp(raw.baseAddress! + range.lowerBound, "null", 4) == 0
    }

    /// Whether the value at `range` of `raw` is an array whose elements are all strings.
    /// (One pass over the elements, allocating nothing: every search event has such an array.)
    @inlinable public static func isArrayOfStrings(_ raw: UnsafeRawBufferPointer, _ range: Range<Int>) -> Bool {
        let bounded = UnsafeRawBufferPointer(rebasing: raw[..<range.upperBound])
        let end = range.upperBound
        var index = range.lowerBound
        while index < end, isSpace(raw[index]) { index += 1 }
        guard index < end, raw[index] == UInt8(ascii: "[") else { return false }
        index += 1
        while true {
            while index < end, isSpace(raw[index]) || raw[index] == UInt8(ascii: ",") { index += 1 }
            guard index < end else { return false }
            if raw[index] == UInt8(ascii: "]") { return true }
            guard raw[index] == UInt8(ascii: "\""), let elementEnd = valueEnd(bounded, from: index) else { return false }
            let element = index..<elementEnd
            // An element with escapes must unescape (a lone surrogate such as \ud800 does not).
            if memchr(raw.baseAddress! + element.lowerBound, Int32(UInt8(ascii: "\\")), element.count) != nil, string(raw, element) == nil {
                return false
            }
            index = elementEnd
        }
    }

    /// The string value at `range` of `bytes`, unescaped; nil if it is not a string.
    @inlinable public static func string(_ bytes: Data, _ range: Range<Int>) -> String? {
        bytes.withUnsafeBytes { string($0, range) }
    }
}
