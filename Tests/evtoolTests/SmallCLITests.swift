import Foundation
import TestSupport
import Testing

/// The small command-line items of issue 18: `--as-of` past the head, times with a space,
/// `--from` exclusive, singular counts, and who `forget` records.
@Suite("evtool: as-of past the head, times, counts, forget's operator")
struct SmallCLITests {
    static func store(_ directory: TemporaryDirectory) throws -> CLI {
        let cli = CLI(store: directory.path + "/store.sqlite", directory: directory.path)
        let favorite = try cli.run("favorite", "--user", "ada", "--listing", "L1", "--name", "Hamilton", "--venue", "Pantages",
                                   "--date", "2026-12-05 19:30:00", "--category", "Arts & Theatre", "--occurred-at", "2026-03-01 10:00:00Z")
        #expect(favorite.status == 0, "\(favorite)")
        return cli
    }

    @Test("--as-of beyond the head is an error naming the head (65), on every command that takes it")
    func asOfBeyondTheHead() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cli = try Self.store(directory)
        let commands: [[String]] = [["favorites", "--user", "ada"], ["recent", "--user", "ada"], ["viewed", "--user", "ada"],
                                    ["details", "--listing", "L1"], ["history", "--user", "ada"], ["report", "--user", "ada"]]
        for command in commands {
            let beyond = try Processes.run(Processes.evtool, command + ["--as-of", "5", "--store", cli.store])
            #expect(beyond.status == 65, "\(command): \(beyond)")
            #expect(beyond.errors == "Error: as-of position 5 is beyond the head of the log (position 1); give a position up to 1, or no as-of for the current view\n", "\(command)")
            #expect(beyond.output.isEmpty)
            let future = try Processes.run(Processes.evtool, command + ["--as-of", "2999-01-01", "--store", cli.store])
            #expect(future.status == 65, "\(command): \(future)")
            #expect(future.errors == "Error: as-of time 2999-01-01T00:00:00.000000Z is in the future, beyond the head of the log (position 1); give a time up to now, or no as-of for the current view\n", "\(command)")
            let head = try Processes.run(Processes.evtool, command + ["--as-of", "1", "--store", cli.store])
            #expect(head.status == 0, "\(command): \(head)")
        }
        #expect(try cli.run("favorites", "--user", "ada", "--as-of", "1").output.contains("Hamilton"))
    }

    @Test("a time written with a space instead of T is accepted wherever a TIME is taken")
    func spaceInTimes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cli = try Self.store(directory)
        // --occurred-at (above) was written with a space: it is kept as that instant.
        let log = try cli.run("log", "--json")
        #expect(log.output.contains(#""occurredAt":"2026-03-01T10:00:00.000000Z""#), "\(log.output)")
        let since = try cli.run("history", "--user", "ada", "--since", "2000-01-01 00:00:00Z")
        #expect(since.status == 0 && since.output.contains("Favorited"), "\(since)")
        let until = try cli.run("history", "--user", "ada", "--until", "2000-01-01 00:00:00+01:00")
        #expect(until.status == 0 && until.output == "No history for user ada\n", "\(until)")
        let asOf = try cli.run("favorites", "--user", "ada", "--as-of", "2000-01-01 00:00:00.5Z")
        #expect(asOf.status == 0 && asOf.output == "No favorites\n", "\(asOf)")
        let lower = try cli.run("history", "--user", "ada", "--since", "2000-01-01t00:00:00Z")
        #expect(lower.status == 0, "\(lower)")
        let bad = try cli.run("history", "--user", "ada", "--since", "2000-01-01  00:00:00Z")
        #expect(bad.status == 64)
    }

    @Test("--from says in help that it is exclusive")
    func fromIsExclusive() throws {
        for command in ["export", "log"] {
            let help = try CLI.bare(command, "--help", environment: ["COLUMNS": "300"])
            #expect(help.output.contains("  --from POSITION           Start after this position, exclusive: "), "\(command): \(help.output)")
        }
    }

    @Test("counts of one are singular: exported 1 event, imported 1 event, OK: 1 event in 1 stream, 1 seal")
    func singular() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cli = try Self.store(directory)
        let export = try cli.run("export")
        #expect(export.errors == "exported 1 event\n")
        let file = try cli.file("one.jsonl", export.output)
        let imported = try CLI.bare("import", file, "--store", directory.path + "/other.sqlite")
        #expect(imported.output == "imported 1 event, skipped 0 already present, into sqlite:\(directory.path)/other.sqlite\n", "\(imported)")
        #expect(try cli.run("verify").output == "OK: 1 event in 1 stream, 0 seals verified\n")
        let seal = try cli.run("seal")
        #expect(seal.output.hasPrefix("sealed: seal 1 at position 1 (1 event in 1 stream) "), "\(seal)")
        #expect(try cli.run("verify").output == "OK: 1 event in 1 stream, 1 seal verified\n")
        #expect(try cli.run("export", "--from", "1").errors == "exported 0 events\n")
        let migrated = try CLI.bare("migrate", "--quiet", "--from", cli.store, "--to", directory.path + "/migrated.sqlite")
        #expect(migrated.output.hasPrefix("migrated 1 event from "), "\(migrated)")
        let demo = try CLI.bare("demo", "--users", "1", "--actions", "1", "--days", "1", "--quiet", "--store", directory.path + "/demo.sqlite")
        #expect(demo.output.hasPrefix("recorded 1 event for 1 user, occurred over the last 1 day, in "), "\(demo)")
    }

    @Test("forget records the operator from --by, else $USER, else refuses (never 'unknown')")
    func forgetOperator() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for (by, user, recorded) in [("alice", "root", "alice"), (nil, "bob", "bob")] as [(String?, String, String)] {
            let cli = try Self.store(try TemporaryDirectory())
            defer { try? FileManager.default.removeItem(atPath: cli.directory) }
            let arguments = ["forget", "--user", "ada", "--reason", "GDPR #1", "--store", cli.store] + (by.map { ["--by", $0] } ?? [])
            let result = try Processes.run(Processes.evtool, arguments, environment: ["USER": user])
            #expect(result.status == 0, "\(result)")
            let log = try cli.run("log", "--json").output
            #expect(log.contains(#""type":"UserErased""#) && log.contains(#""reason":"GDPR #1","by":"\#(recorded)"}"#), "\(log)")
            #expect(!log.contains("unknown"))
        }
        let cli = try Self.store(directory)
        for environment in [["USER": ""], ["USER": "  "]] {
            let refused = try Processes.run(Processes.evtool, ["forget", "--user", "ada", "--reason", "GDPR #1", "--store", cli.store], environment: environment)
            #expect(refused.status == 64, "\(refused)")
            #expect(refused.errors.hasPrefix("Error: say who erases with '--by OPERATOR' ($USER is not set)\n"))
        }
        let blank = try cli.run("forget", "--user", "ada", "--reason", "GDPR #1", "--by", " ")
        #expect(blank.status == 64 && blank.errors.hasPrefix("Error: '--by' must name who erases\n"))
        // Nothing was erased by the refusals.
        #expect(try cli.run("favorites", "--user", "ada").output.contains("Hamilton"))
    }
}
