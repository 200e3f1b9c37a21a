/// Masks passwords in text that shows a store location: the one function every printed
/// location and every error line goes through (`stats`, `migrate`, `import`, progress
/// lines, `Error: …`).
///
/// It knows each form libpq takes a password in, wherever it stands in the text:
/// - a URL's userinfo, `postgres://user:SECRET@host/db` (up to the last `@` before the
///   query, so a password holding a raw `@` is masked whole);
/// - a URL query parameter, `?password=SECRET` or `&sslpassword=SECRET`, its name
///   percent-decoded as libpq decodes it (`?%70assword=SECRET`);
/// - a key/value connection string, `host=db password=SECRET`, with spaces around `=` and
///   single-quoted values with backslash escapes (`password='it\'s secret'`).
///
/// Each password becomes `***`. When in doubt it masks more, never less.
public enum Redaction {
    /// What a password is replaced with.
    public static let mask = "***"

    /// The keywords whose values are secrets (libpq's `password`, and `sslpassword`, the
    /// passphrase of the client's TLS key).
    public static let secretKeywords: Set<String> = ["password", "sslpassword"]

    /// `text` with every password in it replaced by ``mask``.
    /// - Cost: O(n) in the length of the text (times the number of `://` in it).
    public static func maskingPasswords(in text: String) -> String {
        maskingKeyValuePasswords(in: maskingURLPasswords(in: Array(text.unicodeScalars)))
    }

    // MARK: - URLs

    /// Characters that end a URL in free text (it may be quoted in a message).
    private static func endsURL(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar == "'" || scalar == "\"" || scalar == "`"
            || scalar == "<" || scalar == ">"
    }

    private static func maskingURLPasswords(in scalars: [Unicode.Scalar]) -> [Unicode.Scalar] {
        var result: [Unicode.Scalar] = []
        result.reserveCapacity(scalars.count)
        var index = 0
        while index < scalars.count {
            guard index + 2 < scalars.count, scalars[index] == ":", scalars[index + 1] == "/", scalars[index + 2] == "/" else {
                result.append(scalars[index])
                index += 1
                continue
            }
            result += scalars[index...(index + 2)]
            let start = index + 3
            var end = start
            while end < scalars.count, !endsURL(scalars[end]) { end += 1 }
            result += maskingURL(Array(scalars[start..<end]))
            index = end
        }
        return result
    }

    /// One URL after its `://`: userinfo password and secret query parameters masked.
    private static func maskingURL(_ url: [Unicode.Scalar]) -> [Unicode.Scalar] {
        let query = url.firstIndex(of: "?") ?? url.count
        var result: [Unicode.Scalar] = []
        var rest = 0
        if let at = url[..<query].lastIndex(of: "@") {
            if let colon = url[..<at].firstIndex(of: ":") {
                result += url[...colon]
                result += mask.unicodeScalars
            } else {
                result += url[..<at]
            }
            rest = at
        }
        result += url[rest..<query]
        guard query < url.count else { return result }
        result.append("?")
        let parameters = url[(query + 1)...].split(separator: "&", omittingEmptySubsequences: false)
        for (number, parameter) in parameters.enumerated() {
            if number > 0 { result.append("&") }
            if let equals = parameter.firstIndex(of: "="),
               secretKeywords.contains(percentDecoded(Array(parameter[..<equals])).lowercased()) {
                result += parameter[...equals]
                result += mask.unicodeScalars
            } else {
                result += parameter
            }
        }
        return result
    }

    /// `%XX` sequences decoded (as libpq decodes a URL's parameter names); others kept.
    private static func percentDecoded(_ scalars: [Unicode.Scalar]) -> String {
        var bytes: [UInt8] = []
        var index = 0
        while index < scalars.count {
            if scalars[index] == "%", index + 2 < scalars.count,
               let high = hexDigit(scalars[index + 1]), let low = hexDigit(scalars[index + 2]) {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes += Array(String(scalars[index]).utf8)
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexDigit(_ scalar: Unicode.Scalar) -> UInt8? {
        switch scalar {
        case "0"..."9": return UInt8(scalar.value - 48)
        case "a"..."f": return UInt8(scalar.value - 87)
        case "A"..."F": return UInt8(scalar.value - 55)
        default: return nil
        }
    }

    // MARK: - Key/value strings

    private static func isWordCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isAlphabetic || scalar.properties.numericType != nil || scalar == "_"
    }

    private static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar == "\u{0B}" || scalar == "\u{0C}"
    }

    /// Masks `password = VALUE` wherever the keyword stands as a word (libpq's key/value
    /// syntax: spaces allowed around `=`; a value is a run without spaces, or single-quoted
    /// with `\'` and `\\` escapes). A URL's parameters, after `?` or `&`, are done already.
    private static func maskingKeyValuePasswords(in scalars: [Unicode.Scalar]) -> String {
        var result = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            guard isWordCharacter(scalars[index]), index == 0 || !isWordCharacter(scalars[index - 1]) else {
                result.append(scalars[index])
                index += 1
                continue
            }
            var wordEnd = index
            while wordEnd < scalars.count, isWordCharacter(scalars[wordEnd]) { wordEnd += 1 }
            let word = String(String.UnicodeScalarView(scalars[index..<wordEnd]))
            let afterURLSeparator = index > 0 && (scalars[index - 1] == "?" || scalars[index - 1] == "&")
            var equals = wordEnd
            while equals < scalars.count, isSpace(scalars[equals]) { equals += 1 }
            guard secretKeywords.contains(word.lowercased()), !afterURLSeparator, equals < scalars.count, scalars[equals] == "=" else {
                result.append(contentsOf: scalars[index..<wordEnd])
                index = wordEnd
                continue
            }
            var valueStart = equals + 1
            while valueStart < scalars.count, isSpace(scalars[valueStart]) { valueStart += 1 }
            var valueEnd = valueStart
            if valueEnd < scalars.count, scalars[valueEnd] == "'" {
                valueEnd += 1
                while valueEnd < scalars.count, scalars[valueEnd] != "'" {
                    valueEnd += scalars[valueEnd] == "\\" ? 2 : 1
                }
                valueEnd = min(valueEnd + 1, scalars.count)
            } else {
                while valueEnd < scalars.count, !isSpace(scalars[valueEnd]) {
                    valueEnd += scalars[valueEnd] == "\\" ? 2 : 1
                }
                valueEnd = min(valueEnd, scalars.count)
            }
            result.append(contentsOf: scalars[index..<valueStart])
            result.append(contentsOf: mask.unicodeScalars)
            index = valueEnd
        }
        return String(result)
    }
}
