@testable import AuditReport
import EventLog
import Foundation
import JSONKit
import TestSupport
import Testing

/// `evtool report` on the command line, and the page's markup, without a browser.
@Suite("Report: command line and markup")
struct ReportCommandTests {
    @Test("bad arguments: one Error line, exit 64; an unwritable --out: exit 1, the old file kept; stdout holds the page")
    func arguments() throws {
        let folder = try TemporaryDirectory(); defer { folder.remove() }
        let store = "sqlite:" + folder.path + "/s.sqlite"
        try HandMade.make(store: store, folder: folder.path, hostile: false)
        for arguments in [["report"], ["report", "--user", "ada", "--store-overview"], ["report", "--store-overview", "--as-of", "3"],
                          ["report", "--user", "ada", "--as-of", "yesterday"], ["report", "--user", "ada", "--out", ""]] {
            let result = try Processes.run(Processes.evtool, arguments + ["--store", store])
            #expect(result.status == 64, "\(arguments): \(result)")
            #expect(result.output.isEmpty && result.errors.hasPrefix("Error: "), "\(arguments): \(result)")
        }
        let empty = try Processes.run(Processes.evtool, ["report", "--user", "", "--store", store])
        #expect(empty.status == 65 && empty.output.isEmpty && empty.errors.hasPrefix("Error: "), "a rejected user id, as in the other commands: \(empty)")
        let old = folder.path + "/old.html"
        // An earlier report (any HTML page): what --out replaces; any other file it refuses.
        try "<!DOCTYPE html>\n<p>old page</p>\n".write(toFile: old, atomically: true, encoding: .utf8)
        let missing = try Processes.run(Processes.evtool, ["report", "--user", "ada", "--out", old, "--store", "sqlite:" + folder.path + "/none.sqlite"])
        #expect(missing.status == 69, "\(missing)")
        #expect(try String(contentsOfFile: old, encoding: .utf8) == "<!DOCTYPE html>\n<p>old page</p>\n")
        let unwritable = try Processes.run(Processes.evtool, ["report", "--user", "ada", "--out", folder.path + "/no/such/dir/page.html", "--store", store])
        #expect(unwritable.status == 74 && unwritable.errors.hasPrefix("Error: will not write the report to '\(folder.path)/no/such/dir/page.html': the folder '\(folder.path)/no/such/dir' does not exist"), "\(unwritable)")

        let page = try Processes.run(Processes.evtool, ["report", "--user", "ada", "--store", store])
        #expect(page.status == 0, "\(page)")
        #expect(page.output.hasPrefix("<!DOCTYPE html>") && page.output.hasSuffix("</html>\n"))
        let written = try Processes.run(Processes.evtool, ["report", "--user", "ada", "--out", old, "--store", store])
        #expect(written.status == 0 && written.output.isEmpty, "\(written)")
        #expect(try String(contentsOfFile: old, encoding: .utf8).hasPrefix("<!DOCTYPE html>") && !String(contentsOfFile: old, encoding: .utf8).contains("old page"))
    }

    @Test("demo --days: the actions' occurredAt spread over the last N days in log order, the same offsets for a seed, recorded now; a bad --days is a usage error naming it")
    func demoSpan() throws {
        let folder = try TemporaryDirectory(); defer { folder.remove() }
        /// Each event's occurredAt and recordedAt, in microseconds since 1970, in log order.
        func times(_ name: String, seed: String) throws -> (occurred: [Int64], recorded: [Int64]) {
            let store = "sqlite:" + folder.path + "/" + name + ".sqlite"
            let demo = try Processes.run(Processes.evtool, ["demo", "--users", "6", "--actions", "300", "--days", "4", "--seed", seed, "--quiet", "--store", store])
            #expect(demo.status == 0, "\(demo)")
            var occurred: [Int64] = [], recorded: [Int64] = []
            for line in try Shell.evtool(["export"], store: store).split(separator: "\n") {
                let event = try Shell.object(String(line))
                let occurredAt = try #require((event["metadata"] as? [String: Any])?["occurredAt"] as? String)
                occurred.append(try #require(Timestamp.parse(occurredAt).map(Timestamp.microseconds)))
                recorded.append(try #require((event["recordedAt"] as? String).flatMap(Timestamp.parse).map(Timestamp.microseconds)))
            }
            return (occurred, recorded)
        }
        let first = try times("first", seed: "3")
        let again = try times("again", seed: "3")
        let other = try times("other", seed: "4")
        let day: Int64 = 86_400_000_000
        for run in [first, again, other] {
            let (occurred, recorded) = run
            #expect(occurred.count > 250, "most of the 300 actions record an event")
            #expect(occurred == occurred.sorted(), "the actions occurred in log order")
            // The span ends at the whole second the demo started in, before any event was recorded.
            let end = (recorded.min() ?? 0) / 1_000_000 * 1_000_000
            #expect(occurred.allSatisfy { $0 >= end - 4 * day && $0 < end }, "every occurredAt is in the four days before the demo")
            #expect((occurred.first ?? 0) < end - 4 * day + day / 2 && (occurred.last ?? 0) > end - day / 2, "the actions fill the span")
            #expect((recorded.max() ?? 0) - (recorded.min() ?? 0) < day, "the store records them all now")
            let days = Set(occurred.map { $0 / day })
            #expect((4...5).contains(days.count), "four days span four or five UTC days: \(days.count)")
        }
        func offsets(_ run: (occurred: [Int64], recorded: [Int64])) -> [Int64] { run.occurred.map { $0 - run.occurred[0] } }
        #expect(offsets(first) == offsets(again), "the same seed: the same times, moved with the run's start")
        #expect(offsets(first) != offsets(other), "another seed: other times")

        for bad in ["0", "-1", "3651", "week", "1.5", ""] {
            let store = "sqlite:" + folder.path + "/bad.sqlite"
            let result = try Processes.run(Processes.evtool, ["demo", "--days", bad, "--actions", "5", "--store", store])
            #expect(result.status == 64, "--days \(bad): \(result)")
            #expect(result.errors.hasPrefix("Error: option '--days' must be a whole number from 1 to 3650, not '\(bad)'"), "\(result)")
            #expect(!FileManager.default.fileExists(atPath: folder.path + "/bad.sqlite"), "nothing was recorded")
        }
    }

    @Test("the overview of an archived store: its verdict counts the events checked from the boundary and names the archived ones not checked, as verify does")
    func archivedVerdict() throws {
        let folder = try TemporaryDirectory(); defer { folder.remove() }
        let store = "sqlite:" + folder.path + "/a.sqlite"
        #expect(try Processes.run(Processes.evtool, ["demo", "--quiet", "--actions", "60", "--users", "3", "--store", store]).status == 0)
        #expect(try Processes.run(Processes.evtool, ["archive", "--before", "11", "--to", folder.path + "/a1.jsonl", "--store", store]).status == 0)
        let verified = try Processes.run(Processes.evtool, ["verify", "--store", store])
        #expect(verified.status == 0 && verified.output.contains(" from position 11 in ") && verified.output.contains("; 10 archived events (positions 1–10) not checked"), "\(verified)")
        let page = try Processes.run(Processes.evtool, ["report", "--store-overview", "--store", store])
        #expect(page.status == 0, "\(page)")
        let line = HTML.escape(verified.output.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(page.output.contains("data-status=\"verified\">\(line)</p>"), "the verdict is verify's line")
        #expect(page.output.contains(" from position 11 up to position ") && page.output.contains("not the 10 archived events below position 11"))
        // A user whose first events are archived: the chain goes on from the head the archive kept.
        for user in ["user-00001", "user-00002", "user-00003"] {
            let userPage = try Processes.run(Processes.evtool, ["report", "--user", user, "--store", store])
            #expect(userPage.status == 0 && userPage.output.contains("verified: ") && !userPage.output.contains("does not verify"), "\(user): \(userPage.output.prefix(300))")
        }
    }

    @Test("escape: each of & < > \" ' and NUL replaced, other text (multi-byte, RTL) unchanged")
    func escape() {
        #expect(HTML.escape(#"a&b<c>d"e'f\#u{0}g"#) == "a&amp;b&lt;c&gt;d&quot;e&#39;f\u{FFFD}g")
        let plain = "Ш日本 \u{202E}مرحبا 🎫 x"
        #expect(HTML.escape(plain) == plain)
        #expect(HTML.escape("<Ш>") == "&lt;Ш&gt;")
        #expect(HTML.user(String(repeating: "é", count: 301)).hasPrefix("<bdi class=\"long\">"))
        #expect(HTML.user("short") == "<bdi>short</bdi>")
    }

    @Test("the page forbids scripts and loads, its stylesheet's hash is in the CSP, and user strings are escaped")
    func markup() throws {
        let store = InMemoryEventStore()
        let keyword = #"<img src=x onerror=alert(1)>"#
        let data = #"{"keyword":\#(JSONString.quoted(keyword)),"category":"All","distance":10,"units":"miles","location":{"custom":{"text":"</style>"}},"schemaVersion":2}"#
        _ = try store.append([ProposedEvent(type: "Searched", data: Data(data.utf8))], to: #"u"><b>"#, expectedVersion: .any)
        let page = try AuditReport.userPage(user: #"u"><b>"#, store: store, options: .init(storeDescription: "memory <x>"))
        #expect(page.contains("searched &quot;&lt;img src=x"), "the event was read as a search")
        #expect(!page.contains("<img") && !page.contains("<b>") && !page.contains("<script"))
        #expect(page.contains("&lt;img src=x onerror=alert(1)&gt;") && page.contains("u&quot;&gt;&lt;b&gt;") && page.contains("memory &lt;x&gt;"))
        #expect(page.components(separatedBy: "</style>").count == 2, "only the page's own </style>")
        let css = try #require(page.range(of: "<style>").flatMap { start in page.range(of: "</style>").map { String(page[start.upperBound..<$0.lowerBound]) } })
        let digest = Data(SHA256Hasher.digest(Data(css.utf8))).base64EncodedString()
        #expect(page.contains("default-src 'none'; style-src 'sha256-\(digest)'; img-src 'none'; script-src 'none'"))
    }

    @Test("long tables open fast: fixed column widths, rows in chunks of 200 the browser lays out when near, no element per plain cell")
    func longTables() throws {
        let store = InMemoryEventStore()
        let data = #"{"keyword":"jazz","category":"All","distance":10,"units":"miles","location":{"custom":{"text":"Paris"}},"schemaVersion":2}"#
        for _ in 0..<450 { _ = try store.append([ProposedEvent(type: "Searched", data: Data(data.utf8))], to: "ada", expectedVersion: .any) }
        let page = try AuditReport.userPage(user: "ada", store: store, options: .init(storeDescription: "memory"))
        let timeline = try #require(page.range(of: #"<div id="timeline" class="rows timeline">"#).map { String(page[$0.lowerBound...]) })
        let chunks = timeline.components(separatedBy: #"<div class="chunk">"#).dropFirst()
        #expect(chunks.map { $0.components(separatedBy: "<tr id=\"event-").count - 1 } == [200, 200, 50], "the rows in chunks of 200")
        #expect(timeline.hasPrefix(#"<div id="timeline" class="rows timeline"><table class="fixed"><colgroup><col><col><col><col><col><col><col><col></colgroup><thead>"#))
        #expect(page.contains("table.fixed{table-layout:fixed}") && page.contains(".rows .chunk{content-visibility:auto;"))
        #expect(page.contains(##"<tr id="event-1" data-position="1"><td><a href="#event-1">1</a></td>"##) && page.contains(#"<td>searched &quot;jazz&quot; "#),
                "a plain cell holds its escaped text alone")
        #expect(!timeline.contains("<bdi") && !timeline.contains("dir="), "no element or attribute per plain cell")
        #expect(page.components(separatedBy: #"<div id="searches" class="rows searches">"#).count == 2)
    }
}
