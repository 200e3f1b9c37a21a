import EventLog
import Foundation
import TestSupport
import Testing

/// `evtool import` and `evtool migrate` compare an event already in the store with the one
/// given before they skip it, on SQLite files and PostgreSQL, through the built binary.
@Suite("Import and migrate compare before they skip")
struct ImportCompareTests {
    /// A source log of three users in an SQLite file, and its export lines.
    static func source(_ directory: TemporaryDirectory) throws -> (cli: CLI, lines: [String]) {
        let cli = CLI(store: "sqlite:\(directory.path)/source.sqlite", directory: directory.path)
        let details = try cli.file("details.json", Samples.details)
        let commands: [[String]] = [
            ["search", "--user", "ada", "--keyword", "Hamilton", "--location", "Los Angeles", "--source", "ios-app/4.2"],
            ["favorite", "--user", "ada", "--listing", "L8", "--name", "Lakers vs Celtics", "--venue", "Crypto.com Arena", "--date", "2026-12-09 19:00:00", "--category", "Sports"],
            ["search", "--user", "bob", "--keyword", "jazz", "--location", "Chicago"],
            ["view", "--user", "ada", "--listing", "L7", "--details", details],
            ["favorite", "--user", "bob", "--listing", "L8", "--name", "Lakers vs Celtics", "--venue", "Crypto.com Arena", "--date", "2026-12-09 19:00:00", "--category", "Sports"],
            ["search", "--user", "cyd", "--keyword", "opera", "--here", "40.7,-74.0"],
        ]
        for arguments in commands {
            let result = try Processes.run(Processes.evtool, arguments + ["--store", cli.store])
            #expect(result.status == 0, "\(arguments): \(result)")
        }
        let exported = try cli.run("export")
        #expect(exported.status == 0)
        let lines = exported.output.split(separator: "\n").map(String.init)
        #expect(lines.count == commands.count)
        return (cli, lines)
    }

    /// The members of an export line.
    static func members(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    /// An import line of a new event in a new stream.
    static func newLine(stream: String, id: UUID = UUID(), data: String = #"{"note":"new"}"#) -> String {
        #"{"stream":"\#(stream)","version":1,"id":"\#(id.lowercaseString)","type":"Note","recordedAt":"2026-11-30T12:00:00.000000Z","data":\#(data),"metadata":{}}"#
    }

    /// Each way a line can differ from the stored event, as a change to the line.
    static func changes(of line: String) throws -> [(field: String, line: String)] {
        let hash = try #require(try members(line)["hash"] as? String)
        let flipped = String(hash.prefix(63)) + (hash.hasSuffix("0") ? "1" : "0")
        let time = try #require(try members(line)["recordedAt"] as? String)
        let later = String(time.dropLast(2)) + (time.dropLast(1).hasSuffix("9") ? "8Z" : "9Z")
        return [
            ("data", line.replacingOccurrences(of: "Hamilton", with: "Hamiltoon")),
            ("metadata", line.replacingOccurrences(of: "ios-app/4.2", with: "ios-app/6.6")),
            ("type", line.replacingOccurrences(of: #""type":"Searched""#, with: #""type":"Searchd""#)),
            ("recordedAt", line.replacingOccurrences(of: time, with: later)),
            ("version", line.replacingOccurrences(of: #""version":1,"#, with: #""version":7,"#)),
            ("stream", line.replacingOccurrences(of: #""stream":"ada""#, with: #""stream":"eve""#)),
        ]
        + [("hash", line.replacingOccurrences(of: hash, with: flipped))]
    }

    /// The first 16 digits of a line's hash.
    static func flippedPrefix(_ line: String) -> String {
        ((try? members(line))?["hash"] as? String).map { String($0.prefix(16)) } ?? ""
    }

    @Test("identical lines are skipped; a line differing in any field is refused naming the line and the field, and nothing of its batch is kept")
    func differingLineRefused() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let lines = try Self.source(directory).lines
        let all = lines.joined(separator: "\n") + "\n"
        for store in try ErasureAftermathTests.stores(directory) {
            defer { store.cleanup() }
            let cli = store.cli
            var result = try cli.run("import", "-", input: all)
            #expect(result.status == 0 && result.output.hasPrefix("imported 6 events, skipped 0 already present"), "\(store.name): \(result)")
            result = try cli.run("import", "-", input: all)
            #expect(result.status == 0 && result.output.hasPrefix("imported 0 events, skipped 6 already present"), "\(store.name): \(result)")
            let before = try cli.run("export").output
            let id = try #require(try Self.members(lines[0])["id"] as? String)
            for (field, changed) in try Self.changes(of: lines[0]) {
                #expect(changed != lines[0], "\(field): the change must change the line")
                // A new event first (line 1), then the changed line (line 2) and the rest.
                let input = ([Self.newLine(stream: "zed"), changed] + lines.dropFirst()).joined(separator: "\n") + "\n"
                result = try cli.run("import", "-", input: input)
                let context = "\(store.name), \(field): \(result)"
                #expect(result.status == 65, "\(context)")
                if field == "hash" {   // the content is the stored event's, the line's own hash does not match it
                    #expect(result.errors.hasPrefix("Error: line 2: its hash \(Self.flippedPrefix(changed))… does not match its content"), "\(context)")
                } else {
                    #expect(result.errors.hasPrefix("Error: line 2: event \(id) is already in the store with a different \(field) (stored: stream 'ada' version 1"), "\(context)")
                }
                #expect(result.errors.contains("(nothing of lines 1–7 was imported; 0 events were before them)"), "\(context)")
                #expect(result.errors.split(separator: "\n").count == 1, "\(context)")
                #expect(try cli.run("export").output == before, "\(context): the store changed")
            }
            // Several fields at once are all named.
            let twice = lines[0].replacingOccurrences(of: "Hamilton", with: "Hamiltoon").replacingOccurrences(of: "ios-app/4.2", with: "x")
            result = try cli.run("import", "-", input: twice + "\n")
            #expect(result.status == 65 && result.errors.hasPrefix("Error: line 1: event \(id) is already in the store with a different data and metadata"), "\(store.name): \(result)")
            #expect(try cli.run("export").output == before, "\(store.name): the store changed")
            #expect(try cli.run("verify").status == 0, "\(store.name)")
        }
    }

    @Test("a new line whose own hash does not match its content is refused, and so is a second line giving the same new event differently")
    func newLineChecked() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let lines = try Self.source(directory).lines
        for store in try ErasureAftermathTests.stores(directory) {
            defer { store.cleanup() }
            let changed = lines[0].replacingOccurrences(of: "Hamilton", with: "Hamiltoon")
            var result = try store.cli.run("import", "-", input: changed + "\n")
            #expect(result.status == 65 && result.errors.hasPrefix("Error: line 1: its hash "), "\(store.name): \(result)")
            let id = UUID()
            result = try store.cli.run("import", "-", input: [Self.newLine(stream: "zed", id: id), Self.newLine(stream: "zed", id: id, data: #"{"note":"other"}"#)].joined(separator: "\n") + "\n")
            #expect(result.status == 65 && result.errors.hasPrefix("Error: line 2: event \(id.lowercaseString) is also at line 1, with a different data"), "\(store.name): \(result)")
            // Given twice the same, it is one event.
            result = try store.cli.run("import", "-", input: [Self.newLine(stream: "zed", id: id), Self.newLine(stream: "zed", id: id)].joined(separator: "\n") + "\n")
            #expect(result.status == 0 && result.output.hasPrefix("imported 1 event, skipped 1 already present"), "\(store.name): \(result)")
            #expect(try store.cli.run("export").output.split(separator: "\n").count == 1, "\(store.name)")
        }
    }

    @Test("an event erased in the store since: its original line is the same event (its payloads hash to the kept digests) and is skipped, a changed one is refused")
    func erasedSince() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let lines = try Self.source(directory).lines
        let all = lines.joined(separator: "\n") + "\n"
        for store in try ErasureAftermathTests.stores(directory) {
            defer { store.cleanup() }
            let cli = store.cli
            #expect(try cli.run("import", "-", input: all).status == 0, "\(store.name)")
            #expect(try cli.run("forget", "--by", "tester", "--user", "ada", "--reason", "GDPR #7").status == 0, "\(store.name)")
            var result = try cli.run("import", "-", input: all)
            #expect(result.status == 0 && result.output.hasPrefix("imported 0 events, skipped 6 already present"), "\(store.name): \(result)")
            #expect(!(try cli.run("export").output.contains("Hamilton")), "\(store.name): the erased payload came back")
            let changed = lines[0].replacingOccurrences(of: "Hamilton", with: "Hamiltoon")
            result = try cli.run("import", "-", input: changed + "\n")
            #expect(result.status == 65, "\(store.name): \(result)")
            #expect(result.errors.contains("already in the store with a different data") && result.errors.contains("the stored event was erased"), "\(store.name): \(result)")
            #expect(try cli.run("verify").status == 0, "\(store.name)")
        }
    }

    @Test("migrate compares too: a target whose last event differs from the source's, or that holds an event of its own (a later source event's id elsewhere), is refused naming what differs")
    func migrateCompares() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let (source, lines) = try Self.source(directory)
        for store in try ErasureAftermathTests.stores(directory) {
            defer { store.cleanup() }
            // The target holds the source's first three events, the third changed (and without its hash).
            let third = try Self.members(lines[2])
            let thirdHash = try #require(third["hash"] as? String)
            let changed = lines[2].replacingOccurrences(of: "jazz", with: "jaxx").replacingOccurrences(of: #""hash":"\#(thirdHash)","#, with: "")
            var result = try store.cli.run("import", "-", input: [lines[0], lines[1], changed].joined(separator: "\n") + "\n")
            #expect(result.status == 0, "\(store.name): \(result)")
            let before = try store.cli.run("export").output
            result = try CLI.bare("migrate", "--from", source.store, "--to", store.cli.store)
            #expect(result.status == 65, "\(store.name): \(result)")
            #expect(result.errors.hasPrefix("Error: source position 3: event \(try #require(third["id"] as? String)), the target's last event, differs from the source's in its data;"), "\(store.name): \(result)")
            #expect(try store.cli.run("export").output == before, "\(store.name): the target changed")
        }
        let other = try TemporaryDirectory(); defer { other.remove() }
        for store in try ErasureAftermathTests.stores(other) {
            defer { store.cleanup() }
            // The target holds the source's fourth event's id in another stream, then the first three events.
            let fourth = try #require(try Self.members(lines[3])["id"] as? String)
            let input = [Self.newLine(stream: "other", id: try #require(UUID(uuidString: fourth))), lines[0], lines[1], lines[2]]
            var result = try store.cli.run("import", "-", input: input.joined(separator: "\n") + "\n")
            #expect(result.status == 0, "\(store.name): \(result)")
            let before = try store.cli.run("export").output
            result = try CLI.bare("migrate", "--from", source.store, "--to", store.cli.store)
            #expect(result.status == 65, "\(store.name): \(result)")
            // An event of the target's own, anywhere in it, is found before anything is copied.
            #expect(result.errors.hasPrefix("Error: the target already holds events that are not a copy of this source: its event 1 (position 1, \(fourth)) is not the source's"), "\(store.name): \(result)")
            #expect(try store.cli.run("export").output == before, "\(store.name): the target changed")
        }
    }

    @Test("a log where an erased user carried on exports, imports, re-imports and migrates twice: tombstones chained anew, the events after them checked and kept")
    func erasedUserCarriedOn() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let (source, _) = try Self.source(directory)
        #expect(try source.run("forget", "--by", "tester", "--user", "ada", "--reason", "GDPR #8").status == 0)
        #expect(try source.run("search", "--user", "ada", "--keyword", "after", "--location", "Paris").status == 0)
        #expect(try source.run("favorite", "--user", "ada", "--listing", "L9", "--summary", "-", input: ErasureAftermathTests.summary).status == 0)
        let exported = try source.run("export").output
        for store in try ErasureAftermathTests.stores(directory) {
            defer { store.cleanup() }
            var result = try store.cli.run("import", "-", input: exported)
            #expect(result.status == 0 && result.output.hasPrefix("imported 10 events, skipped 0 already present"), "\(store.name): \(result)")
            result = try store.cli.run("import", "-", input: exported)
            #expect(result.status == 0 && result.output.hasPrefix("imported 0 events, skipped 10 already present"), "\(store.name): \(result)")
            #expect(try store.cli.run("verify").status == 0, "\(store.name)")
            #expect(try store.cli.run("favorites", "--user", "ada").output.contains("L9"), "\(store.name)")
            // A changed event after the tombstones is still caught by its hash.
            let changed = exported.replacingOccurrences(of: #""keyword":"after""#, with: #""keyword":"afterX""#)
            let fresh = try TemporaryDirectory(); defer { fresh.remove() }
            result = try CLI(store: "sqlite:\(fresh.path)/f.sqlite", directory: fresh.path).run("import", "-", input: changed)
            #expect(result.status == 65 && result.errors.contains("its hash ") && result.errors.contains("does not match its content"), "\(store.name): \(result)")
        }
        let other = try TemporaryDirectory(); defer { other.remove() }
        for store in try ErasureAftermathTests.stores(other) {
            defer { store.cleanup() }
            for run in 1...2 {
                let result = try CLI.bare("migrate", "--from", source.store, "--to", store.cli.store)
                #expect(result.status == 0 && result.output.contains("(copied \(run == 1 ? 10 : 0), already there \(run == 1 ? 0 : 10))"), "\(store.name) run \(run): \(result)")
            }
            #expect(try store.cli.run("verify").status == 0, "\(store.name)")
        }
    }
}
