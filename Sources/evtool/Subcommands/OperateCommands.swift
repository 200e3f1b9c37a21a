import Commands
import EventLog
import EvtoolKit
import Foundation
import JSONKit
import Projections
import StoreLocations

/// `evtool project|rebuild|stats`: keep the views current, rebuild them, and report.
enum OperateCommands {
    static let viewNames = Views.all.map(\.name)

    static let project = CommandSpec(
        name: "project", summary: "Bring the views up to date from their checkpoints (and keep them so with --follow)",
        usage: "[--follow] [--quiet] [--json] [--store STORE]",
        options: [.init(name: "follow", value: nil, help: "Keep running: apply new events as they are recorded, until Ctrl-C"), SharedOptions.quiet, CommandSpec.storeOption, CommandSpec.jsonOption],
        discussion: """
            With --follow, a store that goes away after the command started (a PostgreSQL server \
            restarting, a dropped connection) is waited for: one line on standard error says so, \
            evtool tries again with pauses growing from 50 ms to 2 s until the store is back (or \
            Ctrl-C), says so, takes its leases again and carries on from the views' checkpoints \
            (each commit is a compare-and-set on the checkpoint, so nothing is applied twice). A \
            store that cannot be reached at the start is an error (exit 69).
            """,
        examples: ["evtool project", "evtool project --follow --store postgres://app@db/evtool"],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 0)
            let store = try StoreLocation.resolve(arguments).openForViews()
            guard arguments.flag("follow") else {
                let head = try Application(store: store).catchUpViews()
                try console.output(arguments.flag("json") ? positionJSON(head) : "views are up to date at position \(head)")
                return
            }
            Interrupt.install()
            // On a store with leases (PostgreSQL), each view is advanced by one projector at a
            // time; the others check every few seconds and take over a view whose projector died.
            // A store that goes away (a server restart) is waited for (Reconnecting).
            try Following.views(
                store, names: viewNames,
                shouldStop: { Interrupt.isRequested },
                leases: { held in
                    console.info(held.isEmpty ? "another projector advances every view; waiting to take over"
                                                 : "advancing \(held.joined(separator: ", "))")
                },
                reached: { head in
                    try console.output(arguments.flag("json") ? positionJSON(head) : "views at position \(head)")
                    try console.flush()
                },
                reconnecting: { try console.report($0) })
        })

    static let rebuild = CommandSpec(
        name: "rebuild", summary: "Rebuild views from the whole log; readers keep the old ones until the new are complete",
        usage: "[VIEW…] [--archive FILE…] [--quiet] [--json] [--store STORE]",
        arguments: [("VIEW", "Which views (default all): \(viewNames.joined(separator: ", "))")],
        options: [.init(name: "archive", value: "FILE", help: "After 'evtool archive': fold the archive files (every archive's, oldest first, verified with the log first) before the kept log", repeatable: true),
                  SharedOptions.quiet, CommandSpec.storeOption, CommandSpec.jsonOption],
        discussion: """
            Ctrl-C stops at a batch boundary; running rebuild again resumes from the last commit of the interrupted rebuild.
            On a store with archives ('evtool archive') a rebuild needs every archive's file (--archive FILE, oldest first):
            they are verified with the kept log as 'evtool verify --archive' does, then folded before it.
            """,
        examples: ["evtool rebuild", "evtool rebuild favorites recent-searches", "evtool rebuild --archive archive-1.jsonl"],
        run: { arguments, console in
            for name in arguments.positional where !viewNames.contains(name) {
                throw CLIError.usage("no view named '\(name)'; views: \(viewNames.joined(separator: ", "))", arguments.command)
            }
            let store = try StoreLocation.resolve(arguments).openForViews()
            let names = arguments.positional.isEmpty ? nil : arguments.positional
            var display = ProgressRenderer()
            Interrupt.install()
            let rebuilt = try ViewMaintenance.rebuild(store, names: names, archives: arguments.all("archive"),
                                                      progress: { display.render($0, console: &console) },
                                                      shouldStop: { Interrupt.isRequested })
            if arguments.flag("json") {
                var writer = JSONWriter()
                rebuilt.write(to: &writer)
                return try console.output(writer.text)
            }
            try console.output("rebuilt \(rebuilt.views.map(\.name).joined(separator: ", ")) through position \(rebuilt.head) in \(String(format: "%.1f", rebuilt.seconds)) s")
        })

    static let stats = CommandSpec(
        name: "stats", summary: "Count events, streams and types; show store size and view checkpoints with their lag",
        usage: "[--json] [--store STORE] [--read-store URL]",
        options: [CommandSpec.storeOption, SharedOptions.readStore.declaration, CommandSpec.jsonOption],
        examples: ["evtool stats", "evtool stats --json | jq .projections"],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 0)
            let (application, location) = try ReadStore.application(arguments, console: &console)
            let statistics = try application.storeStatistics()
            let (events, types, head, projections) = (statistics.events, statistics.types, statistics.head, statistics.projections)
            let size = location.sizeInBytes
            if arguments.flag(SharedOptions.json) {
                var writer = JSONWriter()
                statistics.write(to: &writer, size: .some(size))
                return try console.output(writer.text)
            }
            try console.output("store      \(location)")
            try console.output("events     \(String(events).groupedThousands)")
            try console.output("users      \(String(statistics.users).groupedThousands)")
            let system = statistics.systemStreams == 0 ? "" : ", and \(statistics.systemStreams) of evtool's own"
            try console.output("streams    \(String(statistics.streams).groupedThousands) (one per user\(system))")
            try console.output("head       position \(head)")
            if let size { try console.output("size       \(String(format: "%.1f MiB", Double(size) / 1_048_576))") }
            if let layout = statistics.layout { try console.output("layout     \(layout)") }
            try console.output("")
            var table = TextTable("TYPE", "EVENTS")
            for (type, count) in types.sorted(by: { $0.key < $1.key }) { table.add(type, String(count).groupedThousands) }
            for line in table.lines { try console.output(line) }
            try console.output("")
            if projections.isEmpty { return try console.output("No views built yet (run 'evtool project')") }
            var views = TextTable("VIEW", "GENERATION", "VERSION", "CHECKPOINT", "LAG", "STATE")
            for status in projections {
                views.add(status.name, String(status.generation), String(status.version), String(status.position),
                          String(head - status.position), status.isActive ? "active" : "building")
            }
            for line in views.lines { try console.output(line) }
        })

    /// `{"position":N}`: where the views are (project --json).
    static func positionJSON(_ head: Int64) -> String {
        JSONOutput.object { writer in writer.key("position"); writer.number(head) }
    }
}
