import EventLog
import Foundation

/// `evtool log`: prints the global log in position order.
enum LogCommand {
    static let spec = CommandSpec(
        name: "log",
        summary: "Print the whole log in position order",
        usage: "[--from POSITION] [--limit N] [--json] [--store STORE]",
        options: [
            .init(name: "from", value: "POSITION", help: "Start after this position (default 0: the beginning)"),
            .init(name: "limit", value: "N", help: "Print at most N events"),
            CommandSpec.storeOption,
            .init(name: "json", value: nil, help: "Print JSON Lines: one event per line with every field"),
        ],
        examples: ["evtool log --json | head", "evtool log --from 1200 --limit 20"],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 0)
            let from = try arguments.integer("from", default: 0, in: 0...Int(Int64.max))
            let limit = try arguments.integer("limit", default: Int.max, in: 1...Int.max)
            let store = try StoreLocation.resolve(arguments).open(create: false)
            var printed = 0
            let json = arguments.flag("json")
            var cursor = Int64(from)
            while printed < limit {
                let batch = try store.readAll(after: cursor, limit: min(1_000, limit - printed))
                guard let last = batch.last else { break }
                for event in batch {
                    console.output(json ? JSONText.line(for: event) : humanLine(event))
                }
                printed += batch.count
                cursor = last.position
            }
            if printed == 0, !json { console.message("No events") }
        })

    static func humanLine(_ event: RecordedEvent) -> String {
        "\(event.position)\t\(Timestamp.format(event.recordedAt))\t\(event.streamID)@\(event.version)\t\(event.type)\t\(String(decoding: event.data, as: UTF8.self))"
    }
}
