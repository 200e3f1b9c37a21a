import EventLog
import EvtoolKit
import Foundation
import Projections

/// Times and positions given on the command line, parsed by the library's ``EvtoolKit/TimeText``.
enum TimeArgument {
    /// ``EvtoolKit/TimeText/parse(_:)``: `2026-03-01`, `2026-03-01T10:00:00Z` and the like.
    static func parse(_ text: String) -> Date? { TimeText.parse(text) }

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
