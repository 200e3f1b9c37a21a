import EventLog
import Foundation
import TestSupport

/// Hand-made stores: actions recorded through the CLI into a staging SQLite file, exported,
/// given recording times 11 hours apart from 2026-03-01T09:00:00Z (ada's ten events span five
/// days) and times they occurred half an hour before each, and imported into the store under test (SQLite or PostgreSQL), then sealed.
enum HandMade {
    static let details = """
        {"listingID":"L7","info":{"name":"Hamilton","artistsOrTeams":[],"venue":"Pantages Theatre","localDateTime":"2026-12-05 19:30:00",
         "category":"Arts & Theatre","genres":["Musical"],"priceRange":{"minimum":79,"maximum":399,"currency":"USD"},"ticketStatus":"onsale",
         "ticketLink":"https://tickets.example/L7"},"upcomingEvents":[{"name":"Wicked","localDateTime":"2027-01-03 19:30:00"}]}
        """

    static let hostileUser = #"<img src=x onerror="document.documentElement.setAttribute('data-pwned','user')">"#
    static let hostileKeyword = #"<img src=x onerror="document.documentElement.setAttribute('data-pwned','keyword')">"#
    static let styleBreak = #"</style><script>document.documentElement.setAttribute('data-pwned','style')</script>"#
    static let tableBreak = #"</bdi></td></tr></table><svg onload="document.documentElement.setAttribute('data-pwned','svg')"></svg>"#
    static let rtl = "\u{202E}evil.exe gnp.\u{202C} مرحبا بالعالم"
    static let longName = String(repeating: "Ш", count: 2_000) + String(repeating: "x", count: 8_000)
    /// The recording commands refuse names over 2,000 bytes, so the 10 KB name goes into the
    /// exported line in place of this placeholder (import takes payloads as they are).
    static let longPlaceholder = "LONG-NAME-PLACEHOLDER"
    static let quoteBreak = #"L9"><b onmouseover="document.documentElement.setAttribute('data-pwned','attr')">x"#

    /// The hostile strings a page for `user` must show as text.
    static func hostileStrings(for user: String) -> [String] {
        user == hostileUser ? [hostileUser, styleBreak, tableBreak, rtl, longName, quoteBreak] : [hostileKeyword]
    }

    static func make(store: String, folder: String, hostile: Bool) throws {
        let staging = "sqlite:" + folder + "/staging.sqlite"
        try? FileManager.default.removeItem(atPath: folder + "/staging.sqlite")
        let detailsFile = folder + "/details.json"
        try details.write(toFile: detailsFile, atomically: true, encoding: .utf8)
        let resultsFile = folder + "/results.json"
        try #"{"count":12,"listingIDs":["L7","L8"]}"#.write(toFile: resultsFile, atomically: true, encoding: .utf8)
        func summary(_ name: String, _ venue: String) -> String {
            #"{"name":\#(quoted(name)),"venue":\#(quoted(venue)),"localDateTime":"2026-12-05 19:30:00","category":"Arts & Theatre"}"#
        }
        func run(_ arguments: [String], input: String? = nil) throws { try Shell.evtool(arguments, store: staging, input: input) }
        // ada: 10 events over five days.
        try run(["search", "--user", "ada", "--keyword", "Hamilton", "--category", "Arts & Theatre", "--location", "Los Angeles",
                 "--results", resultsFile, "--request-id", "r-1", "--correlation-id", "c-1", "--source", "ios-app/4.2"])
        try run(["favorite", "--user", "ada", "--listing", "L7", "--summary", "-", "--request-id", "r-2", "--correlation-id", "c-1"], input: summary("Hamilton", "Pantages Theatre"))
        try run(["view", "--user", "ada", "--listing", "L7", "--details", detailsFile, "--request-id", "r-3"])
        try run(["favorite", "--user", "ada", "--listing", "L8", "--summary", "-"], input: summary("Lakers vs Celtics", "Crypto.com Arena"))
        try run(["search", "--user", "ada", "--keyword", "jazz clubs", "--category", "Music", "--distance", "25", "--units", "km", "--here", "34.05,-118.24"])
        try run(["unfavorite", "--user", "ada", "--listing", "L7", "--source", "web/1.0"])
        try run(["favorite", "--user", "ada", "--listing", "L9", "--summary", "-"], input: summary("Wicked", "Pantages Theatre"))
        try run(["unfavorite", "--user", "ada", "--listing", "L9"])
        try run(["search", "--user", "ada", "--keyword", "Lakers", "--category", "Sports", "--location", "Los Angeles"])
        try run(["favorite", "--user", "ada", "--listing", "L7", "--summary", "-"], input: summary("Hamilton", "Pantages Theatre"))
        // bob: two events on the fifth and sixth day.
        try run(["search", "--user", "bob", "--keyword", "jazz", "--location", "Chicago"])
        try run(["favorite", "--user", "bob", "--listing", "L8", "--summary", "-"], input: summary("Lakers vs Celtics", "Crypto.com Arena"))
        if hostile {
            try run(["search", "--user", "ada", "--keyword", hostileKeyword, "--location", rtl])
            try run(["search", "--user", hostileUser, "--keyword", hostileKeyword, "--location", styleBreak,
                     // Ids refuse bidirectional controls (the identity rule), so the RTL text goes
                     // into names and locations, and the correlation id carries markup instead.
                     "--request-id", tableBreak, "--correlation-id", quoteBreak, "--source", styleBreak])
            try run(["favorite", "--user", hostileUser, "--listing", quoteBreak, "--summary", "-"], input: summary(longPlaceholder, rtl))
            try run(["favorite", "--user", hostileUser, "--listing", "L-rtl", "--summary", "-"], input: summary(rtl, tableBreak))
            try run(["view", "--user", hostileUser, "--listing", "L7", "--details", detailsFile, "--source", hostileUser])
        }
        var lines: [String] = []
        var time = ISO8601DateFormatter().date(from: "2026-03-01T09:00:00Z") ?? Date()
        for line in try Shell.evtool(["export"], store: staging).split(separator: "\n") {
            var text = String(line).replacingOccurrences(of: longPlaceholder, with: longName)
            text = text.replacingOccurrences(of: #""hash":"[0-9a-f]+","#, with: "", options: .regularExpression)
            if let range = text.range(of: #""recordedAt":"[^"]+""#, options: .regularExpression) {
                text.replaceSubrange(range, with: "\"recordedAt\":\"\(format(time))\"")
            }
            // The action occurred half an hour before the store recorded it (the same UTC day).
            if let range = text.range(of: #""occurredAt":"[^"]+""#, options: .regularExpression) {
                text.replaceSubrange(range, with: "\"occurredAt\":\"\(Timestamp.format(time - 1_800))\"")
            }
            time += 11 * 3_600
            lines.append(text)
        }
        let file = folder + "/handmade.jsonl"
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        try Shell.evtool(["import", file], store: store)
        try Shell.evtool(["seal"], store: store)
    }

    static func format(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    static func quoted(_ text: String) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: [text], options: [.fragmentsAllowed])) ?? Data("[\"\"]".utf8), as: UTF8.self)
            .dropFirst().dropLast().description
    }
}
