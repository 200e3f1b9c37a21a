import Foundation
import TestSupport
import Testing

/// Import compares before it skips (issue 12, item 6): a line whose event id the store already
/// holds is skipped only when it is the stored event; a line that differs in data, metadata,
/// type, recording time, stream or version is refused with exit 65, one `Error:` line naming
/// the line and what differs, and the stored events stay as they were.
@Suite("evtool: import refuses a line whose event id is stored with other content")
struct ImportConflictTests {
    enum Kind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case sqlite, postgres
        var testDescription: String { self == .sqlite ? "SQLite" : "PostgreSQL" }
    }

    /// A fresh store of `kind` and how to drop it.
    static func store(_ kind: Kind, in directory: String, name: String) throws -> (cli: CLI, drop: () -> Void) {
        switch kind {
        case .sqlite:
            return (CLI(store: "sqlite:\(directory)/\(name).sqlite", directory: directory), {})
        case .postgres:
            let postgres = try TestStores.freshPostgresStore()
            return (CLI(store: postgres.url, directory: directory), postgres.drop)
        }
    }

    /// One way a line can differ from the stored event with its id: the field's name (and
    /// the words a message may use for it), and the edit to the exported line.
    struct Change: Sendable {
        var field: String
        var names: [String]
        var edit: @Sendable (String) -> String
    }

    static let changes: [Change] = [
        Change(field: "data", names: ["data"]) { $0.replacingOccurrences(of: #""data":{"n":2}"#, with: #""data":{"n":3}"#) },
        Change(field: "metadata", names: ["metadata"]) { $0.replacingOccurrences(of: #""metadata":{"by":"test"}"#, with: #""metadata":{"by":"forger"}"#) },
        Change(field: "type", names: ["type"]) { $0.replacingOccurrences(of: #""type":"Note""#, with: #""type":"Memo""#) },
        Change(field: "recordedAt", names: ["recordedAt", "recorded", "time"]) { $0.replacing(/"recordedAt":"\d{4}/, with: #""recordedAt":"2001"#) },
        // The id of version 2 of s1, claimed at version 2 of another stream.
        Change(field: "stream", names: ["stream", "version"]) { $0.replacingOccurrences(of: #""stream":"s1""#, with: #""stream":"s2""#) },
    ]

    /// Three events in two streams, exported from a source store; the target imported them.
    /// Returns the export's lines and the target.
    static func imported(_ kind: Kind, in directory: String) throws -> (lines: [String], target: CLI, drop: () -> Void) {
        let source = CLI(store: "sqlite:\(directory)/source.sqlite", directory: directory)
        for (stream, n) in [("s1", 1), ("s1", 2), ("s2", 1)] {
            let result = try source.run("append", "--stream", stream, "--type", "Note", "--data", #"{"n":\#(n)}"#, "--metadata", #"{"by":"test"}"#)
            try #require(result.status == 0, "\(result)")
        }
        let exported = try source.run("export")
        try #require(exported.status == 0, "\(exported)")
        let lines = exported.output.split(separator: "\n").map(String.init)
        try #require(lines.count == 3 && lines[1].contains(#""stream":"s1","version":2,"#) && lines[1].contains(#""data":{"n":2}"#), "\(lines)")
        let (target, drop) = try store(kind, in: directory, name: "target")
        let first = try target.run("import", "-", input: exported.output)
        try #require(first.status == 0 && first.output.hasPrefix("imported 3 events, skipped 0 already present"), "\(first)")
        return (lines, target, drop)
    }

    /// Whether `message` names one of `names` as a word of its own ("data" is not named by
    /// "metadata"), leaving aside where it says the stored event is ("stream 's1'").
    static func names(_ message: String, any names: [String]) -> Bool {
        let words = Set(message.replacing(/stream '[^']*'/, with: "").split { !$0.isLetter }.map(String.init))
        return names.contains { words.contains($0) }
    }

    /// The line without its `hash` member, so that only its content can differ from the store.
    static func withoutHash(_ line: String) -> String {
        line.replacing(/"hash":"[0-9a-f]*",/, with: "")
    }

    @Test("the same lines again, with or without their hashes, are skipped", arguments: Kind.allCases)
    func identicalLinesAreSkipped(kind: Kind) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let (lines, target, drop) = try Self.imported(kind, in: directory.path)
        defer { drop() }
        for file in [lines, lines.map(Self.withoutHash)] {
            let result = try target.run("import", "-", input: file.joined(separator: "\n") + "\n")
            #expect(result.status == 0 && result.output.hasPrefix("imported 0 events, skipped 3 already present"), "\(result)")
        }
    }

    @Test("a line with a stored id and other data, metadata, type, time or stream: exit 65 naming the line and the field; the store unchanged",
          arguments: Kind.allCases)
    func differingLineIsRefused(kind: Kind) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let (lines, target, drop) = try Self.imported(kind, in: directory.path)
        defer { drop() }
        let before = try target.run("export")
        try #require(before.status == 0)
        for change in Self.changes {
            let edited = change.edit(Self.withoutHash(lines[1]))
            try #require(edited != Self.withoutHash(lines[1]), "\(change.field): the edit changed nothing in \(lines[1])")
            // A new event after the conflicting line: nothing from that line on is imported.
            let after = #"{"stream":"after-\#(change.field)","version":1,"id":"\#(UUID().uuidString.lowercased())","type":"Note","recordedAt":"2026-01-01T00:00:00.000000Z","data":{},"metadata":{}}"#
            let file = [lines[0], edited, lines[2], after].joined(separator: "\n") + "\n"
            let result = try target.run("import", "-", input: file)
            let context = "\(kind.testDescription), \(change.field) differs: \(result)"
            #expect(!result.wasSignaled && result.status == 65, "\(context)")
            let errorLines = result.errors.split(separator: "\n")
            #expect(errorLines.count == 1 && result.errors.hasPrefix("Error: line 2"), "\(context)")
            #expect(Self.names(result.errors, any: change.names), "\(context): the message does not name \(change.field)")
            #expect(!result.output.contains("skipped"), "\(context)")
            #expect(try target.run("export").output == before.output, "\(context): the store changed")
        }
    }

    @Test("a changed line that kept its exported hash is refused too, naming the line", arguments: Kind.allCases)
    func changedLineWithItsHashIsRefused(kind: Kind) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let (lines, target, drop) = try Self.imported(kind, in: directory.path)
        defer { drop() }
        let before = try target.run("export")
        let edited = lines[1].replacingOccurrences(of: #""data":{"n":2}"#, with: #""data":{"n":3}"#)
        try #require(edited != lines[1])
        let result = try target.run("import", "-", input: [lines[0], edited, lines[2]].joined(separator: "\n") + "\n")
        #expect(!result.wasSignaled && result.status == 65 && result.errors.hasPrefix("Error: line 2"), "\(result)")
        #expect(result.errors.split(separator: "\n").count == 1, "\(result)")
        #expect(try target.run("export").output == before.output, "the store changed")
    }

    @Test("two imports of one export at once: both exit 0 (a raced batch is compared again), every event once, in the export's order", arguments: Kind.allCases)
    func twoImportsAtOnce(kind: Kind) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let source = CLI(store: "sqlite:\(directory.path)/source.sqlite", directory: directory.path)
        try #require(try source.run("demo", "--users", "40", "--actions", "1200", "--quiet").status == 0)
        let export = try source.run("export")
        try #require(export.status == 0)
        let file = try source.file("export.jsonl", export.output)
        let target = try Self.store(kind, in: directory.path, name: "target"); defer { target.drop() }
        try #require(try target.cli.run("init").status == 0)
        for round in 1...3 {
            let first = try Processes.start(Processes.evtool, ["import", file, "--batch", "25", "--store", target.cli.store])
            let second = try Processes.start(Processes.evtool, ["import", file, "--batch", "25", "--store", target.cli.store])
            let (one, two) = (try first.finish(), try second.finish())
            #expect(one.status == 0 && two.status == 0, "round \(round): \(one) \(two)")
        }
        // The same events in the same order, each once; PostgreSQL's positions may have gaps
        // where a raced batch was rolled back (a sequence does not give its numbers back).
        func withoutPositions(_ text: String) -> [String] {
            text.split(separator: "\n").map { String($0.replacing(/^\{"position":[0-9]+,/, with: "{")) }
        }
        let copied = try target.cli.run("export")
        #expect(withoutPositions(copied.output) == withoutPositions(export.output), "the target holds the export, each event once")
        #expect(try target.cli.run("verify").status == 0)
    }

    @Test("migrate into a store holding a copy of part of the source and an event of its own (not its last) is refused before anything is copied", arguments: Kind.allCases)
    func migrateRefusesAForeignEventAnywhere(kind: Kind) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let source = CLI(store: "sqlite:\(directory.path)/source.sqlite", directory: directory.path)
        try #require(try source.run("demo", "--users", "20", "--actions", "300", "--quiet").status == 0)
        let lines = try source.run("export").output.split(separator: "\n")
        let part = try source.file("part.jsonl", lines.prefix(100).joined(separator: "\n") + "\n")
        let target = try Self.store(kind, in: directory.path, name: "target"); defer { target.drop() }
        try #require(try target.cli.run("search", "--user", "zed", "--keyword", "jazz", "--location", "LA").status == 0)
        try #require(try target.cli.run("import", part).status == 0)
        let before = try target.cli.run("export").output
        let migrated = try Processes.run(Processes.evtool, ["migrate", "--from", source.store, "--to", target.cli.store])
        #expect(migrated.status == 65 && migrated.errors.contains("is not the source's") && migrated.errors.contains("nothing was copied"), "\(migrated)")
        #expect(try target.cli.run("export").output == before, "the target is as it was")
    }

    @Test("a stream that holds another event at a line's version is refused as invalid data (65), not as a conflict to retry", arguments: Kind.allCases)
    func anotherEventAtTheVersionIsInvalidData(kind: Kind) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let source = CLI(store: "sqlite:\(directory.path)/source.sqlite", directory: directory.path)
        try #require(try source.run("demo", "--users", "5", "--actions", "30", "--quiet").status == 0)
        let export = try source.run("export").output
        let first = try #require(try JSONSerialization.jsonObject(with: Data(export.prefix { $0 != "\n" }.utf8)) as? [String: Any])
        let stream = try #require(first["stream"] as? String)
        let target = try Self.store(kind, in: directory.path, name: "target"); defer { target.drop() }
        try #require(try target.cli.run("search", "--user", stream, "--keyword", "jazz", "--location", "LA").status == 0)
        let imported = try target.cli.run("import", try source.file("export.jsonl", export))
        #expect(imported.status == 65 && imported.errors.contains("line 1: stream '\(stream)' already holds a different event at version 1"), "\(imported)")
    }
}
