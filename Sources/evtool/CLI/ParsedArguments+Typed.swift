/// Reading typed options: the value parsed by the option's own parser.
extension ParsedArguments {
    /// The option's value (the last one given), else its default, else nil.
    func value<Value>(_ option: TypedOption<Value>) throws -> Value? {
        guard let text = value(option.name) else { return option.defaultValue }
        return try parse(text, option)
    }

    /// The option's value, or a usage error naming it when it was not given and has no default.
    func required<Value>(_ option: TypedOption<Value>) throws -> Value {
        guard let value = try value(option) else { throw CLIError.usage("missing option '--\(option.name)'", command) }
        return value
    }

    /// Every value of a repeatable option, in the order given.
    func all<Value>(_ option: TypedOption<Value>) throws -> [Value] {
        try all(option.name).map { try parse($0, option) }
    }

    /// Whether a flag (an option without a value) was given.
    func flag(_ option: CommandSpec.Option) -> Bool { flag(option.name) }

    /// Whether `--name` was given at all.
    func isGiven<Value>(_ option: TypedOption<Value>) -> Bool { value(option.name) != nil }

    private func parse<Value>(_ text: String, _ option: TypedOption<Value>) throws -> Value {
        do {
            return try option.parse(text)
        } catch let error as OptionValueError {
            throw CLIError(message: error.message, code: error.code, command: error.code == .usage ? command : nil)
        }
    }
}
