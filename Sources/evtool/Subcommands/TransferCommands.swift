import EventLog
import Foundation
import JSONKit
import Projections
import StoreLocations
import Transfer

/// `evtool export|import|migrate`: move logs between files and stores.
enum TransferCommands {
    static let format = TypedOption<LogRecord.Format>(
        name: "format", value: "F", help: "jsonl (default: every field, payloads byte for byte) or cloudevents (CloudEvents 1.0 JSON, one per line)",
        completion: .values(["jsonl", "cloudevents"]), default: .jsonl, parse: { text in
            guard let format = LogRecord.Format(rawValue: text) else { throw OptionValueError(message: "'--format' must be jsonl or cloudevents, not '\(text)'") }
            return format
        })
    static let fromPosition = TypedOption.integer("from", value: "POSITION", help: "Start after this position, exclusive: the first event exported is the one after it (default 0: from the first)",
                                                  in: 0...Int(Int64.max), default: 0)
    static let toPosition = TypedOption.integer("to", value: "POSITION", help: "Stop at this position, inclusive (default: the head)", in: 0...Int(Int64.max), default: Int(Int64.max))
    static let batch = TypedOption.integer("batch", help: "Events per transaction (default 10,000; a batch also ends at 64 MiB of payloads)", in: 1...100_000, default: EventCopier.defaultBatchSize)
    static let fromStore = SharedOptions.storeLocation("from", help: "The store to copy (e.g. sqlite:./evtool.sqlite)")
    static let toStore = SharedOptions.storeLocation("to", help: "The store to copy into (e.g. postgres://app@db/evtool)")
    static let export = CommandSpec(
        name: "export", summary: "Write the log as JSON Lines or CloudEvents to standard output",
        usage: "[--format jsonl|cloudevents] [--from POSITION] [--to POSITION] [--quiet] [--store STORE] > FILE",
        options: [
            format.declaration, fromPosition.declaration, toPosition.declaration, CommandSpec.storeOption, SharedOptions.quiet,
        ],
        examples: ["evtool export > backup.jsonl", "evtool export --format cloudevents --from 1000 --to 2000 | gzip > slice.jsonl.gz"],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 0)
            let format = try arguments.required(Self.format)
            let from = Int64(try arguments.required(fromPosition))
            let to = Int64(try arguments.required(toPosition))
            guard to >= from else {
                throw CLIError.usage("'--to \(to)' is before '--from \(from)': the export is the events after --from through --to", arguments.command)
            }
            let store = try StoreLocation.resolve(arguments).open(create: false)
            let count = try LogExport.write(store, format: format, from: from, to: to) { try console.output($0) }
            try console.flush()
            console.info("exported \(count.counted("event"))")
        })

    static let `import` = CommandSpec(
        name: "import", summary: "Append the events of an export file, plain lines or CloudEvents (idempotent, resumable, atomic per batch)",
        usage: "FILE|- [--format jsonl|plain|cloudevents] [--batch N] [--quiet] [--json] [--store STORE]",
        arguments: [("FILE", "evtool's export, plain event lines or CloudEvents, one per line; '-' for standard input")],
        options: [
            .init(name: "format", value: "F", help: "jsonl (evtool's export), plain or cloudevents (default: the first line's)"),
            batch.declaration, SharedOptions.quiet, CommandSpec.storeOption, CommandSpec.jsonOption,
        ],
        discussion: """
            Events keep their streams, versions, ids, payloads and recording times; the store gives
            them new positions in file order. An event whose id the store already holds is skipped
            when it is the same event (stream, version, type, time, data, metadata and hash), so
            importing a file twice adds nothing, and rerunning an interrupted import resumes it; a
            line that differs is refused, naming the line and the fields, and nothing of its batch
            is kept. A bad line stops the import with its line number; batches before it stay.
            Each line's "hash" is recomputed from its content and the previous line's hash; a line
            whose hash does not match is refused (the file was changed), so the imported log
            verifies with the same hashes. Erased events (tombstones) are chained anew.

            Events from elsewhere: plain lines {"stream","type","data","metadata"} (no id,
            version or position) are appended in file order at each stream's next version with
            new ids; an optional "id" makes a line idempotent (the same id and content is
            skipped, the same id with other content refused). CloudEvents 1.0 of other
            producers (structured JSON) are appended likewise, the stream named by "subject",
            the id made from "source" and "id" (docs/reference/events.md says what maps to what). The
            format is the first line's (or --format); a line of another format is refused.
            An event of evtool's own types (Searched, Favorited, Unfavorited, DetailsViewed) whose
            data does not decode as that type is refused on a plain line or another producer's
            CloudEvent, naming the line; in a copy of evtool's export it is imported, with a
            warning giving their count and the first line: no view shows it.
            Importing a file shows a progress bar on a terminal; Ctrl-C stops after a batch.
            """,
        examples: ["evtool import backup.jsonl --store postgres://app@db/evtool", "gunzip -c slice.jsonl.gz | evtool import -",
                   "evtool import --format cloudevents orders.ndjson"],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 1)
            guard let path = arguments.positional.first else { throw CLIError.usage("name the file to import, or '-' for standard input", arguments.command) }
            var format: ImportFormat?
            if let text = arguments.value("format") {
                guard let given = ImportFormat(rawValue: text) else {
                    throw CLIError.usage("'--format' must be jsonl, plain or cloudevents, not '\(text)'", arguments.command)
                }
                format = given
            }
            let source = try InputSource(path, what: "import")
            let location = try StoreLocation.resolve(arguments)
            let target = try location.openForCopying()
            let importer = EventImport(store: target, batchSize: try arguments.required(batch), format: format)
            var reader = LineReader(source: source)
            var display = ProgressRenderer(terminalOnly: true)
            Interrupt.install()
            let outcome = try importer.run(&reader, totalBytes: source.regularFileSize,
                                           progress: { display.render($0, console: &console) },
                                           shouldStop: { Interrupt.isRequested })
            // A warning, not a refusal: the events are in the log as given, but no view reads them.
            if let first = outcome.firstUndecodable {
                let events = outcome.undecodable == 1 ? "1 event of evtool's types does" : "\(outcome.undecodable.counted("event")) of evtool's types do"
                console.message("warning: \(events) not decode, so no view shows \(outcome.undecodable == 1 ? "it" : "them") (docs/reference/events.md has each type's JSON); the first: \(first)")
            }
            if arguments.flag("json") {
                return try console.output(JSONOutput.object { writer in
                    writer.key("imported"); writer.number(outcome.appended)
                    writer.key("skipped"); writer.number(outcome.skipped)
                    writer.key("undecodable"); writer.number(outcome.undecodable)
                    if let first = outcome.firstUndecodable { writer.key("firstUndecodable"); writer.string(first) }
                    writer.key("store"); writer.string("\(location)")
                })
            }
            try console.output("imported \(outcome.appended.counted("event")), skipped \(outcome.skipped) already present, into \(location)")
        })

    static let migrate = CommandSpec(
        name: "migrate", summary: "Copy a whole deployment to another store, verify it, and rebuild its views",
        usage: "--from STORE --to STORE [--batch N] [--quiet] [--json]",
        options: [
            fromStore.declaration, toStore.declaration, batch.declaration, SharedOptions.quiet, CommandSpec.jsonOption,
        ],
        discussion: """
            Resumable: the target is always a copy of a prefix of the source, so rerunning after an
            interruption carries on where it stopped. At the end both logs are read in order and
            compared (count and a SHA-256 digest of every event), then the target's views are rebuilt.
            A PostgreSQL location's schema is its schema=, else $EVTOOL_SCHEMA, else evtool, as for
            --store.

            The source's seals and recorded checkpoints are carried as they are (signed by its
            keys), so 'evtool verify' and 'evtool seal --list' on the target show them. A seal is
            carried only when the copy holds the source's events at the same positions up to it;
            a source whose log has unused positions (PostgreSQL may leave some) copies to other
            positions, and its seals from there on, with their checkpoints, stay behind: the
            output says how many and why, and 'evtool seal' on the target seals the copy.
            """,
        examples: ["evtool migrate --from sqlite:./evtool.sqlite --to postgres://app@db.internal/evtool"],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 0)
            // A PostgreSQL location without schema= is in $EVTOOL_SCHEMA, as --store is.
            let from = try arguments.required(fromStore).inDefaultSchema()
            let to = try arguments.required(toStore).inDefaultSchema()
            guard !from.isSameStore(as: to) else {
                throw CLIError.usage("'--from' \(from) and '--to' \(to) name the same store", arguments.command)
            }
            let source = try from.open(create: false)
            let target = try to.openForCopying()
            var display = ProgressRenderer()
            Interrupt.install()
            let outcome = try Migration.run(
                from: source, to: target, batchSize: try arguments.required(batch),
                stage: { stage in
                    switch stage {
                    case .resuming(let cursor): console.info("resuming after source position \(cursor)")
                    case .verifying: console.info("verifying: reading both logs in order")
                    case .rebuildingViews: console.info("rebuilding the views in \(to)")
                    }
                },
                progress: { display.render($0, console: &console) },
                shouldStop: { Interrupt.isRequested }, sourceName: Migration.name(of: from))
            let sourceDigest = outcome.digest
            let trail = outcome.auditTrail
            if arguments.flag("json") {
                return try console.output(JSONOutput.object { writer in
                    writer.key("events"); writer.number(sourceDigest.count)
                    writer.key("copied"); writer.number(outcome.copied)
                    writer.key("alreadyThere"); writer.number(sourceDigest.count - outcome.copied)
                    writer.key("from"); writer.string("\(from)")
                    writer.key("to"); writer.string("\(to)")
                    writer.key("sha256"); writer.string(sourceDigest.hex)
                    writer.key("viewsRebuilt"); writer.bool(true)
                    writer.key("seals"); writer.number(trail.seals)
                    writer.key("checkpoints"); writer.number(trail.checkpoints)
                    writer.key("sealsLeftBehind"); writer.number(trail.sealsLeft)
                    writer.key("checkpointsLeftBehind"); writer.number(trail.checkpointsLeft)
                    if let reason = trail.reason { writer.key("leftBehindBecause"); writer.string(reason) }
                })
            }
            try console.output("migrated \(sourceDigest.count.counted("event")) from \(from) to \(to) (copied \(String(outcome.copied).groupedThousands), already there \(String(sourceDigest.count - outcome.copied).groupedThousands)); both logs hold the same events in the same order (SHA-256 \(sourceDigest.hex)); views rebuilt")
            try console.output("carried the source's \(trail.seals.counted("seal")) and \(trail.checkpoints.counted("recorded checkpoint")) (signed by its keys)")
            if let reason = trail.reason {
                try console.output("left behind \(trail.sealsLeft.counted("seal")) and \(trail.checkpointsLeft.counted("recorded checkpoint")) of the source: \(reason); 'evtool seal --store \(to)' seals the target")
            }
        })
}
