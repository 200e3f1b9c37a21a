import EventLog
import EvtoolKit
import Foundation
import Projections

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
    static let batch = TypedOption.integer("batch", help: "Events per transaction (default 1,000)", in: 1...100_000, default: 1_000)
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
            let store = try StoreLocation.resolve(arguments).open(create: false)
            var count = 0
            var cursor = from
            while cursor < to {
                let batch = try store.readAll(after: cursor, limit: 1_000)
                guard let last = batch.last else { break }
                for event in batch where event.position <= to {
                    try console.output(LogRecord.line(for: event, format: format))
                    count += 1
                }
                cursor = last.position
            }
            try console.flush()
            console.info("exported \(count.counted("event", grouped: true))")
        })

    static let `import` = CommandSpec(
        name: "import", summary: "Append the events of an export file (idempotent, resumable, atomic per batch)",
        usage: "FILE|- [--batch N] [--quiet] [--store STORE]",
        arguments: [("FILE", "A JSON Lines or CloudEvents export; '-' for standard input")],
        options: [batch.declaration, SharedOptions.quiet, CommandSpec.storeOption],
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
            """,
        examples: ["evtool import backup.jsonl --store postgres://app@db/evtool", "gunzip -c slice.jsonl.gz | evtool import -"],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 1)
            guard let path = arguments.positional.first else { throw CLIError.usage("name the file to import, or '-' for standard input", arguments.command) }
            let source = try InputSource(path, what: "import")
            let location = try StoreLocation.resolve(arguments)
            let target = try location.openForCopying()
            var copier = EventCopier(store: target, batchSize: try arguments.required(batch))
            var reader = LineReader(source: source)
            Interrupt.install()
            do {
                while let line = try reader.next() {
                    if line.isEmpty || line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
                    let item: LogRecord.Imported
                    do { item = try LogRecord.parse(line) } catch let error as LogRecord.LineError {
                        try copier.flush(through: reader.lineNumber - 1)
                        throw CLIError(message: "line \(reader.lineNumber): \(error.reason) (nothing from this line on was imported; \(copier.appended.counted("event")) \(copier.appended == 1 ? "was" : "were"))", code: .invalidData)
                    }
                    let committedBefore = copier.appended + copier.skipped
                    try copier.add(item, source: reader.lineNumber)
                    // Stop right after a batch was committed (or an event found already there).
                    if copier.appended + copier.skipped != committedBefore, !copier.hasPending, Interrupt.isRequested {
                        throw CLIError(message: "interrupted after importing \(copier.appended.counted("event")) (through line \(reader.lineNumber)); run the same import again to resume", code: .interrupted)
                    }
                }
                try copier.flush(through: reader.lineNumber)
            } catch let error as EventCopier.CopyError {
                throw CLIError(message: "line \(error.source): \(error.reason)", code: exitCode(error.underlying))
            }
            try console.output("imported \(copier.appended.counted("event")), skipped \(copier.skipped) already present, into \(location)")
        })

    static let migrate = CommandSpec(
        name: "migrate", summary: "Copy a whole deployment to another store, verify it, and rebuild its views",
        usage: "--from STORE --to STORE [--batch N] [--quiet]",
        options: [
            fromStore.declaration, toStore.declaration, batch.declaration, SharedOptions.quiet,
        ],
        discussion: """
            Resumable: the target is always a copy of a prefix of the source, so rerunning after an
            interruption carries on where it stopped. At the end both logs are read in order and
            compared (count and a SHA-256 digest of every event), then the target's views are rebuilt.
            """,
        examples: ["evtool migrate --from sqlite:./evtool.sqlite --to postgres://app@db.internal/evtool"],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 0)
            let from = try arguments.required(fromStore)
            let to = try arguments.required(toStore)
            guard from != to else { throw CLIError.usage("'--from' and '--to' name the same store", arguments.command) }
            let source = try from.open(create: false)
            let target = try to.openForCopying()
            var copier = EventCopier(store: target, batchSize: try arguments.required(batch),
                                     unit: "source position", verb: "copied")
            let head = try source.headPosition()
            var cursor = try Migration.resumePosition(source: source, target: target)
            if cursor > 0 { console.info("resuming after source position \(cursor)") }
            var progress = Progress(label: "migrate", total: head, console: console)
            Interrupt.install()
            do {
                while true {
                    let batch = try source.readAll(after: cursor, limit: copier.batchSize)
                    guard let last = batch.last else { break }
                    for event in batch {
                        try copier.add(LogRecord.Imported(stream: event.streamID, version: event.version, event: ProposedEvent(
                            id: event.id, type: event.type, data: event.data, metadata: event.metadata, recordedAt: event.recordedAt), hash: event.hash),
                                       source: Int(event.position))
                    }
                    try copier.flush(through: Int(last.position))
                    cursor = last.position
                    progress.update(cursor, console: &console)
                    if Interrupt.isRequested {
                        progress.finish(console: &console)
                        throw CLIError(message: "interrupted after copying through source position \(cursor); run the same migrate again to resume", code: .interrupted)
                    }
                }
            } catch let error as EventCopier.CopyError {
                progress.finish(console: &console)
                throw CLIError(message: "source position \(error.source): \(error.reason)", code: exitCode(error.underlying))
            }
            progress.update(head, console: &console, force: true)
            progress.finish(console: &console)
            console.info("verifying: reading both logs in order")
            let sourceDigest = try Migration.verify(source: source, target: target)
            console.info("rebuilding the views in \(to)")
            guard let viewsStore = target as? any EventStore & ProjectionStore else { throw CLIError(message: "the target cannot hold views", code: .unavailable) }
            try Projector(store: viewsStore).rebuild()
            try console.output("migrated \(sourceDigest.count.counted("event")) from \(from) to \(to) (copied \(copier.appended), already there \(sourceDigest.count - copier.appended)); both logs hold the same events in the same order (SHA-256 \(sourceDigest.hex)); views rebuilt")
        })

    /// The exit code for a copy's failure: the store's, or 65 (the data is refused).
    static func exitCode(_ error: (any Error)?) -> ExitCode {
        if let error = error as? EventStoreError { return ExitCode(error) }
        return .invalidData
    }
}
