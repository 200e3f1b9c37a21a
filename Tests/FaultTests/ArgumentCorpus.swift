import Foundation

/// Malformed and hostile command-line values for every command's options, and what each
/// kind of option must refuse.
enum ArgumentCorpus {
    struct Case {
        var label: String
        var arguments: [String]
        var input: Data?
        var mustBeRefused: Bool
    }

    /// What an option holds, which decides the values it must refuse.
    enum Kind {
        case identifier, typeName, text, optionalText, distance, coordinates, choice, time, asOf, clientTime, integer, json, jsonFile, uuid, viewName
    }

    static let details = """
        {"listingID":"L7","info":{"name":"Hamilton","artistsOrTeams":[],"venue":"Pantages Theatre","localDateTime":"2026-12-05 19:30:00",
         "category":"Arts & Theatre","genres":["Musical"],"ticketStatus":"onsale"},"upcomingEvents":[]}
        """

    /// A value longer than any rule allows, but under Linux's 128 KiB limit on one argument
    /// (1 MB values go through standard input, see ``jsonInputs``).
    static let long = String(repeating: "x", count: 100_000)
    static let controls = ["\t", "a\u{01}b", "line\nbreak", "\u{7F}", "esc\u{1B}[31m"]
    static let sql = ["'; DROP TABLE events; --", "\" OR \"1\"=\"1", "Robert'); DROP TABLE projections;--", "%_\\"]
    static let numbers = ["-1", "0", "-0", "NaN", "nan", "inf", "-inf", "1e309", "1e308", "12abc", "99999999999999999999", "0x10"]
    static let dates = ["2026-13-45", "yesterday", "0000-00-00", "9999-12-31T23:59:60Z", "1969-12-31T23:59:59Z", "2026-02-30T10:00:00Z", "2026-03-01T25:00:00Z"]
    /// Invisible characters (zero-width, byte-order mark, bidirectional controls, separators)
    /// and a decomposed accent: ids must refuse the first (issue 12), free text takes them.
    static let invisible = ["zw\u{200B}sp", "\u{FEFF}bom", "rtl\u{202E}lre", "iso\u{2066}x", "ls\u{2028}x", "jose\u{301}"]
    static let values = ["", "   "] + controls + invisible + [long] + sql + numbers + dates

    /// Whether an option of `kind` must refuse `value`.
    static func mustRefuse(_ kind: Kind, _ value: String) -> Bool {
        let blank = value.trimmingCharacters(in: .whitespaces).isEmpty
        let hasControl = value.unicodeScalars.contains { $0.properties.generalCategory == .control }
        switch kind {
        case .identifier: return value.isEmpty || hasControl || hasInvisible(value) || value.utf8.count > 200
        case .typeName: return value.isEmpty || hasControl || value.utf8.count > 256
        case .text: return blank || hasControl || value.utf8.count > 2_000
        case .optionalText: return hasControl || value.utf8.count > 2_000
        case .distance: return !(Double(value).map { $0.isFinite && $0 > 0 } ?? false)
        case .coordinates, .choice, .jsonFile, .viewName: return true
        case .time: return TimeCheck.parse(value) == nil
        case .asOf: return TimeCheck.parse(value) == nil && (Int64(value).map { $0 < 0 } ?? true)
        case .clientTime: return TimeCheck.parse(value).map { $0.timeIntervalSince1970 < 0 } ?? true
        case .integer: return Int(value).map { $0 < 0 } ?? true
        case .json: return (try? JSONSerialization.jsonObject(with: Data(value.utf8), options: .fragmentsAllowed)) == nil && !["1e309"].contains(value)
        case .uuid: return UUID(uuidString: value) == nil
        }
    }

    /// Whether `value` holds a format, line or paragraph separator character (control
    /// characters are counted apart).
    static func hasInvisible(_ value: String) -> Bool {
        value.unicodeScalars.contains { [.format, .lineSeparator, .paragraphSeparator].contains($0.properties.generalCategory) }
    }

    /// Whether a character must never reach a terminal raw: control, format or separator.
    static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        [.control, .format, .lineSeparator, .paragraphSeparator].contains(scalar.properties.generalCategory)
    }

    /// Coordinates to try for `--here`.
    static let coordinates = ["NaN,1", "1,inf", "91,0", "0,181", "1e309,0", " , ", "1,2,3", "'; DROP,1", "", "34.02", "-90.0001,0"]

    /// The commands, each with a valid base and the options to spoil.
    static func templates(details: String, importFile: String) -> [(base: [String: String], extra: [String], options: [(String, Kind)])] {
        let record: [(String, Kind)] = [("user", .identifier), ("request-id", .identifier), ("source", .identifier),
                                        ("correlation-id", .identifier), ("occurred-at", .clientTime)]
        return [
            (["0": "search", "user": "ada", "keyword": "jazz", "here": "34.02,-118.28"], [],
             [("keyword", .text), ("here", .coordinates), ("location", .text), ("distance", .distance), ("units", .choice), ("category", .choice)] + record),
            (["0": "favorite", "user": "ada", "listing": "L9", "name": "Hamilton", "venue": "Pantages", "date": "2026-12-05 19:30:00", "category": "Music"], [],
             [("listing", .identifier), ("name", .text), ("venue", .optionalText), ("date", .optionalText), ("category", .optionalText)] + record),
            (["0": "unfavorite", "user": "ada", "listing": "L7"], [], [("listing", .identifier)] + record),
            (["0": "view", "user": "ada", "listing": "L7", "details": details], [], [("listing", .identifier), ("details", .jsonFile)] + record),
            (["0": "favorites", "user": "ada"], [], [("user", .identifier), ("as-of", .asOf)]),
            (["0": "recent", "user": "ada"], [], [("user", .identifier), ("as-of", .asOf)]),
            (["0": "viewed", "user": "ada"], [], [("user", .identifier), ("as-of", .asOf)]),
            (["0": "details", "listing": "L7"], [], [("listing", .identifier), ("as-of", .asOf)]),
            (["0": "history", "user": "ada"], [], [("user", .identifier), ("since", .time), ("until", .time), ("as-of", .asOf)]),
            (["0": "report", "user": "ada"], [], [("user", .identifier), ("as-of", .asOf)]),
            (["0": "append", "stream": "notes", "type": "Note", "data": "{}"], [],
             [("stream", .identifier), ("type", .typeName), ("data", .json), ("metadata", .json), ("expected-version", .integer), ("id", .uuid)]),
            (["0": "export"], [], [("from", .integer), ("to", .integer), ("format", .choice)]),
            (["0": "import"], [importFile], [("batch", .integer)]),
            (["0": "demo", "users": "2", "actions": "3"], [], [("users", .integer), ("actions", .integer), ("listings", .integer)]),
            (["0": "rebuild"], [], [("1", .viewName)]),
        ]
    }

    /// JSON inputs through standard input (`-`): empty, malformed, wrong shapes, 1 MB, invalid UTF-8, deep nesting.
    static let jsonInputs: [(String, Data)] = [
        ("empty", Data()), ("'{'", Data("{".utf8)), ("[]", Data("[]".utf8)), ("null", Data("null".utf8)),
        ("wrong types", Data(#"{"listingID":1,"info":"x"}"#.utf8)),
        ("1 MB string", Data(("\"" + String(repeating: "z", count: 1_000_000) + "\"").utf8)),
        ("invalid UTF-8", Data([0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D])),
        ("nesting 100,000 deep", Data((String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)).utf8)),
    ]

    static func cases(details: String, directory: String, random: inout SeededRandom) throws -> [Case] {
        let importFile = directory + "/empty.jsonl"
        try Data().write(to: URL(fileURLWithPath: importFile))
        let perOption = FaultSettings.isHeavy ? Int.max : 3
        var cases: [Case] = []
        for template in templates(details: details, importFile: importFile) {
            for (option, kind) in template.options {
                let pool = kind == .coordinates ? coordinates : values
                let chosen = perOption >= pool.count ? pool : Array(pool.shuffled(using: &random).prefix(perOption))
                for value in chosen {
                    var options = template.base
                    options[option] = value
                    if option == "location" { options["here"] = nil }
                    cases.append(Case(label: "\(template.base["0"]!) --\(option) \(value.debugDescription.prefix(40))",
                                      arguments: arguments(options) + template.extra, input: nil, mustBeRefused: mustRefuse(kind, value)))
                }
            }
        }
        // JSON documents from standard input, for every option that reads one.
        for (label, input) in jsonInputs {
            cases.append(Case(label: "view --details - (\(label))", arguments: ["view", "--user", "ada", "--listing", "L7", "--details", "-"], input: input, mustBeRefused: true))
            cases.append(Case(label: "favorite --summary - (\(label))", arguments: ["favorite", "--user", "ada", "--listing", "L8", "--summary", "-"], input: input, mustBeRefused: true))
            cases.append(Case(label: "search --results - (\(label))", arguments: ["search", "--user", "ada", "--keyword", "k", "--here", "1,2", "--results", "-"], input: input, mustBeRefused: true))
            // Any JSON value is a valid raw payload; only malformed JSON must be refused.
            cases.append(Case(label: "append --data - (\(label))", arguments: ["append", "--stream", "notes", "--type", "Note", "--data", "-"], input: input,
                              mustBeRefused: ["empty", "'{'", "invalid UTF-8", "nesting 100,000 deep"].contains(label)))
        }
        // Files that are not there, or not files.
        for file in ["", directory, directory + "/missing.json", "/dev/null"] {
            cases.append(Case(label: "view --details \(file.debugDescription)", arguments: ["view", "--user", "ada", "--listing", "L7", "--details", file], input: nil, mustBeRefused: true))
        }
        for file in [directory, directory + "/missing.jsonl", ""] {
            cases.append(Case(label: "import \(file.debugDescription)", arguments: ["import", file], input: nil, mustBeRefused: true))
        }
        // Empty and whitespace commands and options.
        for arguments in [[""], ["   "], ["search", ""], ["search", "--"], ["search", "--user"], ["favorites", "--user=", "--json"]] {
            cases.append(Case(label: "evtool \(arguments)", arguments: arguments, input: nil, mustBeRefused: true))
        }
        return cases
    }

    /// `["0": "cmd", "1": "positional", "name": "value"]` as command-line arguments.
    static func arguments(_ options: [String: String]) -> [String] {
        var result = [options["0"]!]
        if let positional = options["1"] { result.append(positional) }
        for (name, value) in options.sorted(by: { $0.key < $1.key }) where name != "0" && name != "1" {
            result += ["--\(name)", value]
        }
        return result
    }
}

/// The times evtool's options accept (RFC 3339, or a date alone), to predict refusals.
enum TimeCheck {
    static func parse(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime], [.withFullDate]] {
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
