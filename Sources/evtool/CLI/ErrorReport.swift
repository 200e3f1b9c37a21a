import Commands
import EventLog
import EvtoolKit
import Foundation
import JSONKit
import Projections
import StoreLocations
import Transfer

/// What the command line says about a failure: its exit code, a message for a person, and
/// (when known) the option or input line it is about. ``Evtool/report(_:console:json:)``
/// prints it as `Error: …` lines, or with `--json` as one JSON object on standard error:
/// `{"code":65,"kind":"invalidData","message":"…","line":3}` (docs/schemas/error.schema.json).
struct ErrorReport {
    /// The exit code.
    var code: ExitCode
    /// What is wrong, for a person (not yet bounded or escaped for a terminal).
    var message: String
    /// For usage errors: the command whose usage line and help pointer to print.
    var command: CommandSpec?
    /// The option (without its dashes) or input field the error is about, when known.
    var field: String?
    /// The line of the input the error is about (import), when known.
    var line: Int?

    init(_ error: Error) {
        switch error {
        case let error as OutputError:
            self.init(code: .ioError, message: error.description)
        case let error as CLIError:
            self.init(code: error.code, message: error.message, command: error.command,
                      field: error.field ?? Self.option(in: error.message, code: error.code), line: error.line ?? Self.line(in: error.message))
        case let error as StoreLocationError:
            self.init(CLIError(error))
            field = field ?? "store"
        case let error as OperationError:
            self.init(CLIError(error))
        case let error as ApplicationError:
            self.init(code: Self.code(error), message: error.description)
            if case let .invalid(field, _) = error { self.field = field }
        case let error as MigrationError:
            self.init(code: .invalidData, message: error.description)
        case let error as EventStoreError:
            self.init(code: ExitCode(error), message: EvtoolVersion.describe(error))
        case let error as CommandError:
            if case .conflict = error { self.init(code: .conflict, message: error.description) } else { self.init(code: .invalidData, message: error.description) }
        case let error as DomainEventError:
            self.init(code: .invalidData, message: "\(error)")
        case let error as ProjectionStoreError:
            self.init(code: .conflict, message: error.description)
        default:
            self.init(code: .failure, message: error.localizedDescription)
        }
    }

    /// The exit code of the application's own errors: the same kinds the HTTP API answers
    /// with 422 and 404, 409/412, 503, 500.
    static func code(_ error: ApplicationError) -> ExitCode {
        switch error {
        case .invalid, .requestIDReused, .failed, .notFound: return .invalidData
        case .versionMismatch, .conflict: return .conflict
        case .unavailable: return .unavailable
        case .permissionDenied: return .noPermission
        }
    }

    init(code: ExitCode, message: String, command: CommandSpec? = nil, field: String? = nil, line: Int? = nil) {
        self.code = code
        self.message = message
        self.command = command
        self.field = field
        self.line = line
    }

    /// The kind of failure, a stable name per exit code (`usage`, `invalidData`, `unavailable` …).
    var kind: String { String(describing: code) }

    /// The report as one line of JSON. The message is the one the text form prints
    /// (``Evtool/errorLine(_:)``: passwords masked, invisible characters shown as `\u{…}`,
    /// a huge one bounded), since standard error is often a terminal.
    var json: String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("code"); writer.number(Int(code.rawValue))
        writer.key("kind"); writer.string(kind)
        writer.key("message"); writer.string(Evtool.errorLine(message))
        if let field { writer.key("field"); writer.string(field) }
        if let line { writer.key("line"); writer.number(line) }
        if let command { writer.key("command"); writer.string(command.name) }
        writer.endObject()
        return writer.text
    }

    /// The first option a usage message names (`'--limit' must be …` is about `limit`).
    static func option(in message: String, code: ExitCode) -> String? {
        guard code == .usage, let start = message.range(of: "'--") else { return nil }
        let name = message[start.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "-" }
        return name.isEmpty ? nil : String(name)
    }

    /// The input line a message starts with (`line 3: …`).
    static func line(in message: String) -> Int? {
        guard message.hasPrefix("line ") else { return nil }
        return Int(message.dropFirst(5).prefix { $0.isNumber })
    }
}
