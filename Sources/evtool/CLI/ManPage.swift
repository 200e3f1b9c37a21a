import Foundation

/// evtool's man page (section 1) in roff, written from the commands' declarations: every
/// subcommand with its usage, description, arguments, options and examples, then the stores,
/// the environment and the exit codes.
enum ManPage {
    /// `text` safe in roff: backslashes as `\e`, dashes as `\-`, and a line that would start
    /// with `.` or `'` (a request) guarded with `\&`.
    static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "\\": result += "\\e"
            case "-": result += "\\-"
            default: result.append(character)
            }
        }
        if result.hasPrefix(".") || result.hasPrefix("'") { result = "\\&" + result }
        return result
    }

    /// Each line of `text` escaped (for `.nf` blocks).
    static func escapedLines(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { escaped(String($0)) }.joined(separator: "\n")
    }

    static func page(commands: [CommandSpec]) -> String {
        var text = """
            .TH EVTOOL 1 "" "evtool \(EvtoolVersion.number)" "User Commands"
            .SH NAME
            evtool \\- record what the users of an event\\-discovery app do as an append\\-only log of domain events
            .SH SYNOPSIS
            .B evtool
            .I subcommand
            .RI [ options ]
            .br
            .B evtool \\-\\-version
            .br
            .B evtool help
            .I subcommand
            .SH DESCRIPTION
            evtool records each action of a user (a search, a favorite, a details view) as an event in an
            append\\-only log held in an SQLite file or a PostgreSQL database, rebuilds every view the users
            see from that log, and gives auditors a hash\\-chained log they can verify.
            Every subcommand takes
            .B \\-h
            or
            .BR \\-\\-help .
            An option's value may follow it
            .RI ( "\\-\\-user ada" )
            or be joined to it with
            .B =
            .RI ( \\-\\-user=ada );
            a value that starts with a dash must be joined
            .RI ( \\-\\-user=\\-x ).
            .SH COMMANDS

            """
        for command in commands {
            text += ".SS \"evtool \(escaped(command.name))\"\n"
            text += escaped(command.summary) + ".\n"
            text += ".PP\n.B evtool \(escaped(command.name))\n" + escaped(command.usage) + "\n"
            if !command.discussion.isEmpty {
                for paragraph in command.discussion.components(separatedBy: "\n\n") {
                    text += ".PP\n" + paragraph.split(separator: "\n").map { escaped($0.trimmingCharacters(in: .whitespaces)) }.joined(separator: "\n") + "\n"
                }
            }
            for argument in command.arguments {
                text += ".TP\n.I \(escaped(argument.name))\n\(escaped(argument.help))\n"
            }
            for option in command.allOptions {
                var label = (option.short.map { "\\fB\\-\($0)\\fR, " } ?? "") + "\\fB\\-\\-\(escaped(option.name))\\fR"
                if let placeholder = option.value { label += " \\fI\(escaped(placeholder))\\fR" }
                if option.repeatable { label += " (repeatable)" }
                text += ".TP\n\(label)\n\(escaped(option.help))\n"
            }
            if !command.examples.isEmpty {
                text += ".PP\nExamples:\n.RS\n.nf\n" + command.examples.map(escaped).joined(separator: "\n") + "\n.fi\n.RE\n"
            }
        }
        text += """
            .SH STORES
            .B \\-\\-store
            takes
            .BI sqlite: PATH\\fR,
            a file path, or a
            .B postgres://USER@HOST:PORT/DB[?schema=NAME]
            URL. PostgreSQL also takes libpq's environment variables and URL parameters;
            .BI schema= NAME
            picks the schema that holds the store (default evtool).
            .SH ENVIRONMENT
            .TP
            .B EVTOOL_STORE
            The store when
            .B \\-\\-store
            is not given (default ./evtool.sqlite).
            .TP
            .B COLUMNS
            The width help is folded to (default: the terminal's, else 80).
            .TP
            .B TERM
            .B dumb
            turns off progress bars and every terminal escape code (as does output that is not a terminal).
            .TP
            .B USER
            The operator
            .B evtool forget
            records when
            .B \\-\\-by
            is not given.
            .SH EXIT STATUS
            .nf
            \(escapedLines(ExitCode.documentation))
            .fi
            .SH SEE ALSO
            .BR psql (1),
            .BR sqlite3 (1)

            """
        return text
    }
}
