import Foundation
import TestSupport
import Testing

/// Runs evtool for the report tests and compares a page with what the query commands say.
enum Shell {
    /// `evtool ARGS --store STORE`; a non-zero exit throws with the output.
    @discardableResult
    static func evtool(_ arguments: [String], store: String, input: String? = nil) throws -> String {
        let result = try Processes.run(Processes.evtool, arguments + ["--store", store], input: input)
        guard result.status == 0 else { throw BrowserError("evtool \(arguments.joined(separator: " ")): \(result)") }
        return result.output
    }

    /// A JSON object from evtool's output.
    static func object(_ text: String) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { throw BrowserError("not a JSON object: \(text.prefix(200))") }
        return object
    }

    /// One `evtool history --json` line.
    struct Entry {
        var position: Int64
        var recordedAt: String
        var occurredAt: String
        var type: String
        var summary: String
        var source: String
        var requestID: String
        var correlationID: String
    }

    static func history(store: String, user: String, asOf: String?) throws -> [Entry] {
        let output = try evtool(["history", "--user", user, "--json"] + (asOf.map { ["--as-of", $0] } ?? []), store: store)
        return try output.split(separator: "\n").map { line in
            let object = try object(String(line))
            // history --json is the event's JSON shape: what the metadata says is in `metadata`.
            let metadata = object["metadata"] as? [String: Any] ?? [:]
            return Entry(position: (object["position"] as? NSNumber)?.int64Value ?? -1, recordedAt: object["recordedAt"] as? String ?? "",
                         occurredAt: metadata["occurredAt"] as? String ?? "-", type: object["type"] as? String ?? "", summary: object["summary"] as? String ?? "",
                         source: metadata["source"] as? String ?? "-", requestID: metadata["requestID"] as? String ?? "-",
                         correlationID: metadata["correlationID"] as? String ?? "-")
        }
    }

    /// The user with the most events in the store.
    static func busiestUser(_ store: String) throws -> String {
        var counts: [String: Int] = [:]
        for line in try evtool(["export"], store: store).split(separator: "\n") {
            if let stream = try object(String(line))["stream"] as? String, !stream.hasPrefix("$") { counts[stream, default: 0] += 1 }
        }
        guard let busiest = counts.max(by: { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }) else { throw BrowserError("no users in \(store)") }
        return busiest.key
    }

    /// Makes a user's page with `evtool report --out`, loads it, and checks what every page must hold.
    static func report(store: String, user: String, asOf: String?, folder: String, name: String) throws -> Browser.Page {
        let file = folder + "/" + name + ".html"
        try evtool(["report", "--user", user, "--out", file] + (asOf.map { ["--as-of", $0] } ?? []), store: store)
        return try load(file, folder: folder, name: name)
    }

    /// Makes the store overview with `evtool report --store-overview --out`, loads it, checks it.
    static func overview(store: String, folder: String, name: String) throws -> Browser.Page {
        let file = folder + "/" + name + ".html"
        try evtool(["report", "--store-overview", "--out", file], store: store)
        return try load(file, folder: folder, name: name)
    }

    private static func load(_ file: String, folder: String, name: String) throws -> Browser.Page {
        let page = try Browser.load(file, screenshot: folder + "/" + name + ".png")
        #expect(page.styleApplied == "1100px", "the stylesheet did not apply (its hash in the CSP must match)")
        #expect(Browser.foreignRequests(page, file: file).isEmpty, "the page made requests: \(page.requests)")
        #expect(page.pwned == nil && page.scripts == 0, "a script is in the page")
        #expect(FileManager.default.fileExists(atPath: folder + "/" + name + ".png"))
        expectLinksAndTables(page, saved: true)
        return page
    }

    /// Every in-page link's target is on the page, a saved page links nowhere else (no page is
    /// beside it), and no table has a header row over no rows.
    static func expectLinksAndTables(_ page: Browser.Page, saved: Bool) {
        #expect(page.missingAnchors.isEmpty, "in-page links without a target: \(page.missingAnchors.prefix(10))")
        #expect(page.inPageLinks > 0, "the contents at least link within the page")
        if saved { #expect(page.otherLinks.isEmpty, "a saved page links beyond itself: \(page.otherLinks.prefix(10))") }
        #expect(page.emptyHeaders.isEmpty, "tables with a header over no rows: \(page.emptyHeaders)")
    }

    /// The page's numbers and lists equal history/favorites/recent/viewed --json for the same user and point.
    static func expectMatches(_ page: Browser.Page, store: String, user: String, asOf: String?) throws {
        let point = asOf.map { ["--as-of", $0] } ?? []
        let entries = try history(store: store, user: user, asOf: asOf)
        #expect(page.actionCount == String(entries.count))
        #expect(page.timeline.count == entries.count, "one timeline row per event")
        #expect(page.timeline.map(\.position) == entries.map { String($0.position) })
        for (row, entry) in zip(page.timeline, entries) {
            #expect(row.cells[1] == entry.recordedAt && row.cells[2] == entry.occurredAt && row.cells[3] == entry.type, "\(row.cells) vs \(entry)")
            if !row.erased {
                #expect(row.cells[4] == entry.summary && row.cells[5] == entry.source && row.cells[6] == entry.requestID && row.cells[7] == entry.correlationID,
                        "\(row.cells.map { $0.prefix(100) }) vs \(entry)")
            }
        }
        var counts: [String: Int] = [:]
        for entry in entries { counts[entry.type, default: 0] += 1 }
        #expect(Dictionary(uniqueKeysWithValues: page.counts.map { ($0[0], Int($0[1]) ?? -1) }) == counts)

        func items(_ command: String) throws -> [[String: Any]] {
            try object(try evtool([command, "--user", user, "--json"] + point, store: store))["items"] as? [[String: Any]] ?? []
        }
        let favorites = try items("favorites")
        #expect(page.favorites?.map { $0[0] } == favorites.map { $0["listingID"] as? String ?? "?" })
        #expect(page.favorites?.map { $0[1] } == favorites.map { ($0["summary"] as? [String: Any])?["name"] as? String ?? "?" })
        let recent = try items("recent")
        #expect(page.recent?.map { $0[0] } == recent.map { $0["keyword"] as? String ?? "?" })
        #expect(page.recent?.map { $0[4] } == recent.map { ($0["resultCount"] as? NSNumber).map { "\($0)" } ?? "-" })
        let viewed = try items("viewed")
        #expect(page.viewed?.map { $0[0] } == viewed.map { $0["listingID"] as? String ?? "?" })
        if let last = page.points.last {
            #expect(last.count == favorites.count, "the chart's last point is the favorites count at the report's point")
        }
    }

    /// The overview's verdict is `evtool verify`'s: its OK line and what it checked (events, seals).
    static func expectVerdict(_ page: Browser.Page, store: String) throws {
        let verified = try Processes.run(Processes.evtool, ["verify", "--store", store])
        #expect(verified.status == 0, "\(verified)")
        #expect(page.verdict == ["verified", verified.output.trimmingCharacters(in: .whitespacesAndNewlines)], "\(page.verdict ?? []) vs \(verified.output)")
        let json = try object(try evtool(["verify", "--json"], store: store))
        let events = (json["events"] as? NSNumber)?.intValue ?? -1, seals = (json["seals"] as? NSNumber)?.intValue ?? -1
        #expect(page.verdictChecks.contains { $0.contains(grouped(events) + (events == 1 ? " event in " : " events in ")) }, "\(page.verdictChecks)")
        #expect(page.verdictChecks.contains { $0.hasPrefix("every seal: \(seals) seal") }, "\(page.verdictChecks)")
    }

    /// `1234567` as `1,234,567`.
    static func grouped(_ value: Int) -> String {
        let digits = Array(String(value))
        return String(digits.enumerated().flatMap { index, digit in index > 0 && (digits.count - index) % 3 == 0 ? [",", digit] : [digit] })
    }

    /// The favorites chart by the day the actions occurred: the days run from the first
    /// action's occurred day to the last's without gaps, and each point is the favorites held
    /// after the user's last action (in log order) that occurred on or before that day.
    static func expectChartMatchesOccurred(_ page: Browser.Page, store: String, user: String) throws {
        let entries = try history(store: store, user: user, asOf: nil)
        let days = entries.map { String($0.occurredAt.prefix(10)) }
        #expect(page.points.first?.day == days.min() && page.points.last?.day == days.max(), "\(page.points)")
        #expect(days == days.sorted(), "the demo's actions occurred in log order")
        var expected: [Browser.Page.Point] = []
        for point in page.points {
            // The last action that occurred by the day's end, as of its position (favorites --as-of POSITION).
            guard let last = entries.last(where: { String($0.occurredAt.prefix(10)) <= point.day }) else { continue }
            let document = try object(try evtool(["favorites", "--user", user, "--json", "--as-of", String(last.position)], store: store))
            expected.append(.init(day: point.day, count: (document["items"] as? [Any])?.count ?? -1))
        }
        #expect(page.points == expected)
    }

    /// Each chart point equals `evtool favorites --as-of` the end of its day; the days run without gaps.
    static func expectChartMatches(_ page: Browser.Page, store: String, user: String) throws {
        let entries = try history(store: store, user: user, asOf: nil)
        // The chart plots the day each action occurred (the hand-made store's are the days they were recorded too).
        let days = Set(entries.map { String($0.occurredAt.prefix(10)) })
        #expect(page.points.first?.day == days.min() && page.points.last?.day == days.max())
        var expected: [Browser.Page.Point] = []
        for point in page.points {
            let document = try object(try evtool(["favorites", "--user", user, "--json", "--as-of", point.day + "T23:59:59.999999Z"], store: store))
            expected.append(.init(day: point.day, count: (document["items"] as? [Any])?.count ?? -1))
        }
        #expect(page.points == expected)
        let dates = page.points.compactMap { ISO8601DateFormatter().date(from: $0.day + "T00:00:00Z") }
        #expect(zip(dates, dates.dropFirst()).allSatisfy { $1.timeIntervalSince($0) == 86_400 }, "one point per day: \(page.points)")
    }
}
