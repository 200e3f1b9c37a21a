import EventLog
import JSONKit
import StorePostgres
import StoreSQLite

/// `evtool init`: creates or upgrades a store's schema.
enum InitCommand {
    static let partitionSize = CommandSpec.Option(
        name: "partition-size", value: "N",
        help: "A new PostgreSQL store: partition the events table by position, N positions a partition (needed to archive); default one table")

    static let spec = CommandSpec(
        name: "init",
        summary: "Create a store, or upgrade its schema, explicitly",
        usage: "[--partition-size N] [--json] [--store STORE]",
        options: [partitionSize, CommandSpec.storeOption, CommandSpec.jsonOption],
        discussion: """
            Every command creates or upgrades the schema it needs when it opens a store; init does \
            only that, and says what it found, with the layout of a PostgreSQL store: a single \
            table (the default, the fastest appends) or partitioned by position (what archive \
            needs). A layout is chosen when the store is made: --partition-size on a store that \
            exists with the single table is an error.
            """,
        examples: ["evtool init --store sqlite:./evtool.sqlite", "evtool init --store postgres://app@db.internal:5432/evtool",
                   "evtool init --partition-size 1000000 --store postgres://app@db.internal:5432/evtool"],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 0)
            let size = arguments.value(partitionSize.name) == nil
                ? nil : Int64(try arguments.integer(partitionSize.name, default: 0, in: 1...Int(Int64.max)))
            let location = try StoreLocation.resolve(arguments)
            let store = try location.open(create: true, partitionSize: size)
            let head = try store.headPosition()
            let layout = try (store as? PostgresEventStore)?.layout()
            if arguments.flag("json") {
                return try console.output(JSONOutput.object { writer in
                    writer.key("store"); writer.string("\(location)")
                    writer.key("head"); writer.number(head)
                    if let layout { writer.key("layout"); layout.write(to: &writer) }
                })
            }
            try console.output("store \(location) is ready (head position \(head)" + (layout.map { "; layout: \($0)" } ?? "") + ")")
        })
}
