import EventLog
import Foundation
import Projections
import Transfer

/// Times and positions given on the command line, parsed by the library's ``Transfer/TimeText``.
enum TimeArgument {
    /// ``Transfer/TimeText/parse(_:)``: `2026-03-01`, `2026-03-01T10:00:00Z`,
    /// `2026-03-01 10:00:00Z` (RFC 3339 allows a space for the `T`) and the like.
    static func parse(_ text: String) -> Date? { TimeText.parse(text) }

    /// A time option's value, or nil when absent; a usage error names the option when malformed.
    static func option(_ name: String, in arguments: ParsedArguments) throws -> Date? {
        guard let text = arguments.value(name) else { return nil }
        do {
            return try parseTime(text, option: name)
        } catch let error as OptionValueError {
            throw CLIError(message: error.message, code: error.code, command: arguments.command)
        }
    }

    /// `text` as the time `--name` takes, or the usage error that names the option.
    static func parseTime(_ text: String, option name: String) throws -> Date {
        guard let date = parse(text) else {
            throw OptionValueError(message: "'--\(name)' must be a time like 2026-03-01 or 2026-03-01T10:00:00Z, not '\(text)'")
        }
        return date
    }

    /// `--as-of POSITION|TIME`: a whole number is a position, anything else must be a time.
    static func asOf(in arguments: ParsedArguments) throws -> AsOf? {
        guard let text = arguments.value("as-of") else { return nil }
        do {
            return try parseAsOf(text)
        } catch let error as OptionValueError {
            throw CLIError(message: error.message, code: error.code, command: arguments.command)
        }
    }

    /// `text` as `--as-of` takes it, or the usage error that says what it must be.
    static func parseAsOf(_ text: String) throws -> AsOf {
        if let position = Int64(text) {
            guard position >= 0 else { throw OptionValueError(message: "'--as-of' position must be 0 or more, not '\(text)'") }
            return .position(position)
        }
        guard let date = parse(text) else {
            throw OptionValueError(message: "'--as-of' must be a position (a whole number) or a time like 2026-03-01T10:00:00Z, not '\(text)'")
        }
        return .time(date)
    }

    static let asOfOption = SharedOptions.asOf.declaration
}
