import Commands
import EventLog
import Foundation
import Projections

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
        AuditCommands.verify, AuditCommands.seal, AuditCommands.forget, RolesCommand.spec,
        ReportCommand.spec,
        AppendCommand.spec,
    ]

    static var overview: String {
        var text = """
            OVERVIEW: evtool records what the users of an event-discovery app do as an append-only
            log of domain events, and rebuilds every view they see from that log.

            USAGE: evtool <subcommand> [options]

            SUBCOMMANDS:

            """
        for command in commands { text += "  " + command.name.padded(to: 12) + command.summary + "\n" }
        text += """

            Run 'evtool help <subcommand>' or 'evtool <subcommand> --help' for a subcommand's options.

            STORES:
              --store sqlite:PATH | PATH | postgres://USER@HOST:PORT/DB[?schema=NAME]   (default: $EVTOOL_STORE, else ./evtool.sqlite)
              PostgreSQL also takes libpq's variables (PGHOST, PGPASSWORD, PGSSLMODE, …) and URL parameters;
              schema=NAME picks the schema that holds the store (default evtool).

            """
        return text + ExitCode.documentation + "\n"
    }

    /// Runs evtool with `arguments` (without the program name) and returns the exit code.
    static func run(_ arguments: [String], console: inout Console) -> ExitCode {
        defer { console.flush() }
        guard let name = arguments.first else {
            console.output(overview)
            return .ok
        }
        if name == "--help" || name == "-h" || name == "help" && arguments.count == 1 {
            console.output(overview)
            return .ok
        }
        if name == "help" {
            guard let command = commands.first(where: { $0.name == arguments[1] }) else {
                return report(CLIError.usage("unknown subcommand '\(arguments[1])'", nil), console: &console)
            }
            console.output(command.help)
            return .ok
        }
        guard let command = commands.first(where: { $0.name == name }) else {
            return report(CLIError.usage("unknown subcommand '\(name)'", nil), console: &console)
        }
        do {
            let parsed = try ParsedArguments(Array(arguments.dropFirst()), for: command)
            if parsed.flag("help") {
                console.output(command.help)
                return .ok
            }
            try command.run(parsed, &console)
            return .ok
        } catch {
            return report(error, console: &console)
        }
    }

    /// The longest error line printed; longer messages keep their start and end.
    static let maximumErrorLength = 600

    /// A message as one bounded line: control characters (line breaks, escapes that would
    /// drive a terminal) are shown as `\n`, `\u{1B}` …, and a message that quotes a huge
    /// value keeps its first 300 and last 200 characters, so the error stays readable.
    static func errorLine(_ message: String) -> String {
        var line = ""
        for scalar in message.unicodeScalars {
            switch scalar {
            case "\n": line += "\\n"
            case "\r": line += "\\r"
            case "\t": line += "\\t"
            case _ where scalar.properties.generalCategory == .control:
                line += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: line.unicodeScalars.append(scalar)
            }
        }
        guard line.count > maximumErrorLength else { return line }
        let omitted = line.count - 500
        return String(line.prefix(300)) + "…(\(omitted) characters left out)…" + String(line.suffix(200))
    }

    /// Prints a failure as `Error: …` (plus usage help for usage errors) and returns its code.
    static func report(_ error: Error, console: inout Console) -> ExitCode {
        switch error {
        case let error as CLIError:
            console.message("Error: " + errorLine(error.message))
            if error.code == .usage {
                if let command = error.command {
                    console.message("Usage: evtool \(command.name) \(command.usage)")
                    console.message("See 'evtool \(command.name) --help'.")
                } else {
                    console.message("See 'evtool --help'.")
                }
            }
            return error.code
        case let error as EventStoreError:
            console.message("Error: " + errorLine(error.description))
            return ExitCode(error)
        case let error as CommandError:
            console.message("Error: " + errorLine(error.description))
            if case .conflict = error { return .conflict }
            return .invalidData
        case let error as DomainEventError:
            console.message("Error: " + errorLine("\(error)"))
            return .invalidData
        case let error as ProjectionStoreError:
            console.message("Error: " + errorLine(error.description))
            return .conflict
        default:
            console.message("Error: " + errorLine(error.localizedDescription))
            return .failure
        }
    }
}
