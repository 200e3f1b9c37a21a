import EventLog
import Foundation

/// `evtool log`: prints the global log in position order, and follows it.
enum LogCommand {
    static let spec = CommandSpec(
        name: "log",
        summary: "Print the whole log in position order (and follow new events with --follow)",
        usage: "[--from POSITION] [--limit N] [--follow] [--json] [--store STORE]",
        options: [
            .init(name: "from", value: "POSITION", help: "Start after this position (default 0: the beginning)"),
            .init(name: "limit", value: "N", help: "Print at most N events"),
            .init(name: "follow", value: nil, help: "Keep printing new events as they are recorded, until Ctrl-C"),
            CommandSpec.storeOption,
            .init(name: "json", value: nil, help: "Print JSON Lines: one event per line with every field"),
        ],
        examples: ["evtool log --json | head", "evtool log --from 1200 --limit 20", "evtool log --follow --json"],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 0)
            let from = try arguments.integer("from", default: 0, in: 0...Int(Int64.max))
            let limit = try arguments.integer("limit", default: Int.max, in: 1...Int.max)
            let follow = arguments.flag("follow")
            let store = try StoreLocation.resolve(arguments).open(create: false)
            let json = arguments.flag("json")
            var printed = 0
            var cursor = Int64(from)
            if follow { Interrupt.install() }
            while printed < limit {
                let batch = try store.readAll(after: cursor, limit: min(1_000, limit - printed))
                if let last = batch.last {
                    for event in batch { console.output(json ? LogRecord.line(for: event, format: .jsonl) : humanLine(event)) }
                    printed += batch.count
                    cursor = last.position
                    continue
                }
                guard follow else { break }
                console.flush()
                while !Interrupt.isRequested, try !store.waitForEvents(after: cursor, timeout: .milliseconds(500)) {}
                if Interrupt.isRequested { break }
            }
            if printed == 0, !json, !follow { console.message("No events") }
        })

    static func humanLine(_ event: RecordedEvent) -> String {
        "\(event.position)\t\(Timestamp.format(event.recordedAt))\t\(event.streamID)@\(event.version)\t\(event.type)\t\(String(decoding: event.data, as: UTF8.self))"
    }
}
