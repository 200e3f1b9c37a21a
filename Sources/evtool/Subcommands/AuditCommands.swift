import Audit
import Commands
import EventLog
import Foundation
import JSONKit
import Projections
import StoreSQLite

/// `evtool verify|seal|forget`: the audit trail (docs/explanation/audit.md).
enum AuditCommands {
    static let forgetUser = SharedOptions.user(help: "The user (their stream) to erase")

    static let verify = CommandSpec(
        name: "verify", summary: "Re-check every event's hash chain and every seal; report OK or the first problem",
        usage: "[--stream ID] [--checkpoint FILE [--public-key KEY]] [--archive FILE…] [--quiet] [--json] [--store STORE]",
        options: [
            .init(name: "stream", value: "ID", help: "Verify only this stream's chain (seals, which cover every stream, are not checked)"),
            .init(name: "archive", value: "FILE", help: "After 'evtool archive': verify the archive files (every archive's, oldest first) and the rest of the log together", repeatable: true),
            .init(name: "checkpoint", value: "FILE", help: "Also prove that the log extends this checkpoint (from 'evtool seal --key')"),
            .init(name: "public-key", value: "KEY", help: "Check the checkpoint's Ed25519 signature with this public key (PEM)"),
            SharedOptions.quiet, CommandSpec.storeOption, CommandSpec.jsonOption,
        ],
        discussion: """
            Reads the log in position order, in bounded memory (one batch of events plus each
            stream's version and hash: memory grows with the number of streams, not of events),
            recomputes every event's hash, checks that each stream's versions run 1, 2, 3 … and
            that every seal matches the streams' heads as of its position. Prints
            'OK: N events in M streams, K seals verified', or the first event (or seal) that was
            modified, deleted, inserted or reordered, with its position and stream.

            After the last seal, the per-stream chains and the kept Merkle tree (events removed or
            reordered across streams, named against its leaves) protect the log from edits that
            leave them be; someone who can rewrite the store can rewrite both: run 'evtool seal'
            regularly and keep the printed seal hashes or signed checkpoints outside the store.

            With --checkpoint, also proves with a Merkle consistency proof that the first N
            events (N the checkpoint's tree size) are still the ones the checkpoint covers and
            that today's log extends them: a truncated log, an event below the checkpoint
            modified, removed, inserted or reordered, seals rewritten with it, or a fork are each
            named (exit 65). With --public-key, a forged or changed checkpoint is refused first.

            After 'evtool archive', the kept log is verified from the archive boundary, with each
            stream's head there carried over, and the OK line counts only the events checked and
            names the archived ones it did not check ('OK: 372 events from position 100 …; 99
            archived events (positions 1–99) not checked'; with --stream, the stream's archived
            events); with --archive (every archive's file, oldest first) the files are verified
            too, each against the SHA-256 the store recorded, and the log as one from its first
            event.

            Exit codes: 0 the log verifies; 65 it does not (tampered or damaged); 66 the store is
            not an evtool store; 67 the store holds no events and no seals (nothing was verified:
            most likely the wrong store); 68 the store is an incomplete copy (a migrate into it
            stopped before it copied the erasure record that covers tombstones it holds: the message
            names the migrate that completes it); 69 the store cannot be opened; 78 the store was
            written by a newer evtool.
            """,
        examples: ["evtool verify", "evtool verify --stream user-42 --store postgres://auditor@db/evtool"],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 0)
            let location = try StoreLocation.resolve(arguments)
            let checkpoint = try arguments.value("checkpoint").map { path in
                let prepared = try CheckpointCheck.prepare(path, publicKey: arguments.value("public-key"))
                return (checkpoint: prepared.checkpoint, path: path, signature: prepared.signature)
            }
            if checkpoint == nil, arguments.value("public-key") != nil {
                throw CLIError.usage("'--public-key' checks a '--checkpoint'", arguments.command)
            }
            if !arguments.all("archive").isEmpty, arguments.value("stream") != nil {
                throw CLIError.usage("'--archive' verifies the whole log, not one '--stream'", arguments.command)
            }
            if checkpoint != nil, arguments.value("stream") != nil {
                throw CLIError.usage("'--checkpoint' covers the whole log, not one '--stream'", arguments.command)
            }
            let store = try LogAudit.open(location)
            if let stream = arguments.value("stream") {
                let report = try LogAudit.verifyStream(stream, in: store, location: location)
                if arguments.flag("json") {
                    return try console.output(JSONOutput.object { writer in
                        writer.key("ok"); writer.bool(true)
                        writer.key("stream"); writer.string(stream)
                        writer.key("events"); writer.number(report.checkedEvents)
                        writer.key("archivedNotChecked"); writer.number(report.uncheckedArchivedEvents)
                        writer.key("erasedEvents"); writer.number(report.erasedEvents)
                    })
                }
                let erased = report.erasedEvents > 0 ? " (\(report.erasedEvents) erased, accepted by their kept digests)" : ""
                let archived = report.uncheckedArchivedEvents > 0
                    ? "; \(report.uncheckedArchivedEvents.counted("archived event")) of the stream (versions 1–\(report.uncheckedArchivedEvents), below position \(report.firstCheckedPosition)) not checked: 'evtool verify --archive FILE…' checks the whole log"
                    : ""
                try console.output("OK: \(report.checkedEvents.counted("event")) in stream '\(TerminalText.escaped(stream))'\(erased); seals not checked (--stream)\(archived)")
                return
            }
            var display = ProgressRenderer(minimumTotal: 100_000)
            let verified = try LogAudit.verify(store, location: location, checkpoint: checkpoint, archives: arguments.all("archive"),
                                               progress: { display.render($0, console: &console) })
            if arguments.flag("json") { return try console.output(verifiedJSON(verified.report, checkpoint: verified.consistency)) }
            try console.output(okLine(verified.report) + (verified.consistency.map { "; " + $0 } ?? ""))
        })

    static let seal = CommandSpec(
        name: "seal", summary: "Verify the whole log, then record a seal over every stream's head",
        usage: "[--key PRIVATE.pem] [--checkpoint-out FILE] [--quiet] [--json] [--store STORE] | --list [--store STORE]",
        options: [
            .init(name: "key", value: "PRIVATE.pem", help: "Also print a checkpoint of the log's Merkle tree signed with this Ed25519 key ('evtool keys create'), and record it in the store"),
            .init(name: "checkpoint-out", value: "FILE", help: "Also write the checkpoint to FILE (unsigned without --key)"),
            .init(name: "list", value: nil, help: "Seal nothing: list the checkpoints the store recorded (one a line, then each checkpoint's text)"),
            SharedOptions.quiet, CommandSpec.storeOption, CommandSpec.jsonOption,
        ],
        discussion: """
            A seal is a SHA-256 over every stream's (id, version, hash) as of the verified head,
            chained to the seal before it. Later, 'evtool verify' detects a whole stream deleted,
            the log truncated, or a stream's last events removed before that position. The seal's
            hash is printed: keep it somewhere the store's administrators cannot write (a ticket,
            the auditor's notes), since someone who can rewrite the store can rewrite its seals.

            With --key, also prints a checkpoint: the size and RFC 9162 Merkle root of the tree
            over the sealed events' chain hashes, the seal's time, and an Ed25519 signature, as a
            C2SP signed note. Publish it (or hand it to an auditor): 'evtool verify --checkpoint'
            and 'evtool check-proof' check the store and proofs against it, and someone who can
            rewrite the store cannot make another checkpoint without the private key. The store
            records each signed checkpoint ('evtool seal --list' shows them; 'evtool verify' checks
            each against the log).
            """,
        examples: ["evtool seal", "evtool seal --store postgres://owner@db/evtool",
                   "evtool seal --key ~/.evtool-keys/checkpoint-key.pem --checkpoint-out cp.txt"],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 0)
            if arguments.flag("list") {
                guard arguments.value("key") == nil, arguments.value("checkpoint-out") == nil else {
                    throw CLIError.usage("'--list' seals nothing: it takes no '--key' or '--checkpoint-out'", arguments.command)
                }
                guard !arguments.flag("json") else {
                    throw CLIError.usage("'--list' prints the checkpoints as recorded (text); '--json' is for a seal's outcome", arguments.command)
                }
                try listCheckpoints(try StoreLocation.resolve(arguments), console: &console)
                return
            }
            let key = try arguments.value("key").map { try AuditFiles.key($0, "private key") }
            if let key, key.privateKey == nil { throw CLIError(message: "'--key' needs the private key, not the public one", code: .invalidData) }
            // A path that cannot take the checkpoint is refused before anything is sealed.
            if let out = arguments.value("checkpoint-out") { try AuditFiles.checkReplaceable(out, what: "checkpoint", earlier: .checkpoint) }
            let location = try StoreLocation.resolve(arguments)
            var display = ProgressRenderer(minimumTotal: 100_000)
            let sealing = try LogAudit.seal(try LogAudit.open(location), location: location, key: key, makeCheckpoint: arguments.value("checkpoint-out") != nil,
                                            progress: { display.render($0, console: &console) })
            let seal = sealing.seal
            let json = arguments.flag("json")
            if !json { try console.output("sealed: seal \(seal.number) at position \(seal.position) (\(seal.events.counted("event")) in \(seal.streams.counted("stream"))) \(seal.hash)") }
            if let out = arguments.value("checkpoint-out"), let checkpoint = sealing.checkpoint {
                do {
                    try AuditFiles.replace(out, with: checkpoint.text, what: "checkpoint", earlier: .checkpoint)
                } catch {
                    throw CLIError(message: "the seal was recorded, but the checkpoint was not written: \(error)", code: .failure)
                }
            }
            if json {
                var writer = JSONWriter()
                sealing.write(to: &writer)
                return try console.output(writer.text)
            }
            guard let checkpoint = sealing.checkpoint else { return }
            if key != nil { try console.output(String(checkpoint.text.dropLast())) }
        })

    static let forget = CommandSpec(
        name: "forget", summary: "Erase a user: replace their events' payloads with tombstones, record who and why, rebuild views",
        usage: "--user ID --reason TEXT [--by OPERATOR] [--archive FILE…] [--json] [--store STORE]",
        options: [
            forgetUser.declaration,
            .init(name: "reason", value: "TEXT", help: "Why, e.g. a ticket or the legal basis; kept in the log"),
            .init(name: "by", value: "OPERATOR", help: "Who erases, kept in the log (default: $USER; with neither, forget refuses)"),
            .init(name: "archive", value: "FILE", help: "After 'evtool archive': every archive's file, oldest first (verified with the log first), to rebuild the views from; the files are not changed", repeatable: true),
            CommandSpec.storeOption, CommandSpec.jsonOption,
        ],
        discussion: """
            In one transaction, keeps the SHA-256 of each of the user's payloads (so the chain still
            verifies), replaces data and metadata with {"erased":true}, and appends a UserErased
            event (stream, count, who, why; never the erased data) to the stream '$erasures'; the
            same transaction deletes the view documents that hold the user's data. Then rebuilds
            every view, and on SQLite rewrites the file (VACUUM) and empties the WAL so that the
            erased bytes are gone from the file. Backups taken before keep the data: see
            docs/explanation/audit.md.
            A user with nothing left to erase gets nothing recorded (exit 0, naming the erasure
            that covers them); the views are rebuilt and the file rewritten all the same.
            Ctrl-C after the erasure stops the rebuild at a batch boundary (exit 130): the views
            are not rebuilt and the file not rewritten (erased bytes may remain in its free
            pages) until the same forget is run again.
            On a store with archives ('evtool archive') forget needs every archive's file
            (--archive FILE, oldest first): it erases the kept events and the decision state kept
            at the boundary, and rebuilds the views from the files and the kept log without the
            user's archived events. It does not change the files: it names those that still hold
            the user's events.
            """,
        examples: ["evtool forget --user user-42 --reason 'GDPR request #1234' --by alice"],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 0)
            let typed = try arguments.required(forgetUser)
            let reason = try arguments.required("reason")
            guard !reason.trimmingCharacters(in: .whitespaces).isEmpty else { throw CLIError.usage("'--reason' must say why", arguments.command) }
            let by = try Operator.named(arguments.value("by"), environment: ProcessInfo.processInfo.environment, command: arguments.command)
            let location = try StoreLocation.resolve(arguments)
            Interrupt.install()
            let forgotten = try LogAudit.forget(user: typed, reason: reason, by: by, in: location, archives: arguments.all("archive"),
                                                shouldStop: { Interrupt.isRequested })
            if arguments.flag("json") {
                var writer = JSONWriter()
                forgotten.write(to: &writer)
                return try console.output(writer.text)
            }
            let compacted = forgotten.walEmptied.map { $0 ? "; file rewritten and WAL emptied" : "; file rewritten (the WAL could not be emptied while other connections read it: run 'evtool forget' again later or stop them)" } ?? ""
            let views = arguments.all("archive").isEmpty ? "views rebuilt" : "views rebuilt from the archive files and the kept log"
            guard forgotten.outcome.recorded else {
                return try console.output("user '\(TerminalText.escaped(forgotten.user))' has no events to erase (erased by the UserErased at position \(forgotten.position)); nothing recorded; \(views)\(compacted)")
            }
            try console.output("erased \(forgotten.erasedEvents.counted("event")) of user '\(TerminalText.escaped(forgotten.user))' (recorded as UserErased at position \(forgotten.position)); \(views)\(compacted)")
            if !forgotten.archived.isEmpty {
                let files = forgotten.archived.map { "'\(TerminalText.escaped($0.file))' (archive \($0.archive): \($0.events.counted("event")))" }.joined(separator: ", ")
                let total = forgotten.archived.reduce(0) { $0 + $1.events }
                try console.output("not erased: \(total.counted("archived event")) of the user in \(files); evtool does not rewrite an archive file (the store records its SHA-256), and views never fold them again; those files still hold the user's data: keep them under the rules for backups, destroy them when those allow (then 'verify --archive' and 'rebuild --archive' cannot run), and run this forget again on any store they are imported into")
            }
        })

    /// verify --json: what was verified (docs/schemas/verify.schema.json).
    static func verifiedJSON(_ report: VerificationReport, checkpoint: String?) -> String {
        JSONOutput.object { writer in
            writer.key("ok"); writer.bool(true)
            writer.key("events"); writer.number(report.checkedEvents)
            writer.key("firstPosition"); writer.number(report.firstCheckedPosition)
            writer.key("archivedNotChecked"); writer.number(report.uncheckedArchivedEvents)
            writer.key("streams"); writer.number(report.streams)
            writer.key("seals"); writer.number(report.seals)
            writer.key("erasedEvents"); writer.number(report.erasedEvents)
            writer.key("head"); writer.number(report.head)
            writer.key("checkpoint"); writer.string(checkpoint)
        }
    }

    static func okLine(_ report: VerificationReport) -> String { LogAudit.summary(report) }

    /// `seal --list`: one line per recorded checkpoint, then its text.
    static func listCheckpoints(_ location: StoreLocation, console: inout Console) throws {
        let recorded = try LogAudit.recordedCheckpoints(try LogAudit.open(location), location: location)
        guard !recorded.isEmpty else {
            console.message("No checkpoints recorded (each 'evtool seal --key' records one)")
            return
        }
        for entry in recorded {
            try console.output("checkpoint \(entry.number): seal \(entry.seal), \(entry.size.counted("event")), recorded \(entry.recordedAt)")
            try console.output(String(entry.note.dropLast()))
            try console.output("")
        }
    }
}
