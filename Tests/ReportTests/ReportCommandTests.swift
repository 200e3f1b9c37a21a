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
        #expect(unwritable.status == 1 && unwritable.errors.hasPrefix("Error: will not write the report to '\(folder.path)/no/such/dir/page.html': the folder '\(folder.path)/no/such/dir' does not exist"), "\(unwritable)")

        let page = try Processes.run(Processes.evtool, ["report", "--user", "ada", "--store", store])
        #expect(page.status == 0, "\(page)")
        #expect(page.output.hasPrefix("<!DOCTYPE html>") && page.output.hasSuffix("</html>\n"))
        let written = try Processes.run(Processes.evtool, ["report", "--user", "ada", "--out", old, "--store", store])
        #expect(written.status == 0 && written.output.isEmpty, "\(written)")
        #expect(try String(contentsOfFile: old, encoding: .utf8).hasPrefix("<!DOCTYPE html>") && !String(contentsOfFile: old, encoding: .utf8).contains("old page"))
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
        #expect(chunks.map { $0.components(separatedBy: "<tr data-position=").count - 1 } == [200, 200, 50], "the rows in chunks of 200")
        #expect(timeline.hasPrefix(#"<div id="timeline" class="rows timeline"><table class="fixed"><colgroup><col><col><col><col><col><col><col><col></colgroup><thead>"#))
        #expect(page.contains("table.fixed{table-layout:fixed}") && page.contains(".rows .chunk{content-visibility:auto;"))
        #expect(page.contains(#"<tr data-position="1"><td>1</td>"#) && page.contains(#"<td>searched &quot;jazz&quot; "#),
                "a plain cell holds its escaped text alone")
        #expect(!timeline.contains("<bdi") && !timeline.contains("dir="), "no element or attribute per plain cell")
        #expect(page.components(separatedBy: #"<div id="searches" class="rows searches">"#).count == 2)
    }
}
