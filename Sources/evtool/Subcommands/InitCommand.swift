import EventLog
import StoreSQLite

/// `evtool init`: creates or upgrades a store's schema.
enum InitCommand {
    static let spec = CommandSpec(
        name: "init",
        summary: "Create a store, or upgrade its schema, explicitly",
        usage: "[--store STORE]",
        options: [CommandSpec.storeOption],
        discussion: "Every command creates or upgrades the schema it needs when it opens a store; init does only that, and says what it found.",
        examples: ["evtool init --store sqlite:./evtool.sqlite", "evtool init --store postgres://app@db.internal:5432/evtool"],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 0)
            let location = try StoreLocation.resolve(arguments)
            let store = try location.open(create: true)
            let head = try store.headPosition()
            try console.output("store \(location) is ready (head position \(head))")
        })
}
