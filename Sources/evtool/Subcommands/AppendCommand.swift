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
            .init(name: "expected-version", value: "V", help: "any (default), no-stream, exists, or a version number"),
            .init(name: "id", value: "UUID", help: "The event's id (default: a new random one); retrying with the same id is safe"),
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
            let expected = try expectedVersion(arguments.value("expected-version") ?? "any", arguments)
            var id = UUID()
            if let text = arguments.value("id") {
                guard let parsed = UUID(uuidString: text) else { throw CLIError.usage("'--id' must be a UUID, not '\(text)'", arguments.command) }
                id = parsed
            }
            let store = try StoreLocation.resolve(arguments).open(create: true)
            let result = try store.append(ProposedEvent(id: id, type: type, data: data, metadata: metadata), to: stream, expectedVersion: expected)
            if arguments.flag("json") {
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

    static func expectedVersion(_ text: String, _ arguments: ParsedArguments) throws -> ExpectedVersion {
        switch text {
        case "any": return .any
        case "no-stream": return .noStream
        case "exists": return .streamExists
        default:
            guard let version = Int64(text), version >= 0 else {
                throw CLIError.usage("'--expected-version' must be any, no-stream, exists or a version number ≥ 0, not '\(text)'", arguments.command)
            }
            return .exactly(version)
        }
    }
}
