import Foundation
import HTTPAPI

/// A request's head as libmicrohttpd parsed it, and the check that it was sent in the one
/// framing every HTTP implementation reads the same way (RFC 9112): what is refused here is
/// answered 400 (or 411) and its connection closed before anything of it is dispatched, so
/// that no byte after it on that connection is read as another request. docs/reference/http.md,
/// "What the server refuses", lists each case and why.
///
/// libmicrohttpd 0.9.75 (Debian 12's) is lenient where a proxy in front of the server may not
/// be: it takes a bare LF as a line end, folds continuation lines into the previous field
/// name, skips runs of spaces in the request line, cuts a value or target at a NUL byte, and
/// parses chunked bodies (chunk extensions, bare LFs, trailers) out of sight. It parses the
/// head in place in its read buffer, replacing each CR and LF of a line end, each colon
/// after a field name and each space of the request line by a NUL, and hands out pointers
/// into that buffer. So the bytes as sent can be checked: a head sent as
/// `METHOD SP target SP HTTP/1.x CRLF (name ":" OWS value CRLF)* CRLF` leaves the pointers
/// exactly so far apart, with only NULs and blanks between them; any other spelling leaves
/// them elsewhere. A bare LF ending the empty line that closes the head is seen when
/// anything follows it in the same read (a body, a pipelined request); with nothing after
/// it, nothing can be smuggled behind it either.
struct RequestHead {
    /// One header field as libmicrohttpd stored it: pointers into its read buffer.
    struct Field {
        let name: UnsafeRawBufferPointer
        let value: UnsafeRawBufferPointer
    }

    /// What a refused head is answered with.
    struct Refusal: Equatable {
        /// 400, or 411 for a chunked body.
        let lengthRequired: Bool
        let detail: String
    }

    let method: UnsafePointer<CChar>
    let target: UnsafePointer<CChar>
    /// The target's length as a C string when the request line was read (before the query
    /// was split): shorter than the target when it holds a NUL byte; nil when unknown.
    let targetLength: Int?
    let version: UnsafePointer<CChar>
    let fields: [Field]

    /// Why this head is refused, or nil when its framing can be read only one way.
    func refusal() -> Refusal? {
        if let layout = layoutProblem() { return Refusal(lengthRequired: false, detail: layout) }
        return framingProblem()
    }

    private static let separator = "its body cannot be told apart from the request after it"

    /// The head's bytes as sent, from the pointers' layout (see the type's documentation).
    func layoutProblem() -> String? {
        let methodStart = UnsafeRawPointer(method)
        let targetStart = UnsafeRawPointer(target)
        let versionStart = UnsafeRawPointer(version)
        if targetStart != methodStart + strlen(method) + 1 {
            return "the request line must be 'METHOD target HTTP/1.1' with one space between its parts"
        }
        guard let targetLength, versionStart == targetStart + targetLength + 1 else {
            return "the request target holds a NUL byte"
        }
        if memchr(target, 0x20, targetLength) != nil {
            return "the request line must be 'METHOD target HTTP/1.1' with one space between its parts (the target holds a space)"
        }
        let versionLength = strlen(version)
        var cursor = versionStart + versionLength
        guard isCRLF(cursor) else { return "the request line does not end in CRLF (a bare LF ends no line here)" }
        cursor += 2
        for (index, field) in fields.enumerated() {
            let next = index + 1 < fields.count ? fields[index + 1].name.baseAddress : nil
            guard let name = field.name.baseAddress, name == cursor else { return lineFault(at: cursor, expecting: field) }
            // The colon (now a NUL), then blanks, then the value.
            var between = name + field.name.count
            guard between.load(as: UInt8.self) == 0 else { return "the header line '\(Self.shown(field.name))' is not 'name: value'" }
            between += 1
            let valueStart = field.value.baseAddress ?? between
            while between < valueStart {
                let byte = between.load(as: UInt8.self)
                guard byte == 0x20 || byte == 0x09 else { return "the header line '\(Self.shown(field.name))' is not 'name: value'" }
                between += 1
            }
            guard between == valueStart else { return "the header line '\(Self.shown(field.name))' is not 'name: value'" }
            cursor = valueStart + field.value.count
            guard isCRLF(cursor) else {
                // A bare LF puts the next line right after it; a NUL leaves the rest of the value.
                let bareLF = next == cursor + 1 || (next == nil && isCRLF(cursor + 1))
                return "the value of header '\(Self.shown(field.name))' " + (bareLF ? "ends in a bare LF (only CRLF ends a line)" : "holds a NUL byte")
            }
            cursor += 2
        }
        guard isCRLF(cursor) else {
            return lineFault(at: cursor, expecting: nil)
        }
        return nil
    }

    /// What is wrong at `cursor`, where the name of `field` (or, with nil, the empty line)
    /// was expected.
    private func lineFault(at cursor: UnsafeRawPointer, expecting field: Field?) -> String {
        let first = cursor.load(as: UInt8.self)
        if first == 0x20 || first == 0x09 { return Self.folded }
        if (cursor - 1).load(as: UInt8.self) == 0, (cursor - 2).load(as: UInt8.self) != 0 { return Self.bareLF }
        // libmicrohttpd joins a folded line to the field's name elsewhere and clears the name
        // and colon where they were sent: past those NULs, the line's value and its CRLF, a
        // line that begins with a blank tells a fold.
        guard let field else { return Self.unknown }
        var scan = cursor
        while scan < cursor + field.name.count + 1, scan.load(as: UInt8.self) == 0 { scan += 1 }
        let end = scan + 1_024
        while scan < end, !isCRLF(scan) { scan += 1 }
        if scan < end, [0x20, 0x09].contains((scan + 2).load(as: UInt8.self)) { return Self.folded }
        return Self.unknown
    }

    /// What libmicrohttpd's parse leaves no trace to tell apart: each of these is a line that is
    /// not `name: value` CRLF.
    private static let unknown = "a header line is not 'name: value' ending in CRLF (it ends in a bare LF, holds a NUL byte, has an empty name, or an empty field is folded onto the next line)"
    private static let folded = "a header line is folded onto the next (obsolete line folding is refused)"
    private static let bareLF = "a header line ends in a bare LF (only CRLF ends a line)"

    private func isCRLF(_ pointer: UnsafeRawPointer) -> Bool {
        pointer.load(as: UInt8.self) == 0 && (pointer + 1).load(as: UInt8.self) == 0
    }

    /// The message's length, told one way only (RFC 9112 §6): at most one `Content-Length`,
    /// of digits only; `Transfer-Encoding` never beside it, never in HTTP/1.0, and, when
    /// present, only `chunked` (answered 411: the server takes a body with a length only,
    /// since libmicrohttpd parses chunks out of sight); one `Host`; each field as RFC 9110
    /// allows (``HTTPText/fieldProblem(name:value:)``).
    func framingProblem() -> Refusal? {
        var lengths: [UnsafeRawBufferPointer] = []
        var encodings: [UnsafeRawBufferPointer] = []
        var hosts = 0
        for field in fields {
            if let problem = HTTPText.fieldProblem(name: field.name, value: field.value) { return Refusal(lengthRequired: false, detail: problem) }
            if HTTPText.equalsIgnoringCase(bytes: field.name, "content-length") { lengths.append(field.value) }
            if HTTPText.equalsIgnoringCase(bytes: field.name, "transfer-encoding") { encodings.append(field.value) }
            if HTTPText.equalsIgnoringCase(bytes: field.name, "host") { hosts += 1 }
        }
        if hosts > 1 { return Refusal(lengthRequired: false, detail: "the request has more than one Host header") }
        if hosts == 0, strcmp(version, "HTTP/1.0") != 0 {
            return Refusal(lengthRequired: false, detail: "an HTTP/1.1 request must have a Host header")
        }
        if lengths.count > 1 { return Refusal(lengthRequired: false, detail: "the request has more than one Content-Length: \(Self.separator)") }
        if let length = lengths.first {
            let digits = Self.trimmed(length)
            if digits.isEmpty || !digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
                return Refusal(lengthRequired: false, detail: "the Content-Length '\(String(decoding: digits.prefix(64), as: UTF8.self))' is not a number of bytes: \(Self.separator)")
            }
        }
        guard !encodings.isEmpty else { return nil }
        if !lengths.isEmpty { return Refusal(lengthRequired: false, detail: "the request has both Content-Length and Transfer-Encoding: \(Self.separator)") }
        if strcmp(version, "HTTP/1.0") == 0 {
            return Refusal(lengthRequired: false, detail: "an HTTP/1.0 request may not have a Transfer-Encoding: \(Self.separator)")
        }
        let codings = encodings.flatMap { Self.trimmed($0).split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).map { Self.trimmed($0) } }
        let chunked = codings.map { String(decoding: $0, as: UTF8.self).lowercased() == "chunked" }
        if chunked.last != true {
            return Refusal(lengthRequired: false, detail: "the request's final transfer coding is not chunked: \(Self.separator)")
        }
        if codings.count > 1 {
            return Refusal(lengthRequired: false, detail: "the request has transfer codings besides one final chunked (\(encodings.count > 1 ? "Transfer-Encoding is given more than once" : "the server applies none but chunked")): \(Self.separator)")
        }
        return Refusal(lengthRequired: true, detail: "the server takes a request body with a Content-Length only, not chunked")
    }

    /// `bytes` without the blanks (SP, HTAB) around them.
    private static func trimmed<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> ArraySlice<UInt8> {
        let all = Array(bytes)[...]
        let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        guard let first = all.firstIndex(where: { !blank($0) }), let last = all.lastIndex(where: { !blank($0) }) else { return [] }
        return all[first...last]
    }

    /// A field name for a message: printable ASCII kept, other bytes as `\xNN`, at most 64.
    /// The path a request target names: a target in absolute form (`http://host/path`, which
    /// RFC 9112 §3.2.2 says a server must accept, as a proxy sends it) names the path after its
    /// authority, `/` when it has none; any other target is its own path. One with an empty host
    /// or user information (`http://a@host/`) is left as it is, and refused as a path.
    static func path(ofTarget target: String) -> String {
        guard let schemeEnd = target.range(of: "://"),
              HTTPText.equalsIgnoringCase(target[..<schemeEnd.lowerBound], "http") || HTTPText.equalsIgnoringCase(target[..<schemeEnd.lowerBound], "https")
        else { return target }
        let rest = target[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" }
        guard !authority.isEmpty, !authority.contains("@") else { return target }
        let path = rest[authority.endIndex...]
        return path.isEmpty ? "/" : String(path)
    }

    static func shown(_ name: UnsafeRawBufferPointer) -> String {
        name.prefix(64).map { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "'") ? String(Character(Unicode.Scalar($0))) : String(format: "\\x%02X", $0) }.joined()
            + (name.count > 64 ? "…" : "")
    }
}
