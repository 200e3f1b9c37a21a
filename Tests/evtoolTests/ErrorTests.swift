import Foundation
import TestSupport
import Testing

@Suite("evtool: documented errors")
struct ErrorTests {
    @Test("a rejected command names the field and the rule, exits 65, and records nothing")
    func rejectedCommands() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let cli = CLI(store: "sqlite:\(directory.path)/s.sqlite", directory: directory.path)
        let cases: [([String], String)] = [
            (["search", "--user", "ada", "--keyword", "   ", "--here", "1,2"], "Error: keyword must not be empty or only spaces\n"),
            (["search", "--user", "ada", "--keyword", "jazz", "--location", "  "], "Error: custom location must not be empty or only spaces\n"),
            (["search", "--user", "ada", "--keyword", "jazz", "--here", "1,2", "--distance", "-5"], "Error: distance must be a positive number\n"),
            (["search", "--user", "ada", "--keyword", "jazz", "--here", "1,2", "--distance", "nan"], "Error: distance must be a positive number\n"),
            (["search", "--user", "ada", "--keyword", "jazz", "--here", "1,2", "--distance", "1e308"], "Error: distance must be at most 20000 (half the Earth's circumference is about 20,000 km)\n"),
            (["unfavorite", "--user", "", "--listing", "L1"], nil ?? ""),
        ]
        for (arguments, expected) in cases {
            let result = try Processes.run(Processes.evtool, arguments + ["--store", cli.store])
            #expect(result.status == 65, "\(arguments): \(result)")
            if !expected.isEmpty { #expect(result.errors == expected, "\(arguments)") }
            #expect(result.output.isEmpty)
        }
        // A value the option cannot read is a usage error (64), as for every option.
        let unreadable: [([String], String)] = [
            (["search", "--user", "ada", "--keyword", "jazz", "--here", "1,2", "--category", "Opera"], "Error: category must be one of All, Music, Sports, Arts & Theatre, Film, Miscellaneous, not 'Opera'\n"),
            (["search", "--user", "ada", "--keyword", "jazz", "--here", "1,2", "--units", "parsecs"], "Error: units must be miles or km, not 'parsecs'\n"),
            (["search", "--user", "ada", "--keyword", "jazz", "--here", "north"], "Error: '--here' must be LATITUDE,LONGITUDE in degrees, e.g. 34.0224,-118.2851, not 'north'\n"),
            (["search", "--user", "ada", "--keyword", "jazz", "--here", "1,2", "--distance", "far"], "Error: distance must be a positive number, not 'far'\n"),
            (["export", "--format", "xml"], "Error: "),
        ]
        for (arguments, expected) in unreadable {
            let result = try Processes.run(Processes.evtool, arguments + ["--store", cli.store])
            #expect(result.status == 64 && result.errors.hasPrefix(expected), "\(arguments): \(result)")
            #expect(result.output.isEmpty)
        }
        // Refused before the store is opened: not even an empty store was made.
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/s.sqlite"))
    }

    @Test("a malformed import line is named, exits 65, and leaves the store unchanged")
    func malformedImport() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let cli = CLI(store: "sqlite:\(directory.path)/s.sqlite", directory: directory.path)
        #expect(try cli.run("search", "--user", "ada", "--keyword", "jazz", "--here", "1,2").status == 0)
        let good = try cli.run("export").output
        let target = CLI(store: "sqlite:\(directory.path)/t.sqlite", directory: directory.path)
        let cases: [(String, String)] = [
            ("{\"position\":1,", "Error: line 1: not a JSON object: expected a member name at offset 14 (nothing from this line on was imported; 0 events were before it)"),
            ("[1,2]", "Error: line 1: it is an array, not an object"),
            (#"{"stream":"ada","version":1,"id":"not-a-uuid","type":"T","recordedAt":"2026-01-01T00:00:00.000000Z","data":{},"metadata":{}}"#,
             "Error: line 1: 'id' must be a UUID, not 'not-a-uuid'"),
            (#"{"stream":"ada","version":"one","id":"01a22c3c-afdf-7b39-bf76-8f32d6761f37","type":"T","recordedAt":"2026-01-01T00:00:00.000000Z","data":{},"metadata":{}}"#,
             "Error: line 1: 'version' must be a whole number"),
            (#"{"stream":"ada","version":1,"id":"01a22c3c-afdf-7b39-bf76-8f32d6761f37","type":"T","recordedAt":"2026-01-01T00:00:00.000000Z","metadata":{}}"#,
             "Error: line 1: 'data' is missing"),
            (#"{"stream":"ada","version":3,"id":"01a22c3c-afdf-7b39-bf76-8f32d6761f37","type":"T","recordedAt":"2026-01-01T00:00:00.000000Z","data":{},"metadata":{}}"#,
             "Error: line 1: stream 'ada' jumps from version 0 to 3 (events missing or out of order)"),
        ]
        for (line, expected) in cases {
            let result = try target.run("import", "-", input: line + "\n")
            #expect(result.status == 65, "\(line): \(result)")
            #expect(result.errors.hasPrefix(expected), "\(line): \(result.errors)")
        }
        // A bad line after good ones: the batches before its own are imported (one line each
        // here, --batch 1); the bad one is named. In one batch with it, nothing is.
        let together = try target.run("import", "-", input: good + "garbage\n")
        #expect(together.status == 65 && together.errors.contains("(nothing from line 1 on was imported; 0 events were before it)"), "\(together)")
        #expect(try target.run("export").output.isEmpty)
        let goodLines = good.split(separator: "\n").count
        let result = try target.run("import", "--batch", "1", "-", input: good + "garbage\n")
        #expect(result.status == 65)
        #expect(result.errors.hasPrefix("Error: line \(goodLines + 1): not a JSON object"), "\(result)")
        #expect(try target.run("export").output == good)
        #expect(try target.run("import", "-", input: "\u{FF}\u{FE}\n").status == 65)
    }

    @Test("import's and migrate's batches are 10,000 events unless --batch says: a bad line 2,500 lines in keeps nothing by default, the two batches before it with --batch 1000")
    func importBatchDefault() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        // Plain event lines: each appended at its stream's next version.
        let lines = (1...2_500).map { #"{"stream":"user-\#($0 % 7)","type":"Noted","data":{"n":\#($0)}}"# }.joined(separator: "\n") + "\n"
        for command in ["import", "migrate"] {
            let help = try CLI.bare(command, "--help")
            #expect(help.output.contains("Events per transaction (default 10,000;"), "\(command): \(help.output)")
        }
        let byDefault = CLI(store: "sqlite:\(directory.path)/default.sqlite", directory: directory.path)
        var result = try byDefault.run("import", "-", input: lines + "garbage\n")
        #expect(result.status == 65 && result.errors.contains("line 2501: not a JSON object") && result.errors.contains("(nothing from line 1 on was imported; 0 events were before it)"), "\(result)")
        #expect(try byDefault.run("export").output.isEmpty)
        let small = CLI(store: "sqlite:\(directory.path)/small.sqlite", directory: directory.path)
        result = try small.run("import", "--batch", "1000", "-", input: lines + "garbage\n")
        #expect(result.status == 65 && result.errors.contains("(nothing from line 2001 on was imported; 2,000 events were before it)"), "\(result)")
        #expect(try small.run("export").output.split(separator: "\n").count == 2_000)
    }

    @Test("a store that cannot be opened: exit 69 (or 65 for a file that is not a store), one line")
    func unavailableStores() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        var result = try CLI.bare("favorites", "--user", "ada", "--store", "sqlite:\(directory.path)/missing.sqlite")
        #expect(result.status == 69)
        #expect(result.errors == "Error: the store is unavailable: no store at '\(directory.path)/missing.sqlite' (the file does not exist)\n")
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/missing.sqlite"))
        result = try CLI.bare("stats", "--store", directory.path)
        #expect(result.status == 69)
        let text = directory.path + "/notes.txt"
        try String(repeating: "hello\n", count: 500).write(toFile: text, atomically: true, encoding: .utf8)
        result = try CLI.bare("stats", "--store", text)
        #expect(result.status == 65)
        #expect(result.errors == "Error: the store is damaged or not an evtool store: '\(text)' is not an SQLite database\n")
        result = try CLI.bare("stats", environment: ["EVTOOL_STORE": "sqlite:\(directory.path)/also-missing.sqlite"])
        #expect(result.status == 69)
        #expect(result.errors.contains("also-missing.sqlite"))
    }
}
