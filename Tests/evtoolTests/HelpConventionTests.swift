import Foundation
import TestSupport
import Testing

/// `-h`, help folded to the terminal's width, "did you mean", and option-like values.
@Suite("evtool: help and option conventions")
struct HelpConventionTests {
    /// Every subcommand, as `evtool --help` lists them.
    static func subcommands() throws -> [String] {
        let overview = try CLI.bare("--help").output
        guard let start = overview.range(of: "SUBCOMMANDS:\n"), let end = overview.range(of: "\n\nRun 'evtool help") else { return [] }
        return overview[start.upperBound..<end.lowerBound].split(separator: "\n")
            .filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }
            .compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    @Test("-h prints the same help as --help for every subcommand, and for evtool itself")
    func shortHelpEverywhere() throws {
        let names = try Self.subcommands()
        #expect(names.count >= 30, "\(names)")
        #expect(names.contains("favorites") && names.contains("version") && names.contains("completions") && names.contains("man"))
        for name in names {
            let short = try CLI.bare(name, "-h")
            let long = try CLI.bare(name, "--help")
            #expect(short.status == 0 && long.status == 0, "\(name): \(short)")
            #expect(short.output == long.output, "\(name)")
            #expect(short.output.contains("\n  -h, --help "), "\(name)")
        }
        #expect(try CLI.bare("-h").output == (try CLI.bare("--help")).output)
    }

    @Test("help is folded to $COLUMNS, and to 80 columns when not a terminal")
    func foldedToTheWidth() throws {
        for (columns, width) in [("60", 60), ("", 80), ("100", 100)] {
            for name in ["search", "verify", "forget", "serve"] {
                let help = try CLI.bare("help", name, environment: ["COLUMNS": columns])
                #expect(help.status == 0)
                let text = help.output.components(separatedBy: "\nEXAMPLES:\n")[0]
                for line in text.split(separator: "\n") {
                    // A single word longer than the width keeps its line.
                    #expect(line.count <= width || !line.trimmingCharacters(in: .whitespaces).contains(" "), "\(name) at \(width): '\(line)'")
                }
            }
            let overview = try CLI.bare("--help", environment: ["COLUMNS": columns]).output
            for line in overview.split(separator: "\n") { #expect(line.count <= width, "overview at \(width): '\(line)'") }
        }
        // Folded, not cut: the same words at every width.
        let narrow = try CLI.bare("help", "verify", environment: ["COLUMNS": "60"]).output
        let wide = try CLI.bare("help", "verify", environment: ["COLUMNS": "200"]).output
        #expect(narrow != wide)
        #expect(narrow.split(whereSeparator: \.isWhitespace) == wide.split(whereSeparator: \.isWhitespace))
    }

    @Test("a mistyped subcommand or option gets 'did you mean'")
    func didYouMean() throws {
        let command = try CLI.bare("favorits", "--user", "ada")
        #expect(command.status == 64)
        #expect(command.errors == "Error: unknown subcommand 'favorits'; did you mean 'favorites'?\nSee 'evtool --help'.\n")
        let help = try CLI.bare("help", "histroy")
        #expect(help.status == 64)
        #expect(help.errors.hasPrefix("Error: unknown subcommand 'histroy'; did you mean 'history'?\n"))
        let option = try CLI.bare("export", "--fromm", "3")
        #expect(option.status == 64)
        #expect(option.errors.hasPrefix("Error: unknown option '--fromm'; did you mean '--from'?\nUsage: evtool export "))
        let single = try CLI.bare("favorites", "-user", "ada")
        #expect(single.errors.hasPrefix("Error: unknown option '-user'; did you mean '--user'?\n"))
        let version = try CLI.bare("--verison")
        #expect(version.errors.hasPrefix("Error: unknown option '--verison' (give a subcommand first); did you mean '--version'?\n"))
        // Nothing near: no guess.
        let far = try CLI.bare("frobnicate")
        #expect(far.errors == "Error: unknown subcommand 'frobnicate'\nSee 'evtool --help'.\n")
    }

    @Test("a value that looks like an option is refused unless joined with '='")
    func optionLikeValues() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cli = CLI(store: directory.path + "/store.sqlite", directory: directory.path)
        let refused = try cli.run("favorite", "--user", "--listing", "L1", "--name", "N", "--venue", "V", "--date", "D", "--category", "C")
        #expect(refused.status == 64)
        #expect(refused.errors.hasPrefix("Error: option '--user' needs a value (ID), and '--listing' looks like an option; if it is the value, write '--user=--listing'\n"))
        let short = try cli.run("history", "--user", "-x")
        #expect(short.status == 64)
        #expect(short.errors.hasPrefix("Error: option '--user' needs a value (ID), and '-x' looks like an option; if it is the value, write '--user=-x'\n"))
        #expect(!FileManager.default.fileExists(atPath: cli.store), "a refused command line creates no store")

        // Joined, the same text is the value (the identity rule then judges it as a user id).
        let joined = try cli.run("search", "--user=-x", "--keyword", "jazz", "--here", "1,2")
        #expect(!joined.errors.contains("looks like an option"), "\(joined)")
        // A negative number is a value, not an option.
        let south = try cli.run("search", "--user", "ada", "--keyword", "surf", "--here", "-33.89,151.27")
        #expect(south.status == 0, "\(south)")
        // '-' (standard input) is a value.
        let stdin = try cli.run("view", "--user", "ada", "--listing", "L7", "--details", "-", input: Samples.details)
        #expect(stdin.status == 0, "\(stdin)")
    }
}
