/// One evtool subcommand: its help text, options and what it runs.
struct CommandSpec: Sendable {
    /// One option of a command.
    struct Option: Sendable {
        /// The long name without dashes, e.g. `store`.
        var name: String
        /// The value's placeholder, e.g. `PATH`; nil for a flag that takes no value.
        var value: String?
        var help: String
        /// Whether the option may be given more than once.
        var repeatable = false
    }

    var name: String
    var summary: String
    /// The usage line after `evtool NAME`, e.g. `[--from POSITION] [--json]`.
    var usage: String
    var arguments: [(name: String, help: String)] = []
    var options: [Option]
    var discussion: String = ""
    var examples: [String]
    var run: @Sendable (ParsedArguments, inout Console) throws -> Void

    /// Options every store-using command accepts.
    static let storeOption = Option(
        name: "store", value: "STORE",
        help: "sqlite:PATH, a file path, or a postgres:// URL (default: $EVTOOL_STORE, else ./evtool.sqlite)")
    static let jsonOption = Option(name: "json", value: nil, help: "Print JSON instead of a table")
    static let helpOption = Option(name: "help", value: nil, help: "Show this help")

    /// The full help text: OVERVIEW, USAGE, ARGUMENTS, OPTIONS, EXAMPLES.
    var help: String {
        var text = "OVERVIEW: \(summary)\n"
        if !discussion.isEmpty { text += "\n\(discussion)\n" }
        text += "\nUSAGE: evtool \(name) \(usage)\n"
        if !arguments.isEmpty {
            text += "\nARGUMENTS:\n"
            for argument in arguments { text += "  " + argument.name.padded(to: 26) + argument.help + "\n" }
        }
        text += "\nOPTIONS:\n"
        for option in options + [Self.helpOption] {
            let label = "--\(option.name)" + (option.value.map { " \($0)" } ?? "")
            text += "  " + label.padded(to: 26) + option.help + "\n"
        }
        if !examples.isEmpty {
            text += "\nEXAMPLES:\n" + examples.map { "  \($0)" }.joined(separator: "\n") + "\n"
        }
        return text
    }
}

extension String {
    /// The string padded with spaces to `width` (or followed by two spaces when longer).
    func padded(to width: Int) -> String {
        count >= width ? self + "  " : self + String(repeating: " ", count: width - count)
    }
}
