import EventLog
import Foundation
import Projections

/// Times and positions given on the command line.
enum TimeArgument {
    /// Parses `2026-03-01`, `2026-03-01T10:00:00Z`, `2026-03-01T10:00:00.5+01:00` and the like
    /// (RFC 3339, or a date alone meaning its UTC midnight); nil for anything else.
    static func parse(_ text: String) -> Date? {
        if let exact = Timestamp.parse(text) { return exact }
        let formatter = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime], [.withFullDate]] {
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    /// A time option's value, or nil when absent; a usage error names the option when malformed.
    static func option(_ name: String, in arguments: ParsedArguments) throws -> Date? {
        guard let text = arguments.value(name) else { return nil }
        guard let date = parse(text) else {
            throw CLIError.usage("'--\(name)' must be a time like 2026-03-01 or 2026-03-01T10:00:00Z, not '\(text)'", arguments.command)
        }
        return date
    }

    /// `--as-of POSITION|TIME`: a whole number is a position, anything else must be a time.
    static func asOf(in arguments: ParsedArguments) throws -> AsOf? {
        guard let text = arguments.value("as-of") else { return nil }
        if let position = Int64(text) {
            guard position >= 0 else { throw CLIError.usage("'--as-of' position must be 0 or more, not '\(text)'", arguments.command) }
            return .position(position)
        }
        guard let date = parse(text) else {
            throw CLIError.usage("'--as-of' must be a position (a whole number) or a time like 2026-03-01T10:00:00Z, not '\(text)'", arguments.command)
        }
        return .time(date)
    }

    static let asOfOption = CommandSpec.Option(name: "as-of", value: "POSITION|TIME",
                                               help: "Show the view as it was at a log position or a time (e.g. 2026-03-01)")
}
