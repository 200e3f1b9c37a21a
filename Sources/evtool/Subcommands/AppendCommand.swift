import Commands
import EventLog
import Foundation
import JSONKit

/// `evtool append`: appends one raw event to a stream (an operator's tool; the recording
/// commands build domain events and go through the command runner instead).
enum AppendCommand {
    static let spec = CommandSpec(
        name: "append",
        summary: "Append one raw event to a stream, with an expected version",
        usage: "--stream ID --type TYPE --data JSON [--metadata JSON] [--expected-version any|no-stream|exists|N] [--id UUID] [--store STORE] [--json]",
        options: [
            .init(name: "stream", value: "ID", help: "The stream to append to"),
            .init(name: "type", value: "TYPE", help: "The event's type name"),
            .init(name: "data", value: "JSON", help: "The event's JSON payload ('-' reads it from standard input)"),
            .init(name: "metadata", value: "JSON", help: "The event's JSON metadata (default {})"),
            expected.declaration, id.declaration,
            CommandSpec.storeOption,
            CommandSpec.jsonOption,
        ],
        examples: [
            #"evtool append --stream user-42 --type Note --data '{"text":"hello"}' --expected-version no-stream"#,
            #"echo '{"text":"hi"}' | evtool append --stream user-42 --type Note --data - --expected-version 1"#,
        ],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 0)
            let stream = try arguments.required("stream")
            let type = try arguments.required("type")
            var data = Data(try arguments.required("data").utf8)
            if data == Data("-".utf8) { data = try InputSource("-", what: "data").readAll(what: "data") }
            let metadata = Data((arguments.value("metadata") ?? "{}").utf8)
            let expected = try arguments.required(Self.expected)
            let id = try arguments.value(Self.id) ?? UUID()
            let event = ProposedEvent(id: id, type: type, data: data, metadata: metadata)
            // The store's own rules, checked before it is opened: a refused event creates no store.
            try AppendValidation.validate([event], stream: stream)
            try DomainEvent.checkAppended(type: type, data: data)
            let store = try StoreLocation.resolve(arguments).open(create: true)
            let result: AppendResult
            do {
                result = try store.append(event, to: stream, expectedVersion: expected)
            } catch let refused as EventStoreError {
                // A retry of an append that was recorded (its answer lost on the way): the same
                // id, stream and content is already there, so it is recorded once and this
                // answers as the first did. Anything else keeps its error.
                guard Self.isRetryRefusal(refused), let recorded = try store.read(stream: stream).first(where: { $0.id == id }),
                      recorded.type == type, recorded.data == data, recorded.metadata == metadata else { throw refused }
                if arguments.flag(SharedOptions.json) {
                    return try console.output(JSONOutput.object { writer in
                        writer.key("stream"); writer.string(stream)
                        writer.key("version"); writer.number(recorded.version)
                        writer.key("position"); writer.number(recorded.position)
                        writer.key("id"); writer.string(id.lowercaseString)
                        writer.key("alreadyRecorded"); writer.bool(true)
                    })
                }
                return try console.output("already recorded: \(TerminalText.escaped(type)) with id \(id.lowercaseString) is in \(TerminalText.escaped(stream)) at version \(recorded.version), position \(recorded.position); nothing appended")
            }
            if arguments.flag(SharedOptions.json) {
                try console.output(JSONOutput.object { writer in
                    writer.key("stream"); writer.string(stream)
                    writer.key("version"); writer.number(result.streamVersion)
                    writer.key("position"); writer.number(result.positions.lowerBound)
                    writer.key("id"); writer.string(id.lowercaseString)
                })
            } else {
                try console.output("appended \(TerminalText.escaped(type)) to \(TerminalText.escaped(stream)): version \(result.streamVersion), position \(result.positions.lowerBound)")
            }
        })

    static let expected = TypedOption<ExpectedVersion>(
        name: "expected-version", value: "V", help: "any (default), no-stream, exists, or a version number",
        completion: .values(["any", "no-stream", "exists"]), default: .any, parse: { text in try expectedVersion(text) })
    static let id = TypedOption<UUID>(
        name: "id", value: "UUID", help: "The event's id (default: a new random one); retrying with the same id is safe", parse: { text in
            guard let parsed = UUID(uuidString: text) else { throw OptionValueError(message: "'--id' must be a UUID, not '\(text)'") }
            return parsed
        })

    /// Whether `error` is how a store refuses the retry of an append it recorded: its id is in
    /// the log, or (checked first by some stores) the expected version no longer holds.
    static func isRetryRefusal(_ error: EventStoreError) -> Bool {
        switch error {
        case .duplicateEventID, .wrongExpectedVersion: true
        default: false
        }
    }

    static func expectedVersion(_ text: String) throws -> ExpectedVersion {
        switch text {
        case "any": return .any
        case "no-stream": return .noStream
        case "exists": return .streamExists
        default:
            guard let version = Int64(text), version >= 0 else {
                throw OptionValueError(message: "'--expected-version' must be any, no-stream, exists or a version number ≥ 0, not '\(text)'")
            }
            return .exactly(version)
        }
    }
}
