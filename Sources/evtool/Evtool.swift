import Commands
import EventLog
import Foundation
import Projections
import StoreLocations

/// The `evtool` command line: finds the subcommand, parses its options, runs it, and turns
/// failures into `Error: …` lines and documented exit codes.
enum Evtool {
    /// Every subcommand, in the order `evtool --help` lists them.
    static let commands: [CommandSpec] = [
        DemoCommand.spec,
        InitCommand.spec,
        RecordCommands.search, RecordCommands.favorite, RecordCommands.unfavorite, RecordCommands.view,
        QueryCommands.favorites, QueryCommands.recent, QueryCommands.viewed, QueryCommands.details, QueryCommands.history,
        LogCommand.spec,
        OperateCommands.project, OperateCommands.rebuild, OperateCommands.stats,
        TransferCommands.export, TransferCommands.import, TransferCommands.migrate,
        AuditCommands.verify, AuditCommands.seal, AuditCommands.forget, ArchiveCommand.spec, RolesCommand.spec,
        KeysCommand.spec, ProofCommands.prove, ProofCommands.checkProof, ReportCommand.spec,
        AppendCommand.spec, ServeCommands.serve, ServeCommands.token,
        VersionCommand.spec, CompletionsCommand.spec, ManCommand.spec,
    ]

    static var overview: String {
        let width = TerminalWidth.current
        var text = TextWrap.lines("OVERVIEW: evtool records what the users of an event-discovery app do as an append-only log of domain events, and rebuilds every view they see from that log.",
                                  indent: 10, width: width).joined(separator: "\n")
        text += """


            USAGE: evtool <subcommand> [options]

            SUBCOMMANDS:

            """
        for command in commands { text += TextWrap.columns("  " + command.name, command.summary, column: 14, width: width) + "\n" }
        text += "\n" + TextWrap.lines("Run 'evtool help <subcommand>' or 'evtool <subcommand> -h' for a subcommand's options; 'evtool --version' (or -V) for the version.",
                                      indent: 0, width: width).joined(separator: "\n") + "\n"
        text += "\nSTORES:\n"
        text += TextWrap.lines("--store sqlite:PATH | PATH | postgres://USER@HOST:PORT/DB[?schema=NAME] (default: $EVTOOL_STORE, else ./evtool.sqlite)",
                               prefix: "  ", indent: 4, width: width).joined(separator: "\n") + "\n"
        text += TextWrap.lines("PostgreSQL also takes libpq's variables (PGHOST, PGPASSWORD, PGSSLMODE, …) and URL parameters; schema=NAME picks the schema that holds the store (default evtool).",
                               prefix: "  ", indent: 2, width: width).joined(separator: "\n") + "\n"
        text += TextWrap.lines("--read-store URL (reading commands, serve; default $EVTOOL_READ_STORE): a PostgreSQL hot standby of the store to read from, read-your-writes. Multi-host URLs: target_session_attrs=read-write for --store, prefer-standby for --read-store.",
                               prefix: "  ", indent: 2, width: width).joined(separator: "\n") + "\n\n"
        return text + ExitCode.documentation(width: width) + "\n"
    }

    /// The subcommand named `name`, or the usage error that names the nearest one.
    static func command(named name: String) throws -> CommandSpec {
        if let command = commands.first(where: { $0.name == name }) { return command }
        let suggestion = EditDistance.nearest(to: name, among: commands.map(\.name)).map { "; did you mean '\($0)'?" } ?? ""
        throw CLIError.usage("unknown subcommand '\(name)'\(suggestion)", nil)
    }

    /// Runs evtool with the process's arguments (``RawArguments/process()``): the usage error
    /// of one that is not UTF-8, or ``run(_:console:)-([String],_)``.
    static func run(_ arguments: Result<[String], CLIError>, console: inout Console) -> ExitCode {
        switch arguments {
        case .success(let arguments): return run(arguments, console: &console)
        case .failure(let error): return report(error, console: &console, json: false)
        }
    }

    /// Runs evtool with `arguments` (without the program name) and returns the exit code.
    /// Output is flushed before it returns; a write to standard output that failed ends
    /// the command with 74 (a closed pipe, `| head`, quietly with 0).
    static func run(_ arguments: [String], console: inout Console) -> ExitCode {
        do {
            try dispatch(arguments, console: &console)
            try console.flush()
            return .ok
        } catch {
            return report(error, console: &console, json: wantsJSON(arguments))
        }
    }

    /// Finds and runs the subcommand, or prints the help asked for.
    private static func dispatch(_ arguments: [String], console: inout Console) throws {
        guard let name = arguments.first else { return try console.output(overview) }
        if name == "--help" || name == "-h" || name == "help" && arguments.count == 1 {
            return try console.output(overview)
        }
        if name == "--version" || name == "-V" {
            guard arguments.count == 1 else { throw CLIError.usage("'\(name)' takes nothing after it (see 'evtool version --help')", nil) }
            return try console.output(EvtoolVersion.text)
        }
        if name == "help" {
            return try console.output(try command(named: arguments[1]).help)
        }
        if name.hasPrefix("-") {
            let suggestion = EditDistance.nearest(to: String(name.drop(while: { $0 == "-" })), among: ["help", "version"]).map { "; did you mean '--\($0)'?" } ?? ""
            throw CLIError.usage("unknown option '\(name)' (give a subcommand first)\(suggestion)", nil)
        }
        let command = try command(named: name)
        let parsed = try ParsedArguments(Array(arguments.dropFirst()), for: command)
        if parsed.flag("help") { return try console.output(command.help) }
        if parsed.flag(SharedOptions.quiet) { console.isQuiet = true }
        try command.run(parsed, &console)
    }

    /// The longest error line printed; longer messages keep their start and end.
    static let maximumErrorLength = 600

    /// A message as one bounded line, passwords masked (``Redaction``): control and invisible characters (line breaks, escapes
    /// that would drive a terminal, zero-width and bidirectional controls) are shown as `\n`,
    /// `\u{1B}`, `\u{202E}` … (``TerminalText/escaped(_:)``), and a message that quotes a huge
    /// value keeps its first 300 and last 200 characters, so the error stays readable.
    static func errorLine(_ message: String) -> String {
        let line = TerminalText.escaped(Redaction.maskingPasswords(in: message))
        guard line.count > maximumErrorLength else { return line }
        let omitted = line.count - 500
        return String(line.prefix(300)) + "…(\(omitted) characters left out)…" + String(line.suffix(200))
    }

    /// Prints a failure as `Error: …` (plus usage help for usage errors), or with `json` as
    /// one JSON object on standard error (``ErrorReport``), and returns its code.
    static func report(_ error: Error, console: inout Console, json: Bool = false) -> ExitCode {
        // The reader of the pipe is gone (`evtool log | head`): nothing is wrong here.
        if let error = error as? OutputError, error.isClosedPipe { return .ok }
        let report = ErrorReport(error)
        if json {
            console.message(report.json)
            return report.code
        }
        console.message("Error: " + errorLine(report.message))
        if report.code == .usage {
            if let command = report.command {
                console.message("Usage: \(command.synopsis)")
                console.message("See 'evtool \(command.name) --help'.")
            } else {
                console.message("See 'evtool --help'.")
            }
        }
        return report.code
    }

    /// Whether the command line asks for JSON output (`--json` before any `--`), which makes
    /// an error one JSON object too, even one found while parsing the rest.
    static func wantsJSON(_ arguments: [String]) -> Bool {
        arguments.prefix { $0 != "--" }.contains("--json")
    }
}
