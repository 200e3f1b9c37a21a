import Commands
import EventLog
import Foundation
import Projections
import StoreSQLite

/// `evtool verify|seal|forget`: the audit trail (docs/AUDIT.md).
enum AuditCommands {
    static let verify = CommandSpec(
        name: "verify", summary: "Re-check every event's hash chain and every seal; report OK or the first problem",
        usage: "[--stream ID] [--checkpoint FILE [--public-key KEY]] [--store STORE]",
        options: [
            .init(name: "stream", value: "ID", help: "Verify only this stream's chain (seals, which cover every stream, are not checked)"),
            .init(name: "checkpoint", value: "FILE", help: "Also prove that the log extends this checkpoint (from 'evtool seal --key')"),
            .init(name: "public-key", value: "KEY", help: "Check the checkpoint's Ed25519 signature with this public key (PEM)"),
            CommandSpec.storeOption,
        ],
        discussion: """
            Reads the log in position order, in bounded memory (one batch of events plus each
            stream's version and hash: memory grows with the number of streams, not of events),
            recomputes every event's hash, checks that each stream's versions run 1, 2, 3 … and
            that every seal matches the streams' heads as of its position. Prints
            'OK: N events in M streams, K seals verified', or the first event (or seal) that was
            modified, deleted, inserted or reordered, with its position and stream.

            What happened after the last seal is protected only by the per-stream chains: run
            'evtool seal' regularly and keep the printed seal hashes outside the store.

            With --checkpoint, also proves with a Merkle consistency proof that the first N
            events (N the checkpoint's tree size) are still the ones the checkpoint covers and
            that today's log extends them: a truncated log, an event below the checkpoint
            modified, removed, inserted or reordered, seals rewritten with it, or a fork are each
            named (exit 65). With --public-key, a forged or changed checkpoint is refused first.

            Exit codes: 0 the log verifies; 65 it does not (tampered or damaged); 66 the store is
            not an evtool store; 67 the store holds no events and no seals (nothing was verified:
            most likely the wrong store); 69 the store cannot be opened; 78 the store was written
            by a newer evtool.
            """,
        examples: ["evtool verify", "evtool verify --stream user-42 --store postgres://auditor@db/evtool"],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 0)
            let location = try StoreLocation.resolve(arguments)
            let checkpoint = try arguments.value("checkpoint").map { try CheckpointCheck.prepare($0, publicKey: arguments.value("public-key")) }
            if checkpoint == nil, arguments.value("public-key") != nil {
                throw CLIError.usage("'--public-key' checks a '--checkpoint'", arguments.command)
            }
            if checkpoint != nil, arguments.value("stream") != nil {
                throw CLIError.usage("'--checkpoint' covers the whole log, not one '--stream'", arguments.command)
            }
            let store = try openForAudit(location)
            var verifier = try LogVerifier(store: store)
            do {
                if let stream = arguments.value("stream") {
                    let report = try verifier.verifyStream(stream)
                    guard report.events > 0 else {
                        throw CLIError(message: "stream '\(stream)' has no events in \(location): nothing to verify (stream ids are compared byte for byte)", code: .emptyStore)
                    }
                    let erased = report.erasedEvents > 0 ? " (\(report.erasedEvents) erased, accepted by their kept digests)" : ""
                    try console.output("OK: \(report.events) events in stream '\(TerminalText.escaped(stream))'\(erased); seals not checked (--stream)")
                    return
                }
                let seals = try (store as? any AuditableEventStore)?.seals() ?? []
                guard try store.headPosition() > 0 || !seals.isEmpty else {
                    throw CLIError(message: "\(location) holds no events and no seals: nothing to verify (is this the right store?)", code: .emptyStore)
                }
                let head = try store.headPosition()
                var progress = Progress(label: "verify", total: head, console: console)
                let report = try verifier.verifyLog { position in if head >= 100_000 { progress.update(position, console: &console) } }
                if head >= 100_000 { progress.finish(console: &console) }
                // The checkpoint kept outside first (it trusts nothing the store derived), then the
                // store's kept tree and recorded checkpoints.
                let path = arguments.value("checkpoint")
                let consistency = try checkpoint.map { try CheckpointCheck.run(store: store, checkpoint: $0.checkpoint, path: path ?? "", signature: $0.signature) }
                try checkKeptTree(store)
                try checkRecordedCheckpoints(store, logSize: UInt64(report.events))
                guard let checkpoint, let path, let consistency else {
                    try console.output(okLine(report))
                    return
                }
                let recorded: Int64?
                do {
                    recorded = try RecordedCheckpointCheck.match(store, external: checkpoint.checkpoint)
                } catch let failure as RecordedCheckpointFailure {
                    throw CLIError(message: "the log fails checkpoint '\(path)': \(failure)", code: .invalidData)
                }
                try console.output(okLine(report) + "; " + consistency + (recorded.map { "; recorded in the store as checkpoint \($0)" } ?? ""))
            } catch let failure as VerificationFailure {
                throw CLIError(message: "the log fails verification: \(failure)", code: .invalidData)
            }
        })

    static let seal = CommandSpec(
        name: "seal", summary: "Verify the whole log, then record a seal over every stream's head",
        usage: "[--key PRIVATE.pem] [--checkpoint-out FILE] [--store STORE] | --list [--store STORE]",
        options: [
            .init(name: "key", value: "PRIVATE.pem", help: "Also print a checkpoint of the log's Merkle tree signed with this Ed25519 key ('evtool keys create'), and record it in the store"),
            .init(name: "checkpoint-out", value: "FILE", help: "Also write the checkpoint to FILE (unsigned without --key)"),
            .init(name: "list", value: nil, help: "Seal nothing: list the checkpoints the store recorded (one a line, then each checkpoint's text)"),
            CommandSpec.storeOption,
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
                try listCheckpoints(try StoreLocation.resolve(arguments), console: &console)
                return
            }
            let key = try arguments.value("key").map { try AuditFiles.key($0, "private key") }
            if let key, key.privateKey == nil { throw CLIError(message: "'--key' needs the private key, not the public one", code: .invalidData) }
            let location = try StoreLocation.resolve(arguments)
            guard let store = try openForAudit(location) as? any AuditableEventStore else {
                throw CLIError(message: "the store \(location) cannot keep seals", code: .unavailable)
            }
            guard try store.headPosition() > 0 else {
                throw CLIError(message: "\(location) holds no events: nothing to seal", code: .emptyStore)
            }
            var verifier = try LogVerifier(store: store)
            let report: VerificationReport
            do {
                let head = try store.headPosition()
                var progress = Progress(label: "verify", total: head, console: console)
                report = try verifier.verifyLog { position in if head >= 100_000 { progress.update(position, console: &console) } }
                if head >= 100_000 { progress.finish(console: &console) }
                try checkKeptTree(store)
            } catch let failure as VerificationFailure {
                throw CLIError(message: "the log fails verification, so it was not sealed: \(failure)", code: .invalidData)
            }
            let seal = Seal.make(after: try store.seals().last, position: report.head, events: report.events, heads: report.heads)
            try store.addSeal(seal)
            try console.output("sealed: seal \(seal.number) at position \(seal.position) (\(seal.events) events in \(seal.streams) streams) \(seal.hash)")
            guard key != nil || arguments.value("checkpoint-out") != nil else { return }
            var checkpoint = Checkpoint(size: UInt64(report.events), root: try LogTree.root(of: store, size: UInt64(report.events)), time: seal.sealedAt)
            if let key {
                try checkpoint.sign(with: key)
                _ = try (store as? any CheckpointRecording)?.recordCheckpoint(seal: seal.number, checkpoint: checkpoint)
            }
            if let out = arguments.value("checkpoint-out") {
                do {
                    try Data(checkpoint.text.utf8).write(to: URL(fileURLWithPath: out), options: .atomic)
                } catch {
                    throw CLIError(message: "the seal was recorded, but the checkpoint could not be written to '\(out)': \(error.localizedDescription)", code: .failure)
                }
            }
            if key != nil { try console.output(String(checkpoint.text.dropLast())) }
        })

    static let forget = CommandSpec(
        name: "forget", summary: "Erase a user: replace their events' payloads with tombstones, record who and why, rebuild views",
        usage: "--user ID --reason TEXT [--by OPERATOR] [--store STORE]",
        options: [
            .init(name: "user", value: "ID", help: "The user (their stream) to erase"),
            .init(name: "reason", value: "TEXT", help: "Why, e.g. a ticket or the legal basis; kept in the log"),
            .init(name: "by", value: "OPERATOR", help: "Who erases (default: $USER)"),
            CommandSpec.storeOption,
        ],
        discussion: """
            In one transaction, keeps the SHA-256 of each of the user's payloads (so the chain still
            verifies), replaces data and metadata with {"erased":true}, and appends a UserErased
            event (stream, count, who, why; never the erased data) to the stream '$erasures'. Then
            rebuilds every view, and on SQLite rewrites the file (VACUUM) and empties the WAL so
            that the erased bytes are gone from the file. Backups taken before keep the data:
            see docs/AUDIT.md.
            """,
        examples: ["evtool forget --user user-42 --reason 'GDPR request #1234' --by alice"],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 0)
            let typed = try arguments.required("user")
            let reason = try arguments.required("reason")
            guard !reason.trimmingCharacters(in: .whitespaces).isEmpty else { throw CLIError.usage("'--reason' must say why", arguments.command) }
            let by = arguments.value("by") ?? ProcessInfo.processInfo.environment["USER"] ?? "unknown"
            let location = try StoreLocation.resolve(arguments)
            let store = try location.openForViews()
            guard let auditable = store as? any AuditableEventStore else {
                throw CLIError(message: "the store \(location) cannot erase users", code: .unavailable)
            }
            let user = try UserStream.existing(typed: typed, in: store)
            let outcome = try auditable.erase(Erasure.Request(stream: UserStream.id(for: user), reason: reason, operatorName: by))
            try Projector(store: store).rebuild()
            var compacted = ""
            if let file = store as? SQLiteEventStore {
                compacted = try file.compact() ? "; file rewritten and WAL emptied" : "; file rewritten (the WAL could not be emptied while other connections read it: run 'evtool forget' again later or stop them)"
            }
            try console.output("erased \(outcome.erasedEvents) events of user '\(TerminalText.escaped(user))' (recorded as UserErased at position \(outcome.position)); views rebuilt\(compacted)")
        })

    static func okLine(_ report: VerificationReport) -> String {
        let erased = report.erasedEvents > 0 ? " (\(report.erasedEvents) erased, accepted by their kept digests)" : ""
        return "OK: \(report.events) events in \(report.streams) streams, \(report.seals) seals verified\(erased)"
    }

    /// Checks every checkpoint the store recorded against the log (verify).
    /// - Throws: ``CLIError`` (exit 65) naming the first that does not hold.
    static func checkRecordedCheckpoints(_ store: any EventStore, logSize: UInt64) throws {
        do {
            try RecordedCheckpointCheck.verify(store, logSize: logSize)
        } catch let failure as RecordedCheckpointFailure {
            throw CLIError(message: "the log fails verification: \(failure)", code: .invalidData)
        }
    }

    /// `seal --list`: one line per recorded checkpoint, then its text.
    static func listCheckpoints(_ location: StoreLocation, console: inout Console) throws {
        guard let store = try openForAudit(location) as? any CheckpointRecording else {
            throw CLIError(message: "the store \(location) records no checkpoints", code: .unavailable)
        }
        let recorded = try store.recordedCheckpoints()
        guard !recorded.isEmpty else {
            console.message("No checkpoints recorded (each 'evtool seal --key' records one)")
            return
        }
        for entry in recorded {
            try console.output("checkpoint \(entry.number): seal \(entry.seal), \(entry.size) events, recorded \(entry.recordedAt)")
            try console.output(String(entry.note.dropLast()))
            try console.output("")
        }
    }

    /// Extends the store's kept Merkle tree and checks it against the log (verify, seal).
    /// - Throws: ``CLIError`` (exit 65) naming the first kept subtree that is not the log's.
    static func checkKeptTree(_ store: any EventStore) throws {
        do {
            try KeptTreeCheck.extendAndVerify(store)
        } catch let failure as KeptTreeFailure {
            throw CLIError(message: "the log fails verification: \(failure)", code: .invalidData)
        }
    }

    /// Opens a store for verify and seal, telling apart what is not a store and a newer schema.
    static func openForAudit(_ location: StoreLocation) throws -> any EventStore {
        do {
            return try location.open(create: false)
        } catch let error as EventStoreError {
            switch error {
            case .corrupt(let reason) where reason.contains("not an SQLite database") || reason.contains("not an evtool store"):
                throw CLIError(message: "\(location) is not an evtool store (\(reason)); nothing was verified", code: .notAStore)
            case .newerSchema:
                throw CLIError(message: "\(error.description); nothing was verified", code: .newerSchema)
            default:
                throw error
            }
        }
    }
}
