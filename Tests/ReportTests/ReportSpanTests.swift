@testable import AuditReport
import Foundation
import TestSupport
import Testing

/// The report's size and cost follow the days that hold events, never the span between the
/// first and the last: a client's `occurredAt` may be anywhere from 1970 to 9999.
@Suite("Report: occurred times far apart")
struct ReportSpanTests {
    /// A demo store on a SQLite file, plus `user-00001` searches that occurred at each of `times`.
    private static func store(_ folder: TemporaryDirectory, times: [String], actions: Int = 300, days: Int? = nil) throws -> String {
        let store = "sqlite:" + folder.path + "/span.sqlite"
        let demo = try Processes.run(Processes.evtool, ["demo", "--quiet", "--actions", String(actions), "--users", "5", "--seed", "3", "--store", store]
            + (days.map { ["--days", String($0)] } ?? []))
        #expect(demo.status == 0, "\(demo)")
        for time in times {
            let search = try Processes.run(Processes.evtool, ["search", "--user", "user-00001", "--keyword", "k", "--location", "l", "--occurred-at", time, "--store", store])
            #expect(search.status == 0, "\(search)")
        }
        return store
    }

    /// `evtool report` with `arguments` into a file: the page and the seconds it took.
    private static func report(_ arguments: [String], store: String, folder: TemporaryDirectory) throws -> (page: String, seconds: Double) {
        let out = folder.path + "/page.html"
        let started = Date()
        let result = try Processes.run(Processes.evtool, ["report"] + arguments + ["--out", out, "--store", store])
        let seconds = Date().timeIntervalSince(started)
        #expect(result.status == 0, "\(result)")
        return (try String(contentsOfFile: out, encoding: .utf8), seconds)
    }

    /// The `data-day` of each element of `kind` (`rect.bar`, `circle.point`) in the `<svg id="id">`.
    private static func days(in page: String, chart id: String, kind: String) -> [String] {
        guard let start = page.range(of: "<svg id=\"\(id)\""), let end = page.range(of: "</svg>", range: start.upperBound..<page.endIndex) else { return [] }
        let chart = page[start.lowerBound..<end.lowerBound]
        return chart.components(separatedBy: "<\(kind) class=\"").dropFirst().compactMap { element in
            element.range(of: "data-day=\"").map { String(element[$0.upperBound...].prefix(10)) }
        }
    }

    @Test("events at 1970-01-01 and 9999-12-31 beside a week of demo actions: the user page and the overview stay under 1 MB and 15 s, show both days, and list both as occurring far from when recorded")
    func farApart() throws {
        let folder = try TemporaryDirectory(); defer { folder.remove() }
        let store = try Self.store(folder, times: ["1970-01-01T00:00:00Z", "9999-12-31T23:59:59Z"])
        for (arguments, chart, kind) in [(["--user", "user-00001"], "favorites-chart", "circle"), (["--store-overview"], "events-chart", "rect")] {
            let (page, seconds) = try Self.report(arguments, store: store, folder: folder)
            #expect(page.utf8.count < 1_000_000, "\(arguments): \(page.utf8.count) bytes")
            #expect(seconds < 15, "\(arguments): \(seconds) s")
            let days = Self.days(in: page, chart: chart, kind: kind)
            #expect(days.first == "1970-01-01" && days.last == "9999-12-31", "\(arguments): \(days.prefix(3)) … \(days.suffix(3))")
            #expect(Set(days).count < 20, "a slot per day with events: \(Set(days).count)")
            #expect(page.contains("class=\"gap\""), "the gaps are marked")
            #expect(page.contains("id=\"far-count\">2 "), "\(arguments): the summary counts the two far actions")
            let far = try #require(page.range(of: "id=\"far-events\"").map { String(page[$0.lowerBound...].prefix(4_000)) })
            #expect(far.contains("1970-01-01T00:00:00") && far.contains("9999-12-31T23:59:59"), "\(arguments): \(far.prefix(1_500))")
        }
    }

    @Test("one action at 1970-01-01 (a phone with a reset clock) adds one slot, not 20,000 days: the user page grows by under 20 KB")
    func resetClock() throws {
        let plainFolder = try TemporaryDirectory(); defer { plainFolder.remove() }
        let plain = try Self.report(["--user", "user-00001"], store: try Self.store(plainFolder, times: ["2026-01-01T00:00:00Z"]), folder: plainFolder).page
        let resetFolder = try TemporaryDirectory(); defer { resetFolder.remove() }
        let reset = try Self.report(["--user", "user-00001"], store: try Self.store(resetFolder, times: ["1970-01-01T00:00:00Z"]), folder: resetFolder).page
        #expect(reset.utf8.count < plain.utf8.count + 20_000, "\(plain.utf8.count) → \(reset.utf8.count) bytes")
        #expect(Self.days(in: reset, chart: "favorites-chart", kind: "circle").first == "1970-01-01")
    }

    @Test("actions on more than 400 days: the bars grow to weeks or months, at most 400, and still hold every event")
    func manyDays() throws {
        let folder = try TemporaryDirectory(); defer { folder.remove() }
        let store = try Self.store(folder, times: [], actions: 1_500, days: 3_650)
        let (page, _) = try Self.report(["--store-overview"], store: store, folder: folder)
        let bars = Set(Self.days(in: page, chart: "events-chart", kind: "rect"))
        #expect(!bars.isEmpty && bars.count <= DayBuckets.limit, "\(bars.count) bars")
        #expect(page.contains("data-bucket=\"month\"") || page.contains("data-bucket=\"week\""), "the buckets grew")
        let counts = page.components(separatedBy: "<rect class=\"bar\"").dropFirst().compactMap { bar in
            bar.range(of: "data-count=\"").flatMap { Int(bar[$0.upperBound...].prefix { $0.isNumber }) }
        }
        let events = try #require(page.range(of: "<span id=\"event-count\">").flatMap { Int(page[$0.upperBound...].prefix { $0.isNumber }) })
        #expect(counts.reduce(0, +) == events, "every event is in one bar")
    }

    @Test("buckets: days to dates and back, Monday weeks, the smallest size that keeps at most 400, labels")
    func buckets() {
        for day: Int64 in [0, 59, 365, 11_016, 20_515, 2_932_896] {
            let (year, month, dayOfMonth) = DayBuckets.civil(day)
            #expect(DayBuckets.days(year: year, month: month, day: dayOfMonth) == day)
            #expect(HTML.day(day) == String(format: "%04d-%02d-%02d", Int(year), Int(month), Int(dayOfMonth)))
        }
        #expect(HTML.day(DayBuckets.start(of: 0, .week)) == "1969-12-29", "the Monday before Thursday 1970-01-01")
        #expect(DayBuckets.size(for: 0..<400) == .day && DayBuckets.size(for: 0..<401) == .week)
        #expect(DayBuckets.size(for: [0, 2_932_896]) == .day, "two days however far apart")
        #expect(DayBuckets.size(for: stride(from: 0, to: 2_932_896, by: 300)) == .century)
        let year = DayBuckets.bucket(of: 20_515, .year)
        #expect(year.label == "2026" && HTML.day(year.first) == "2026-01-01" && HTML.day(year.last) == "2026-12-31")
        #expect(DayBuckets.bucket(of: 20_515, .month).label == "2026-03" && DayBuckets.bucket(of: 20_515, .century).label == "2000–2099")
        let summed = DayBuckets.summed([(20_515, [1, 2]), (20_516, [3, 0]), (0, [1, 1])], .year)
        #expect(summed.map(\.bucket.label) == ["1970", "2026"] && summed.map(\.values) == [[1, 1], [4, 2]])
        #expect(DayBuckets.lastLevel([(20_516, 7), (20_515, 3)], .month).map(\.count) == [7])
    }
}
