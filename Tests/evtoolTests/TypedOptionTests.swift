import Foundation
import TestSupport
import Testing

/// Typed options: each option's parser runs when the command line is parsed, so a malformed
/// value is refused before the command touches a store, with the option's own message.
@Suite("evtool: typed options")
struct TypedOptionTests {
    @Test("a malformed value is refused at parse time (exit 64), before the store is opened")
    func refusedBeforeRunning() throws {
        // The store's folder does not exist: opening it would be exit 69, not 64.
        let store = "/nonexistent-\(UUID().uuidString)/evtool.sqlite"
        let cases: [([String], String)] = [
            (["export", "--format", "xml"], "Error: '--format' must be jsonl or cloudevents, not 'xml'\n"),
            (["log", "--limit", "0"], "Error: option '--limit' must be a whole number from 1 to 9223372036854775807, not '0'\n"),
            (["demo", "--users", "many"], "Error: option '--users' must be a whole number from 1 to 1000000, not 'many'\n"),
            (["history", "--user", "ada", "--since", "soon"], "Error: '--since' must be a time like 2026-03-01 or 2026-03-01T10:00:00Z, not 'soon'\n"),
            (["favorites", "--user", "ada", "--as-of", "-3"], "Error: '--as-of' position must be 0 or more, not '-3'\n"),
            (["append", "--stream", "s", "--type", "T", "--data", "{}", "--expected-version", "maybe"],
             "Error: '--expected-version' must be any, no-stream, exists or a version number ≥ 0, not 'maybe'\n"),
            (["serve", "--no-auth", "--group-commit", "sometimes"], "Error: '--group-commit' must be on or off, not 'sometimes'\n"),
            (["import", "-", "--batch", "0"], "Error: option '--batch' must be a whole number from 1 to 100000, not '0'\n"),
        ]
        for (arguments, error) in cases {
            let result = try Processes.run(Processes.evtool, arguments + ["--store", store])
            #expect(result.status == 64, "\(arguments): \(result)")
            #expect(result.errors.hasPrefix(error), "\(arguments): \(result.errors)")
            #expect(result.errors.contains("\nUsage: evtool \(arguments[0]) "), "\(arguments): \(result.errors)")
            #expect(result.output.isEmpty)
        }
        // The store option is typed too: a malformed location is a usage error of the command.
        let badStore = try CLI.bare("log", "--store", "mysql://db/x")
        #expect(badStore.status == 64)
        #expect(badStore.errors.hasPrefix("Error: unknown store URL scheme in 'mysql://…'; use sqlite:PATH or postgres://\nUsage: evtool log "))
        let badMigrate = try CLI.bare("migrate", "--from", "sqlite:", "--to", "x.sqlite")
        #expect(badMigrate.status == 64)
        #expect(badMigrate.errors.hasPrefix("Error: store 'sqlite:' needs a file path"))
    }

    @Test("a value the option cannot read is a usage error (64), at parse time, as for every option")
    func unreadableValueIsUsage() throws {
        let store = "/nonexistent-\(UUID().uuidString)/evtool.sqlite"
        let result = try CLI.bare("search", "--user", "ada", "--keyword", "jazz", "--here", "1,2", "--category", "Opera", "--store", store)
        #expect(result.status == 64)
        #expect(result.errors.hasPrefix("Error: category must be one of All, Music, Sports, Arts & Theatre, Film, Miscellaneous, not 'Opera'\n"))
    }

    @Test("--help wins over a malformed value, and every declared option is in the help")
    func helpComesFromTheDeclarations() throws {
        let help = try CLI.bare("export", "--format", "xml", "--help")
        #expect(help.status == 0)
        for label in ["--format F", "--from POSITION", "--to POSITION", "-q, --quiet", "--store STORE", "-h, --help"] {
            #expect(help.output.contains("\n  \(label)"), "\(label)")
        }
    }
}
