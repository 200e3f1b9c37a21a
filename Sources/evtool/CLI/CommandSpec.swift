/// One evtool subcommand: its help text, options and what it runs.
struct CommandSpec: Sendable {
    /// One option of a command, as help, usage errors, completions and the man page see it:
    /// the type-erased face of a ``TypedOption`` (or a plain declaration read by name).
    struct Option: Sendable {
        /// The long name without dashes, e.g. `store`.
        var name: String
        /// The one-letter short name, e.g. `h` for `-h`; nil when there is none.
        var short: Character?
        /// The value's placeholder, e.g. `PATH`; nil for a flag that takes no value.
        var value: String?
        var help: String
        /// Whether the option may be given more than once.
        var repeatable = false
        /// What a shell offers when completing the option's value.
        var completion: OptionCompletion
        /// Checks one value when the command line is parsed (before the command runs), so a
        /// malformed value is a usage error naming the option; nil accepts any text.
        var validate: (@Sendable (String) throws -> Void)?

        /// A declaration; `completion` defaults to a guess from the placeholder (``OptionCompletion/guess(placeholder:)``).
        init(name: String, short: Character? = nil, value: String?, help: String, repeatable: Bool = false,
             completion: OptionCompletion? = nil, validate: (@Sendable (String) throws -> Void)? = nil) {
            self.name = name
            self.short = short
            self.value = value
            self.help = help
            self.repeatable = repeatable
            self.completion = completion ?? OptionCompletion.guess(placeholder: value)
            self.validate = validate
        }

        /// `--name` or `-s, --name`, with the placeholder: the label help and the man page show.
        var label: String {
            (short.map { "-\($0), " } ?? "") + "--\(name)" + (value.map { " \($0)" } ?? "")
        }
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
    static let storeOption = SharedOptions.store.declaration
    static let jsonOption = SharedOptions.json
    static let helpOption = Option(name: "help", short: "h", value: nil, help: "Show this help")

    /// `evtool NAME USAGE`, as the help and usage errors show it.
    var synopsis: String { usage.isEmpty ? "evtool \(name)" : "evtool \(name) \(usage)" }

    /// Every option the command accepts: its own (with `--schema` beside `--store`), then `--help`.
    var allOptions: [Option] {
        let schema = options.contains { $0.name == "store" } && !options.contains { $0.name == "schema" } ? [SharedOptions.schema] : []
        return options + schema + [Self.helpOption]
    }

    /// The full help text: OVERVIEW, USAGE, ARGUMENTS, OPTIONS, EXAMPLES, folded to the
    /// terminal's width (``TerminalWidth``).
    var help: String { help(width: TerminalWidth.current) }

    /// The help text folded to `width` columns (examples are left whole, to be copied).
    func help(width: Int) -> String {
        var text = TextWrap.lines("OVERVIEW: \(summary)", indent: 10, width: width).joined(separator: "\n") + "\n"
        if !discussion.isEmpty { text += "\n" + TextWrap.paragraphs(discussion, width: width) + "\n" }
        text += "\n" + TextWrap.lines("USAGE: \(synopsis)", indent: 7, width: width).joined(separator: "\n") + "\n"
        if !arguments.isEmpty {
            text += "\nARGUMENTS:\n"
            for argument in arguments { text += TextWrap.columns("  " + argument.name, argument.help, column: 28, width: width) + "\n" }
        }
        text += "\nOPTIONS:\n"
        for option in allOptions {
            text += TextWrap.columns("  " + option.label, option.help, column: 28, width: width) + "\n"
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
