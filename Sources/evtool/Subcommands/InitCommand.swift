import EventLog
import JSONKit
import StoreSQLite

/// `evtool init`: creates or upgrades a store's schema.
enum InitCommand {
    static let spec = CommandSpec(
        name: "init",
        summary: "Create a store, or upgrade its schema, explicitly",
        usage: "[--json] [--store STORE]",
        options: [CommandSpec.storeOption, CommandSpec.jsonOption],
        discussion: "Every command creates or upgrades the schema it needs when it opens a store; init does only that, and says what it found.",
        examples: ["evtool init --store sqlite:./evtool.sqlite", "evtool init --store postgres://app@db.internal:5432/evtool"],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 0)
            let location = try StoreLocation.resolve(arguments)
            let store = try location.open(create: true)
            let head = try store.headPosition()
            if arguments.flag("json") {
                return try console.output(JSONOutput.object { writer in
                    writer.key("store"); writer.string("\(location)")
                    writer.key("head"); writer.number(head)
                })
            }
            try console.output("store \(location) is ready (head position \(head))")
        })
}
