import Foundation
import TestSupport
import Testing

/// `evtool import` of events made elsewhere, end to end through the built binary.
@Suite("evtool import: plain lines and CloudEvents from elsewhere, formats, progress")
struct ImportFormatsTests {
    enum Kind: String, CaseIterable, Sendable {
        case sqlite, postgres
    }

    @Test("events of evtool's types whose data a view reads import silently; from elsewhere, one that does not decode is refused naming its line; in a copy of evtool's export they are imported with a warning naming their count and the first line (--json too); erased events are not counted", arguments: Kind.allCases)
    func undecodableEventsAreNamed(kind: Kind) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let cli: CLI
        var drop: () -> Void = {}
        switch kind {
        case .sqlite: cli = CLI(store: "sqlite:\(directory.path)/store.sqlite", directory: directory.path)
        case .postgres:
            let postgres = try TestStores.freshPostgresStore()
            cli = CLI(store: postgres.url, directory: directory.path)
            drop = postgres.drop
        }
        defer { drop() }
        let good = try cli.file("good.jsonl", """
            {"stream":"ada","type":"Searched","data":{"keyword":"jazz","category":"Music","distance":10,"units":"miles","location":{"custom":{"text":"Los Angeles"}},"schemaVersion":2},"id":"legacy-1"}
            {"stream":"ada","type":"Clicked","data":{"anything":1},"id":"legacy-2"}

            """)
        var result = try cli.run("import", good)
        #expect(result.status == 0 && result.output.hasPrefix("imported 2 events, skipped 0") && result.errors.isEmpty, "\(result)")
        let recent = try cli.run("recent", "--user", "ada")
        #expect(recent.status == 0 && recent.output.contains("jazz"), "the imported search reaches its view: \(recent)")

        let bad = try cli.file("bad.jsonl", """
            {"stream":"bob","type":"Favorited","data":{"listingID":"L1","schemaVersion":1,"summary":{"name":"Hamilton","venue":"Pantages","localDateTime":"2026-12-05 19:30:00","category":"Music"}}}
            {"stream":"bob","type":"Searched","data":{"keyword":"rock"}}
            {"stream":"bob","type":"Favorited","data":{"listing":"L2"}}

            """)
        result = try cli.run("import", bad)
        #expect(result.status == 65 && result.errors.hasPrefix("Error: line 2: stream 'bob': data is not a Searched event evtool can read: Searched event is malformed: ")
                && result.errors.contains("(nothing from line 1 on was imported; 0 events were before it)"), "\(result)")
        #expect(!(try cli.run("favorites", "--user", "bob").output.contains("L1")), "nothing of the refused line's batch")

        // The same events as evtool's export lines (a copy of an older log): imported, with the warning.
        let copied = try cli.file("copied.jsonl", """
            {"position":3,"stream":"bob","version":1,"id":"0190f3c0-0000-7000-8000-000000000003","type":"Favorited","recordedAt":"2026-03-01T10:00:00.000000Z","data":{"listingID":"L1","schemaVersion":1,"summary":{"name":"Hamilton","venue":"Pantages","localDateTime":"2026-12-05 19:30:00","category":"Music"}},"metadata":{}}
            {"position":4,"stream":"bob","version":2,"id":"0190f3c0-0000-7000-8000-000000000004","type":"Searched","recordedAt":"2026-03-01T10:00:01.000000Z","data":{"keyword":"rock"},"metadata":{}}
            {"position":5,"stream":"bob","version":3,"id":"0190f3c0-0000-7000-8000-000000000005","type":"Favorited","recordedAt":"2026-03-01T10:00:02.000000Z","data":{"listing":"L2"},"metadata":{}}

            """)
        result = try cli.run("import", copied, "--json")
        #expect(result.status == 0 && result.output.contains(#""imported":3,"skipped":0,"undecodable":2,"firstUndecodable":"line 2: Searched event is malformed: "#), "\(result)")
        #expect(result.errors.hasPrefix("warning: 2 events of evtool's types do not decode, so no view shows them (docs/reference/events.md has each type's JSON); the first: line 2: Searched event is malformed: ")
                && result.errors.hasSuffix(" is missing\n") && result.errors.split(separator: "\n").count == 1, "\(result.errors)")
        #expect(try cli.run("favorites", "--user", "bob").output.contains("L1"))

        // An export of a log with an erased user imports without a warning: tombstones are not counted.
        #expect(try cli.run("forget", "--user", "ada", "--reason", "test", "--by", "ops").status == 0)
        let export = try cli.run("export")
        let copy = CLI(store: "sqlite:\(directory.path)/copy.sqlite", directory: directory.path)
        result = try copy.run("import", try cli.file("export.jsonl", export.output), "--json")
        #expect(result.status == 0 && result.output.contains(#""undecodable":2,"firstUndecodable":"line 4: "#), "only bob's two: \(result)")
    }

    @Test("plain lines import (detected or with --format), idempotent by id; a mixed line is refused with its line and member, exit 65")
    func plainLines() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let cli = CLI(store: "sqlite:\(directory.path)/store.sqlite", directory: directory.path)
        let file = try cli.file("plain.jsonl", """
            {"stream":"ada","type":"Noted","data":{"keyword":"jazz"},"id":"legacy-1"}
            {"stream":"bob","type":"Noted","data":{"keyword":"rock"},"metadata":{"from":"legacy"}}

            """)
        var result = try cli.run("import", file)
        #expect(result.status == 0 && result.output == "imported 2 events, skipped 0 already present, into sqlite:\(directory.path)/store.sqlite\n", "\(result)")
        // No progress lines when standard error is not a terminal.
        #expect(result.errors.isEmpty, "\(result.errors)")
        result = try cli.run("import", "--format", "plain", file)
        #expect(result.status == 0 && result.output.hasPrefix("imported 1 event, skipped 1 already present"), "the line without id is new again: \(result)")
        let exported = try cli.run("export")
        #expect(exported.output.split(separator: "\n").count == 3)
        #expect(exported.output.contains(#""stream":"ada","version":1"#) && exported.output.contains(#""stream":"bob","version":2"#), "\(exported.output)")

        let mixed = try cli.file("mixed.jsonl", """
            {"stream":"cyd","type":"A","data":{}}
            {"specversion":"1.0","id":"1","source":"/x","type":"A","subject":"cyd","data":{}}

            """)
        result = try cli.run("import", mixed)
        #expect(result.status == 65, "\(result)")
        #expect(result.errors == "Error: line 2: 'specversion' makes this line a CloudEvent, in a file of plain event lines (as line 1 is); one format per file (nothing from line 1 on was imported; 0 events were before it)\n", "\(result)")

        result = try cli.run("import", "--format", "csv", file)
        #expect(result.status == 64 && result.errors.hasPrefix("Error: '--format' must be jsonl, plain or cloudevents, not 'csv'\n"), "\(result)")
        result = try cli.run("import", "--format", "cloudevents", file)
        #expect(result.status == 65 && result.errors.hasPrefix("Error: line 1: 'specversion' is missing"), "\(result)")
        // The refused line took its batch with it (cyd's line 1 too).
        #expect(try cli.run("verify").output.hasPrefix("OK: 3 events in 2 streams"))
    }

    @Test("import shows a progress bar on a terminal (through the library's progress steps), and none in a pipe")
    func progressOnATerminal() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let store = "sqlite:\(directory.path)/store.sqlite"
        let lines = (1...3_000).map { #"{"stream":"user-\#($0 % 40)","type":"Noted","data":{"keyword":"k\#($0)"}}"# }
        let file = directory.path + "/many.jsonl"
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        // `script` gives the command a terminal; its output is what the terminal showed.
        let command = [Processes.evtool, "import", file, "--batch", "500", "--store", store].map { "'\($0)'" }.joined(separator: " ")
        let result = try Processes.run("/usr/bin/script", ["-qefc", command, "/dev/null"])
        #expect(result.status == 0, "\(result)")
        let size = try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int ?? 0
        let digits = Array(String(size))
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped += "," }
            grouped.append(digit)
        }
        #expect(result.output.contains("\r\u{1B}[2Kimport "), "\(result.output.debugDescription)")
        #expect(result.output.contains("100% \(grouped)/\(grouped) bytes"), "\(result.output.debugDescription)")
        #expect(result.output.contains("imported 3,000 events, skipped 0 already present"), "\(result.output.debugDescription)")
    }

    @Test("a CloudEvent's time is kept to the microsecond whatever its fraction and offset; one outside 1970–2199 is refused naming the line",
          arguments: [("2026-03-01T10:00:00.1234567Z", "2026-03-01T10:00:00.123456Z"), ("2026-03-01T10:00:00.123456789Z", "2026-03-01T10:00:00.123456Z"),
                      ("2026-03-01t10:00:00.5z", "2026-03-01T10:00:00.500000Z"), ("2026-03-01T10:00:00.25+01:30", "2026-03-01T08:30:00.250000Z"),
                      ("3000-01-01T00:00:00.000001Z", ""), ("0001-01-01T00:00:00Z", "")])
    func cloudEventTimes(given: String, stored: String) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let cli = CLI(store: "sqlite:\(directory.path)/s.sqlite", directory: directory.path)
        let line = #"{"specversion":"1.0","id":"e1","source":"s","type":"T","subject":"s1","time":"\#(given)","data":{}}"#
        let imported = try cli.run("import", try cli.file("c.jsonl", line + "\n"))
        if stored.isEmpty {
            #expect(imported.status == 65 && imported.errors.contains("line 1: 'time' is '\(given)': a recording time must be from 1970 to 2199"), "\(imported)")
        } else {
            #expect(imported.status == 0, "\(imported)")
            #expect(try cli.run("export").output.contains(#""recordedAt":"\#(stored)""#))
        }
    }

    @Test("a UTF-8 byte-order mark before the first line is named in the refusal; seal --list refuses --json")
    func byteOrderMark() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let source = CLI(store: "sqlite:\(directory.path)/source.sqlite", directory: directory.path)
        try #require(try source.run("demo", "--users", "3", "--actions", "20", "--quiet").status == 0)
        let export = try source.run("export").output
        let path = directory.path + "/bom.jsonl"
        try (Data([0xEF, 0xBB, 0xBF]) + Data(export.utf8)).write(to: URL(fileURLWithPath: path))
        let target = CLI(store: "sqlite:\(directory.path)/target.sqlite", directory: directory.path)
        let imported = try target.run("import", path)
        #expect(imported.status == 65 && imported.errors.hasPrefix("Error: line 1: the file begins with a UTF-8 byte-order mark (bytes EF BB BF)"), "\(imported)")
        #expect(try target.run("import", try target.file("clean.jsonl", export)).status == 0, "the same file without it imports")
        let listed = try source.run("seal", "--list", "--json")
        #expect(listed.status == 64 && listed.errors.contains("'--list' prints the checkpoints as recorded"), "\(listed)")
    }
}
