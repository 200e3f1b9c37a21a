import Foundation

/// A command's arguments after parsing against its ``CommandSpec``.
struct ParsedArguments: Sendable {
    let command: CommandSpec
    private(set) var values: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positional: [String] = []

    /// Parses `arguments` (those after the command name); `--name value`, `--name=value`,
    /// flags, and positional arguments; `--` ends the options.
    init(_ arguments: [String], for command: CommandSpec) throws {
        self.command = command
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || !argument.hasPrefix("--") || argument == "-" {
                if argument.hasPrefix("-"), argument != "-", !optionsEnded, argument.count > 1 {
                    throw CLIError.usage("unknown option '\(argument)'", command)
                }
                positional.append(argument)
                continue
            }
            if argument == "--" { optionsEnded = true; continue }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let option = (command.options + [CommandSpec.helpOption]).first(where: { $0.name == name }) else {
                throw CLIError.usage("unknown option '--\(name)'", command)
            }
            if let placeholder = option.value {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < arguments.count else {
                        throw CLIError.usage("option '--\(name)' needs a value (\(placeholder))", command)
                    }
                    value = arguments[index]
                    index += 1
                }
                if values[name] != nil, !option.repeatable {
                    throw CLIError.usage("option '--\(name)' is given more than once", command)
                }
                values[name, default: []].append(value)
            } else {
                if inlineValue != nil { throw CLIError.usage("option '--\(name)' takes no value", command) }
                flags.insert(name)
            }
        }
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
        guard let number = Int(text.replacingOccurrences(of: "_", with: "")), range.contains(number) else {
            throw CLIError.usage("option '--\(name)' must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'", command)
        }
        return number
    }

    /// Fails when positional arguments were given to a command that takes none (or more than `maximum`).
    func expectPositional(atMost maximum: Int) throws {
        if positional.count > maximum {
            throw CLIError.usage("unexpected argument '\(positional[maximum])'", command)
        }
    }
}
