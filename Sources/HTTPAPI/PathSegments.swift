import Foundation

/// Splits and decodes a request path, refusing what could name another resource than it
/// seems to: an encoded slash or NUL, `.` or `..`, bad percent-encoding, invalid UTF-8.
package enum PathSegments {
    /// The decoded segments of `path` (which must start with `/`); a trailing slash is ignored.
    /// - Throws: an ``Problem/Kind/invalidPath`` problem naming what is wrong.
    package static func decode(_ path: String) throws(Problem) -> [String] {
        guard path.hasPrefix("/") else { throw Problem(.invalidPath, "the path must start with '/'") }
        var raw = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst()
        if raw.last?.isEmpty == true, raw.count > 1 { raw = raw.dropLast() }
        if raw.count == 1, raw.first?.isEmpty == true { return [] }
        var segments: [String] = []
        for part in raw {
            let bytes = try percentDecoded(Array(part), what: "path segment")
            if bytes.isEmpty { throw Problem(.invalidPath, "the path has an empty segment ('//')") }
            if bytes.contains(UInt8(ascii: "/")) { throw Problem(.invalidPath, "a path segment holds an encoded '/' (%2F); ids cannot contain '/'") }
            if bytes.contains(0) { throw Problem(.invalidPath, "a path segment holds an encoded NUL (%00)") }
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw Problem(.invalidPath, "a path segment is not valid UTF-8 once decoded")
            }
            if text == "." || text == ".." { throw Problem(.invalidPath, "the path may not contain '.' or '..' segments") }
            segments.append(text)
        }
        return segments
    }

    /// A query parameter's value decoded (`+` is a space, `%HH` a byte), as UTF-8 text.
    package static func decodeQuery(_ value: String, name: String) throws(Problem) -> String {
        let bytes = try percentDecoded(value.utf8.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }, what: "query parameter '\(name)'")
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw Problem(.malformedRequest, "query parameter '\(name)' is not valid UTF-8 once decoded", field: name)
        }
        return text
    }

    static func percentDecoded(_ input: [UInt8], what: String) throws(Problem) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        var index = 0
        func hex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < input.count, let high = hex(input[index + 1]), let low = hex(input[index + 2]) else {
                    throw Problem(.invalidPath, "the \(what) has a '%' not followed by two hex digits")
                }
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(byte)
                index += 1
            }
        }
        return output
    }

    /// `segment` as one path segment: every byte but RFC 3986's unreserved characters
    /// percent-encoded (so `/`, `%`, spaces and non-ASCII letters survive a round trip).
    package static func encoded(_ segment: String) -> String {
        var text = ""
        for byte in segment.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                text.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                text += "%" + String(byte, radix: 16, uppercase: true).leftPaddedHex
            }
        }
        return text
    }
}

private extension String {
    var leftPaddedHex: String { count == 1 ? "0" + self : self }
}
