import Audit
import EventLog
import Foundation
import StoreLocations

/// `evtool archive`: move the oldest events out of the store into a verified file (docs/explanation/audit.md "Archives").
enum ArchiveCommand {
    static let before = TypedOption.integer("before", value: "POSITION", help: "Archive every event below this position (the event at it stays)",
                                            in: 1...Int(Int64.max))
    static let file = TypedOption.text("to", value: "FILE", help: "The archive file to create (never replaced)")

    static let spec = CommandSpec(
        name: "archive", summary: "Move the events below a position to a verified export file and remove them from the store",
        usage: "--before POSITION --to FILE [--quiet] [--json] [--store STORE]",
        options: [before.declaration, file.declaration, SharedOptions.quiet, CommandSpec.storeOption, CommandSpec.jsonOption],
        discussion: """
            Writes the events below POSITION that no earlier archive took to FILE in the export
            format (JSON Lines, as 'evtool export' writes), reads the file back and verifies it
            against the log: every event's chain hash, the seals inside it, the kept Merkle tree's
            leaves and its root at the archived size, and that the rest of the log chains on from
            it. Then flushes the file to disk and, in one transaction, records the boundary (the
            position, each stream's head and decision state there, the file's SHA-256) and
            removes the archived events. A crash leaves the store as before or as after.

            Afterwards 'evtool verify' checks the kept log from the boundary, and 'evtool verify
            --archive FILE' (every archive's file, oldest first) checks the archives and the rest
            together. Views, history, --as-of and commands keep working for what is kept; a
            rebuild from scratch needs the archive files ('evtool rebuild --archive FILE').

            Refused (exit 65, nothing archived) when POSITION is not after the last boundary or is
            beyond the head, when a view or the kept Merkle tree has not reached POSITION - 1
            (run 'evtool project' first), when FILE exists, or when the log or the file fails
            verification.
            """,
        examples: ["evtool archive --before 1000001 --to archive-1.jsonl"],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 0)
            let position = Int64(try arguments.required(before))
            let path = try arguments.required(file)
            let location = try StoreLocation.resolve(arguments)
            let store = try location.openForViews()
            var display = ProgressRenderer(minimumTotal: 100_000)
            // Ctrl-C while the file is written or checked stops there: the partial file is
            // removed and nothing is archived (a second Ctrl-C ends the process at once).
            Interrupt.install()
            let archived = try LogArchive.archive(store, location: location, before: position, to: path, progress: { step in
                try Interrupt.check("nothing was archived and no file was left; run the same command again")
                display.render(step, console: &console)
            })
            let boundary = archived.boundary
            if arguments.flag("json") {
                return try console.output(JSONOutput.object { writer in
                    writer.key("archive"); writer.number(boundary.number)
                    writer.key("before"); writer.number(boundary.position)
                    writer.key("file"); writer.string(path)
                    writer.key("events"); writer.number(boundary.fileEvents)
                    writer.key("archivedEvents"); writer.number(boundary.events)
                    writer.key("sha256"); writer.string(boundary.fileSHA256)
                    writer.key("seals"); writer.number(Int64(archived.seals))
                })
            }
            try console.output("archived \(boundary.fileEvents.counted("event")) below position \(boundary.position) to \(path) (archive \(boundary.number), SHA-256 \(boundary.fileSHA256)); verified against the log and \(archived.seals.counted("seal")), removed from the store")
        })
}
