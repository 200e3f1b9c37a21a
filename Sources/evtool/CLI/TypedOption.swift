import Foundation

/// One command-line option with its type: the declaration help, completions and the man page
/// show (``CommandSpec/Option``), the parser that turns its text into a `Value` (run when the
/// command line is parsed, so a malformed value is refused before the command starts), and
/// its default. Declared once per command (or once in ``SharedOptions``) and read in the
/// command's `run:` with ``ParsedArguments/value(_:)-(TypedOption<Value>)``.
struct TypedOption<Value: Sendable>: Sendable {
    /// The type-erased declaration, as the command's `options` list holds it.
    let declaration: CommandSpec.Option
    /// Turns one given value into a `Value`, or throws ``OptionValueError``.
    let parse: @Sendable (String) throws -> Value
    /// The value when the option is not given; nil when it has none (absent means nil).
    let defaultValue: Value?

    /// The long name without dashes.
    var name: String { declaration.name }

    /// An option `--name VALUE` parsed by `parse`; `parse` throws ``OptionValueError`` for a
    /// malformed value (its message should name the option).
    init(name: String, short: Character? = nil, value placeholder: String, help: String, repeatable: Bool = false,
         completion: OptionCompletion? = nil, default defaultValue: Value? = nil,
         parse: @escaping @Sendable (String) throws -> Value) {
        self.parse = parse
        self.defaultValue = defaultValue
        declaration = CommandSpec.Option(name: name, short: short, value: placeholder, help: help, repeatable: repeatable,
                                         completion: completion, validate: { _ = try parse($0) })
    }
}

/// Why an option's value was refused: the message after `Error: ` and the exit code (64, a
/// usage error, unless the value is well-formed but invalid data).
struct OptionValueError: Error, Sendable {
    var message: String
    var code: ExitCode = .usage
}

extension TypedOption where Value == String {
    /// A text option taken as it is given (`--user ID`, `--reason TEXT`).
    static func text(_ name: String, short: Character? = nil, value placeholder: String, help: String, repeatable: Bool = false,
                     completion: OptionCompletion? = nil, default defaultValue: String? = nil) -> TypedOption {
        TypedOption(name: name, short: short, value: placeholder, help: help, repeatable: repeatable,
                    completion: completion, default: defaultValue, parse: { $0 })
    }

    /// A text option that must be one of `choices` (compared case-insensitively; the value
    /// returned is the choice as declared).
    static func choice(_ name: String, value placeholder: String? = nil, _ choices: [String], help: String,
                       default defaultValue: String? = nil, code: ExitCode = .usage) -> TypedOption {
        TypedOption(name: name, value: placeholder ?? choices.joined(separator: "|"), help: help, completion: .values(choices),
                    default: defaultValue, parse: { text in
                        guard let choice = choices.first(where: { $0.lowercased() == text.lowercased() }) else {
                            throw OptionValueError(message: "'--\(name)' must be \(Self.list(choices)), not '\(text)'", code: code)
                        }
                        return choice
                    })
    }

    /// `a`, `a or b`, `a, b or c`.
    static func list(_ words: [String]) -> String {
        words.count <= 1 ? words.joined() : words.dropLast().joined(separator: ", ") + " or " + (words.last ?? "")
    }
}

extension TypedOption where Value == Int {
    /// A whole-number option within `range` (`_` may group digits: `10_000`).
    static func integer(_ name: String, value placeholder: String = "N", help: String, in range: ClosedRange<Int>,
                        default defaultValue: Int? = nil) -> TypedOption {
        TypedOption(name: name, value: placeholder, help: help, default: defaultValue,
                    parse: { text in try IntegerArgument.parse(text, option: name, in: range) })
    }
}

/// Whole numbers given on the command line.
enum IntegerArgument {
    /// `text` as a whole number within `range`, or the usage error that names the option.
    static func parse(_ text: String, option name: String, in range: ClosedRange<Int>) throws -> Int {
        guard let number = Int(text.replacingOccurrences(of: "_", with: "")), range.contains(number) else {
            throw OptionValueError(message: "option '--\(name)' must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return number
    }
}
