import Foundation

/// The identity rule for the ids that name things in the log: stream ids (a user's stream is
/// named by the user id) and the listing ids inside payloads.
///
/// Swift's `String` `==` and hashing are canonical equivalence (`josé` written with a
/// precomposed `é` equals `jose` + U+0301), while the stores compare bytes. evtool therefore
/// keeps one form: every id it records is in Unicode normalization form C (NFC), and an id
/// holding an invisible character (a control or format character: zero-width characters,
/// the byte-order mark, bidirectional controls; line and paragraph separators) is refused.
/// Between two NFC strings canonical equivalence and byte equality are the same thing, so
/// every layer agrees on what one id is. Ids recorded before this rule (possibly not NFC) are
/// compared by their bytes: see ``StreamKey`` and ``exactKey(_:)``. docs/reference/events.md says what
/// happens to such ids.
public enum Identifier {
    /// The first character `value` must not hold as an id, if any: control (Cc), format (Cf:
    /// U+200B ZERO WIDTH SPACE, U+FEFF the byte-order mark, U+202E RIGHT-TO-LEFT OVERRIDE …),
    /// line separator (Zl) or paragraph separator (Zp). U+200D ZERO WIDTH JOINER is accepted
    /// only between two emoji (`👩‍👩‍👧`), where it joins them into one picture.
    /// Cost: O(bytes); ids below U+0080 need no property lookup.
    public static func invisibleCharacter(in value: String) -> Unicode.Scalar? {
        var previous: Unicode.Scalar?
        var joinerPending = false
        for scalar in value.unicodeScalars {
            if joinerPending {
                if !isEmoji(scalar) { return joiner }
                joinerPending = false
            }
            if scalar == joiner, let previous, isEmoji(previous) {
                joinerPending = true
            } else if isInvisible(scalar) {
                return scalar
            }
            previous = scalar
        }
        return joinerPending ? joiner : nil
    }

    /// Whether a character is one ids refuse and terminal output escapes: control (Cc),
    /// format (Cf), line separator (Zl) or paragraph separator (Zp). See
    /// ``invisibleCharacter(in:)`` for the one joiner accepted in context.
    @inline(__always)
    public static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0x20 || scalar.value == 0x7F { return true }
        if scalar.value < 0x80 { return false }
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate: return true
        default: return false
        }
    }

    /// U+200D ZERO WIDTH JOINER.
    public static let joiner: Unicode.Scalar = "\u{200D}"

    /// Whether a character can stand on either side of an emoji joiner: an emoji beyond ASCII
    /// (digits, `#` and `*` are emoji too, for keycaps), or the emoji presentation selector.
    public static func isEmoji(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= 0x80 && (scalar.properties.isEmoji || scalar.value == 0xFE0F)
    }

    /// A character named for an error line: `U+202E (RIGHT-TO-LEFT OVERRIDE)`.
    public static func describe(_ scalar: Unicode.Scalar) -> String {
        let code = "U+" + String(repeating: "0", count: max(0, 4 - String(scalar.value, radix: 16).count)) + String(scalar.value, radix: 16, uppercase: true)
        guard let name = scalar.properties.name ?? scalar.properties.nameAlias else { return code }
        return "\(code) (\(name))"
    }

    /// What is wrong with `value` as an id, in words that follow the field's name
    /// ("must not contain U+200B (ZERO WIDTH SPACE) …"); nil when it is fine. Does not check
    /// the form: see ``isNFC(_:)``.
    public static func invisibleCharacterRule(in value: String) -> String? {
        guard let scalar = invisibleCharacter(in: value) else { return nil }
        return "must not contain \(describe(scalar)): ids refuse invisible characters (control, format, zero-width, byte-order mark, bidirectional controls, line separators)"
    }

    /// Whether `value` is in normalization form C.
    /// Cost: O(bytes); only text with a character from U+0300 up is normalized to compare.
    public static func isNFC(_ value: String) -> Bool {
        // Text whose characters are all below U+0300 is NFC (none of them decomposes, and
        // the combining marks start at U+0300); UTF-8 lead bytes below 0xCC encode exactly
        // U+0000–U+02FF, so one byte scan decides the common case.
        let belowU0300 = value.utf8.withContiguousStorageIfAvailable { bytes in
            for byte in bytes where byte >= 0xCC { return false }
            return true
        } ?? !value.utf8.contains(where: { $0 >= 0xCC })
        if belowU0300 { return true }
        return value.precomposedStringWithCanonicalMapping.utf8.elementsEqual(value.utf8)
    }

    /// `value` in normalization form C (the same string when it already is).
    public static func nfc(_ value: String) -> String {
        isNFC(value) ? value : value.precomposedStringWithCanonicalMapping
    }

    /// A string that Swift's `==` and hashing tell apart exactly when the ids' bytes differ:
    /// the id itself when it is NFC (the form every id recorded now has), otherwise U+0001
    /// followed by its UTF-8 bytes in hexadecimal. No stream id can start with U+0001 (control
    /// characters have always been refused), so the result never equals another id's key.
    /// Views key their documents by it, so two streams whose ids are canonically equal but
    /// differ in bytes (written before the rule) never share a document.
    public static func exactKey(_ id: String) -> String {
        if isNFC(id) { return id }
        return "\u{1}" + id.utf8.map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
    }
}

/// A stream id as a dictionary key that compares and hashes the id's UTF-8 bytes, as the
/// stores do (a plain `String` key would merge two canonically equal ids of different bytes).
public struct StreamKey: Hashable, Sendable, Comparable {
    /// The stream id.
    public let id: String

    /// The key of a stream id.
    public init(_ id: String) { self.id = id }

    public static func == (lhs: StreamKey, rhs: StreamKey) -> Bool {
        lhs.id.utf8.count == rhs.id.utf8.count && lhs.id.utf8.elementsEqual(rhs.id.utf8)
    }

    public func hash(into hasher: inout Hasher) {
        var id = self.id
        id.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Byte order of the ids' UTF-8, as the stores' text columns sort.
    public static func < (lhs: StreamKey, rhs: StreamKey) -> Bool {
        lhs.id.utf8.lexicographicallyPrecedes(rhs.id.utf8)
    }
}
