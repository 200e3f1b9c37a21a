import EventLog
import Foundation

/// A command's arguments after parsing against its ``CommandSpec``.
struct ParsedArguments: Sendable {
    let command: CommandSpec
    private(set) var values: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positional: [String] = []

    /// Parses `arguments` (those after the command name): `--name value`, `--name=value`,
    /// `-s value` for an option with a short name, flags, and positional arguments; `--` ends
    /// the options. A value that looks like an option (`--user -x`) is refused unless written
    /// `--user=-x`; an unknown option is refused with the nearest known name. Each value is
    /// checked by its option's parser (``CommandSpec/Option/validate``) once every argument
    /// is read, unless `--help` was asked for.
    init(_ arguments: [String], for command: CommandSpec) throws {
        self.command = command
        let options = command.allOptions
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                positional.append(argument)
                continue
            }
            if argument == "--" { optionsEnded = true; continue }
            var spelled: String
            var inlineValue: String?
            let option: CommandSpec.Option
            if argument.hasPrefix("--") {
                var name = String(argument.dropFirst(2))
                if let equals = name.firstIndex(of: "=") {
                    inlineValue = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
                spelled = "--" + name
                guard let found = options.first(where: { $0.name == name }) else {
                    throw CLIError.usage("unknown option '\(spelled)'" + Self.suggestion(for: name, in: options), command)
                }
                option = found
            } else {
                // `-h`, or `-s VALUE` / `-s=VALUE` for an option with a one-letter short name.
                let letters = argument.dropFirst()
                var name = String(letters)
                if let equals = name.firstIndex(of: "=") {
                    inlineValue = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
                spelled = "-" + name
                guard name.count == 1, let letter = name.first, let found = options.first(where: { $0.short == letter }) else {
                    throw CLIError.usage("unknown option '\(spelled)'" + Self.suggestion(for: name, in: options), command)
                }
                option = found
            }
            if let placeholder = option.value {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < arguments.count else {
                        throw CLIError.usage("option '--\(option.name)' needs a value (\(placeholder))", command)
                    }
                    value = arguments[index]
                    if Self.looksLikeOption(value) {
                        throw CLIError.usage("option '\(spelled)' needs a value (\(placeholder)), and '\(value)' looks like an option; if it is the value, write '--\(option.name)=\(value)'", command)
                    }
                    index += 1
                }
                if values[option.name] != nil, !option.repeatable {
                    throw CLIError.usage("option '--\(option.name)' is given more than once", command)
                }
                values[option.name, default: []].append(value)
            } else {
                if inlineValue != nil { throw CLIError.usage("option '--\(option.name)' takes no value", command) }
                flags.insert(option.name)
            }
        }
        if flags.contains(CommandSpec.helpOption.name) { return }
        for option in options {
            guard let validate = option.validate, let given = values[option.name] else { continue }
            for value in given {
                do {
                    try validate(value)
                } catch let error as OptionValueError {
                    throw CLIError(message: error.message, code: error.code, command: error.code == .usage ? command : nil)
                }
            }
        }
    }

    /// Whether a value after an option is an option itself (`-x`, `--json`), not a value; a
    /// lone `-` (standard input) and a negative number (`-33.9,18.4`) are values.
    static func looksLikeOption(_ text: String) -> Bool {
        guard text.hasPrefix("-"), text != "-" else { return false }
        let next = text.dropFirst().first
        return !(next.map { $0.isNumber || $0 == "." } ?? false)
    }

    /// `; did you mean '--user'?` when a declared option is near `name` (edit distance), else "".
    static func suggestion(for name: String, in options: [CommandSpec.Option]) -> String {
        EditDistance.nearest(to: name, among: options.map(\.name)).map { "; did you mean '--\($0)'?" } ?? ""
    }

    /// The value of an option, or nil when it was not given.
    func value(_ name: String) -> String? { values[name]?.last }

    /// All values of a repeatable option.
    func all(_ name: String) -> [String] { values[name] ?? [] }

    /// The value of an option that must be given.
    func required(_ name: String) throws -> String {
        guard let value = value(name) else { throw CLIError.usage("missing option '--\(name)'", command) }
        return value
    }

    /// Whether a flag was given.
    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// An integer option within `range`, or `defaultValue` when absent.
    func integer(_ name: String, default defaultValue: Int, in range: ClosedRange<Int>) throws -> Int {
        guard let text = value(name) else { return defaultValue }
        do {
            return try IntegerArgument.parse(text, option: name, in: range)
        } catch let error as OptionValueError {
            throw CLIError.usage(error.message, command)
        }
    }

    /// Fails when positional arguments were given to a command that takes none (or more than `maximum`).
    func expectPositional(atMost maximum: Int) throws {
        if positional.count > maximum {
            throw CLIError.usage("unexpected argument '\(positional[maximum])'", command)
        }
    }
}
