import EventLog

/// The input rules shared by the commands: identifiers, text, numbers, coordinates.
///
/// Each check throws ``CommandError/rejected(field:rule:)`` naming the field and the rule.
public enum Rules {
    /// The longest user id, listing id, request id, correlation or causation id, in UTF-8 bytes.
    public static let maximumIdentifierLength = 200
    /// The longest free text (keyword, custom location, names, links), in UTF-8 bytes.
    public static let maximumTextLength = 2_000

    /// Checks an identifier: non-empty, at most ``maximumIdentifierLength`` bytes, no invisible
    /// character (control, format — zero-width, byte-order mark, bidirectional controls — or
    /// line separator; the error names the code point).
    public static func checkIdentifier(_ value: String, field: String) throws {
        if value.isEmpty {
            throw CommandError.rejected(field: field, rule: "must not be empty")
        }
        try checkLength(value, field: field, maximum: maximumIdentifierLength)
        try checkNoControlCharacters(value, field: field)
        if let rule = Identifier.invisibleCharacterRule(in: value) {
            throw CommandError.rejected(field: field, rule: rule)
        }
    }

    /// Checks an identifier a command is about to record: what ``checkIdentifier(_:field:)``
    /// checks, and not only spaces nor with a space (or other white space) at either end:
    /// ' ada' and 'ada' would be two users that look alike in every listing. Only new records
    /// are held to this; ids recorded before it stay readable, removable and erasable.
    public static func checkNewIdentifier(_ value: String, field: String) throws {
        try checkIdentifier(value, field: field)
        if isBlank(value) {
            throw CommandError.rejected(field: field, rule: "must not be only spaces")
        }
        if hasEdgeWhitespace(value) {
            throw CommandError.rejected(field: field, rule: "must not begin or end with a space")
        }
    }

    /// Whether text begins or ends with white space.
    public static func hasEdgeWhitespace(_ value: String) -> Bool {
        guard let first = value.unicodeScalars.first, let last = value.unicodeScalars.last else { return false }
        return isWhitespace(first) || isWhitespace(last)
    }

    /// A user or listing id as evtool records it: checked as ``checkIdentifier(_:field:)``
    /// does, then in Unicode normalization form C, so that every way of typing the same text
    /// (a macOS keyboard produces decomposed accents) names the same user or listing.
    /// The length limit applies to the normalized form.
    public static func identifier(_ value: String, field: String) throws -> String {
        try checkIdentifier(value, field: field)
        let normalized = Identifier.nfc(value)
        try checkLength(normalized, field: field, maximum: maximumIdentifierLength)
        return normalized
    }

    /// A user id as evtool records and looks it up: ``identifier(_:field:)`` as `user id`, and
    /// not the id of one of evtool's own streams (one that begins with `$`, as the erasure log
    /// `$erasures` does: ``AppendValidation/reservedStreamRule(_:)``), since a user's stream is
    /// named by the user id (``UserStream``).
    public static func userID(_ value: String) throws -> String {
        if let rule = AppendValidation.reservedStreamRule(value) {
            throw CommandError.rejected(field: "user id", rule: rule)
        }
        return try identifier(value, field: "user id")
    }

    /// Checks required free text: not empty or only spaces, bounded, no control characters.
    public static func checkText(_ value: String, field: String) throws {
        if isBlank(value) {
            throw CommandError.rejected(field: field, rule: "must not be empty or only spaces")
        }
        try checkOptionalText(value, field: field)
    }

    /// Checks optional free text: bounded, no control characters (it may be empty).
    public static func checkOptionalText(_ value: String?, field: String) throws {
        guard let value else { return }
        try checkLength(value, field: field, maximum: maximumTextLength)
        try checkNoControlCharacters(value, field: field)
    }

    /// Checks a latitude and longitude pair: finite, latitude in -90…90, longitude in -180…180.
    public static func checkCoordinates(latitude: Double, longitude: Double, field: String) throws {
        guard latitude.isFinite, (-90...90).contains(latitude) else {
            throw CommandError.rejected(field: "\(field) latitude", rule: "must be a number from -90 to 90")
        }
        guard longitude.isFinite, (-180...180).contains(longitude) else {
            throw CommandError.rejected(field: "\(field) longitude", rule: "must be a number from -180 to 180")
        }
    }

    /// Whether text is empty or only white space (spaces, tabs, line breaks, no-break spaces).
    public static func isBlank(_ value: String) -> Bool {
        value.unicodeScalars.allSatisfy(isWhitespace)
    }

    /// Unicode's White_Space property; ASCII decides by value (tab to carriage return, space)
    /// without the Unicode tables.
    @inline(__always)
    static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII ? scalar.value == 0x20 || (0x09...0x0D).contains(scalar.value) : scalar.properties.isWhitespace
    }

    private static func checkLength(_ value: String, field: String, maximum: Int) throws {
        let length = value.utf8.count
        if length > maximum {
            throw CommandError.rejected(field: field, rule: "must be at most \(maximum) bytes long (it is \(length))")
        }
    }

    private static func checkNoControlCharacters(_ value: String, field: String) throws {
        // ASCII decides by value (C0 and DEL); only a scalar beyond it needs the Unicode tables.
        if value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || ($0.value >= 0x80 && $0.properties.generalCategory == .control) }) {
            throw CommandError.rejected(field: field, rule: "must not contain control characters")
        }
    }
}
