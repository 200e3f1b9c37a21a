import EventLog
import EvtoolKit
import Foundation
import Transfer

/// `evtool log`: prints the global log in position order, and follows it.
enum LogCommand {
    static let from = TypedOption.integer("from", value: "POSITION", help: "Start after this position, exclusive: the first event printed is the one after it (default 0: from the first)",
                                          in: 0...Int(Int64.max), default: 0)
    static let limit = TypedOption.integer("limit", help: "Print at most N events", in: 1...Int.max, default: Int.max)
    static let spec = CommandSpec(
        name: "log",
        summary: "Print the whole log in position order (and follow new events with --follow)",
        usage: "[--from POSITION] [--limit N] [--follow] [--json] [--store STORE] [--read-store URL]",
        options: [
            from.declaration, limit.declaration,
            .init(name: "follow", value: nil, help: "Keep printing new events as they are recorded, until Ctrl-C; when the store goes away (a server restart) wait for it and carry on after the last event printed"),
            CommandSpec.storeOption, SharedOptions.readStore.declaration,
            .init(name: "json", value: nil, help: "Print JSON Lines: one event per line with every field"),
        ],
        discussion: """
            With --follow, a store that goes away after the command started (a PostgreSQL server \
            restarting, a dropped connection) is waited for: one line on standard error says so, \
            evtool tries again with pauses growing from 50 ms to 2 s until the store is back (or \
            Ctrl-C), says so, and carries on after the last event printed, so no event is skipped \
            or printed twice. A store that cannot be reached at the start is an error (exit 69).
            """,
        examples: ["evtool log --json | head", "evtool log --from 1200 --limit 20", "evtool log --follow --json"],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 0)
            let from = try arguments.required(Self.from)
            let limit = try arguments.required(Self.limit)
            let follow = arguments.flag("follow")
            let store = try ReadStore.application(arguments, console: &console).application.storeForReading()
            let json = arguments.flag("json")
            if follow { Interrupt.install() }
            // Following, a store that goes away (a server restart) is waited for (Reconnecting).
            let printed = try Following.log(
                store, after: Int64(from), limit: limit, follow: follow,
                shouldStop: { Interrupt.isRequested },
                events: { batch in
                    for event in batch { try console.output(json ? LogRecord.line(for: event, format: .jsonl) : humanLine(event)) }
                },
                idle: { try console.flush() },
                reconnecting: { try console.report($0) })
            if printed == 0, !json, !follow { console.message("No events") }
        })

    static func humanLine(_ event: RecordedEvent) -> String {
        "\(event.position)\t\(Timestamp.format(event.recordedAt))\t\(TerminalText.escaped(event.streamID))@\(event.version)\t\(TerminalText.escaped(event.type))\t\(TerminalText.escaped(String(decoding: event.data, as: UTF8.self)))"
    }
}
