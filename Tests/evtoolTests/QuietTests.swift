import Foundation
import TestSupport
import Testing

/// `--quiet` on the long commands, and no terminal escape codes for `TERM=dumb` or a non-terminal.
@Suite("evtool: --quiet and TERM=dumb")
struct QuietTests {
    static func storeWithEvents(_ directory: TemporaryDirectory) throws -> CLI {
        let cli = CLI(store: directory.path + "/store.sqlite", directory: directory.path)
        let demo = try cli.run("demo", "--users", "5", "--actions", "40", "--quiet")
        #expect(demo.status == 0, "\(demo)")
        #expect(demo.errors.isEmpty, "\(demo.errors)")
        return cli
    }

    @Test("--quiet leaves only the result: rebuild, import, migrate, verify, project, export, seal, demo")
    func quiet() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cli = try Self.storeWithEvents(directory)

        // Without --quiet these report on standard error (progress, steps, counts) …
        let loudRebuild = try cli.run("rebuild")
        #expect(loudRebuild.status == 0 && loudRebuild.errors.hasPrefix("rebuild: 100% "), "\(loudRebuild)")
        let target = directory.path + "/copy.sqlite"
        let loudMigrate = try CLI.bare("migrate", "--from", cli.store, "--to", target)
        #expect(loudMigrate.status == 0 && loudMigrate.errors.contains("verifying: reading both logs in order"), "\(loudMigrate)")
        let loudExport = try cli.run("export")
        #expect(loudExport.errors.hasPrefix("exported "))

        // … and with it (or -q) nothing, while the result is the same.
        let quietRebuild = try cli.run("rebuild", "--quiet")
        #expect(quietRebuild.status == 0 && quietRebuild.errors.isEmpty, "\(quietRebuild)")
        #expect(quietRebuild.output.hasPrefix("rebuilt "))
        let quietMigrate = try CLI.bare("migrate", "-q", "--from", cli.store, "--to", directory.path + "/copy-2.sqlite")
        #expect(quietMigrate.status == 0 && quietMigrate.errors.isEmpty, "\(quietMigrate)")
        #expect(quietMigrate.output.hasPrefix("migrated "))
        let quietExport = try cli.run("export", "--quiet")
        #expect(quietExport.errors.isEmpty && quietExport.output == loudExport.output)
        let importFile = try cli.file("export.jsonl", quietExport.output)
        let quietImport = try CLI.bare("import", importFile, "--quiet", "--store", directory.path + "/imported.sqlite")
        #expect(quietImport.status == 0 && quietImport.errors.isEmpty && quietImport.output.hasPrefix("imported "), "\(quietImport)")
        for command in [["verify", "-q"], ["project", "--quiet"], ["seal", "--quiet"]] {
            let result = try Processes.run(Processes.evtool, command + ["--store", cli.store])
            #expect(result.status == 0 && result.errors.isEmpty && !result.output.isEmpty, "\(command): \(result)")
        }
        // An error still shows.
        let failing = try CLI.bare("rebuild", "--quiet", "--store", directory.path + "/missing.sqlite")
        #expect(failing.status == 69 && failing.errors.hasPrefix("Error: "))
    }

    /// Runs `command` under a pseudo-terminal (`script`), standard error included, with `TERM`.
    static func onTerminal(_ command: String, term: String) throws -> String {
        let result = try Processes.run("/usr/bin/script", ["-q", "-e", "-c", command, "/dev/null"], environment: ["TERM": term])
        #expect(result.status == 0, "\(result)")
        return result.output + result.errors
    }

    @Test("on a terminal the progress bar uses escape codes; with TERM=dumb and off a terminal, none")
    func dumbTerminal() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cli = try Self.storeWithEvents(directory)
        let command = "'\(Processes.evtool)' rebuild --store '\(cli.store)'"
        let terminal = try Self.onTerminal(command, term: "xterm")
        #expect(terminal.contains("\u{1B}["), "\(terminal.debugDescription)")
        let dumb = try Self.onTerminal(command, term: "dumb")
        #expect(!dumb.contains("\u{1B}"), "\(dumb.debugDescription)")
        #expect(dumb.contains("rebuild: 100% ") && dumb.contains("rebuilt "), "\(dumb.debugDescription)")
        let piped = try cli.run("rebuild")
        #expect(!(piped.output + piped.errors).contains("\u{1B}"))
    }
}
