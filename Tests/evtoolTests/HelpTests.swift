import Foundation
import TestSupport
import Testing

@Suite("evtool: help and usage")
struct HelpTests {
    @Test("--help, help CMD and CMD --help print the same help to stdout and exit 0")
    func helpIsTheSameEverywhere() throws {
        for command in ["search", "favorite", "favorites", "history", "export", "import", "migrate", "rebuild", "stats", "demo", "log"] {
            let viaHelp = try CLI.bare("help", command)
            let viaFlag = try CLI.bare(command, "--help")
            #expect(viaHelp.status == 0 && viaFlag.status == 0)
            #expect(viaHelp.output == viaFlag.output)
            #expect(viaHelp.output.hasPrefix("OVERVIEW: "))
            #expect(viaHelp.output.contains("\nUSAGE: evtool \(command) "))
            #expect(viaHelp.output.contains("\nOPTIONS:\n"))
            #expect(viaHelp.output.contains("\nEXAMPLES:\n"))
            #expect(viaHelp.errors.isEmpty)
        }
        let overview = try CLI.bare("--help")
        #expect(overview.status == 0)
        #expect(overview.output.contains("SUBCOMMANDS:"))
        #expect(overview.output.contains("65  invalid data"))
        #expect(overview.output == (try CLI.bare()).output)
        #expect(overview.output == (try CLI.bare("help")).output)
    }

    @Test("usage errors: Error line, usage line, pointer to help, exit 64, nothing on stdout")
    func usageErrors() throws {
        let unknown = try CLI.bare("frobnicate")
        #expect(unknown.status == 64)
        #expect(unknown.errors == "Error: unknown subcommand 'frobnicate'\nSee 'evtool --help'.\n")
        #expect(unknown.output.isEmpty)

        let option = try CLI.bare("favorites", "--usr", "ada")
        #expect(option.status == 64)
        #expect(option.errors == "Error: unknown option '--usr'; did you mean '--user'?\nUsage: evtool favorites --user U [--as-of POSITION|TIME] [--json] [--store STORE] [--read-store URL]\nSee 'evtool favorites --help'.\n")

        let missing = try CLI.bare("unfavorite", "--user", "ada")
        #expect(missing.status == 64)
        #expect(missing.errors.hasPrefix("Error: missing option '--listing'\n"))

        let noValue = try CLI.bare("history", "--user")
        #expect(noValue.status == 64)
        #expect(noValue.errors.hasPrefix("Error: option '--user' needs a value (ID)\n"))

        let badStore = try CLI.bare("stats", "--store", "mysql://db/x")
        #expect(badStore.status == 64)
        #expect(badStore.errors.hasPrefix("Error: unknown store URL scheme in 'mysql://…'"))

        let badTime = try CLI.bare("history", "--user", "ada", "--since", "yesterday-ish")
        #expect(badTime.status == 64)
        #expect(badTime.errors.hasPrefix("Error: '--since' must be a time like 2026-03-01 or 2026-03-01T10:00:00Z, not 'yesterday-ish'\n"))
    }
}
