import Foundation

/// evtool-bench's command line after parsing: suites (positional) and `--name value`,
/// `--name=value` options and flags, checked against ``BenchCommand/options``.
struct BenchArguments {
    /// One option: its long name without dashes, its value placeholder (nil for a flag), its help.
    struct Option {
        var name: String
        var value: String?
        var help: String
    }

    private(set) var values: [String: String] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positional: [String] = []

    /// Parses `arguments` (without the program name); `--` ends the options.
    init(_ arguments: [String], options: [Option]) throws {
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
            if argument == "-h" { flags.insert("help"); continue }
            guard argument.hasPrefix("--") else { throw CLIError.usage("unknown option '\(argument)'") }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let option = options.first(where: { $0.name == name }) else {
                throw CLIError.usage("unknown option '--\(name)'")
            }
            if let placeholder = option.value {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < arguments.count else { throw CLIError.usage("option '--\(name)' needs a value (\(placeholder))") }
                    value = arguments[index]
                    index += 1
                }
                guard values[name] == nil else { throw CLIError.usage("option '--\(name)' is given more than once") }
                values[name] = value
            } else {
                if inlineValue != nil { throw CLIError.usage("option '--\(name)' takes no value") }
                flags.insert(name)
            }
        }
    }

    /// The value of an option, or nil when it was not given.
    func value(_ name: String) -> String? { values[name] }

    /// Whether a flag was given.
    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// An integer option within `range` (`_` may group digits), or `defaultValue` when absent.
    func integer(_ name: String, default defaultValue: Int, in range: ClosedRange<Int>) throws -> Int {
        guard let text = value(name) else { return defaultValue }
        guard let number = Int(text.replacingOccurrences(of: "_", with: "")), range.contains(number) else {
            throw CLIError.usage("option '--\(name)' must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return number
    }

    /// A comma-separated list of integers within `range` (at least one), or `defaultValue` when absent.
    func integers(_ name: String, default defaultValue: [Int], in range: ClosedRange<Int>) throws -> [Int] {
        guard let text = value(name) else { return defaultValue }
        return try text.split(separator: ",", omittingEmptySubsequences: false).map { item in
            guard let number = Int(item.replacingOccurrences(of: "_", with: "")), range.contains(number) else {
                throw CLIError.usage("option '--\(name)' must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
            }
            return number
        }
    }
}
