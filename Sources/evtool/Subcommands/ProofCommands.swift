import EventLog
import Foundation

/// `evtool prove` and `evtool check-proof`: inclusion and consistency proofs over the log's
/// Merkle tree, made from a store and checked without one (docs/AUDIT.md).
enum ProofCommands {
    static let prove = CommandSpec(
        name: "prove", summary: "Print an inclusion proof for one event, or a consistency proof between two checkpoints",
        usage: "--event ID [--checkpoint FILE] | --from CHECKPOINT --to CHECKPOINT [--store STORE]",
        options: [
            .init(name: "event", value: "ID", help: "The event to prove (its id, as 'evtool log' prints it)"),
            .init(name: "checkpoint", value: "FILE", help: "Prove it in this checkpoint's tree (default: the whole log of now)"),
            .init(name: "from", value: "CHECKPOINT", help: "The older checkpoint of a consistency proof"),
            .init(name: "to", value: "CHECKPOINT", help: "The newer checkpoint of a consistency proof"),
            CommandSpec.storeOption,
        ],
        discussion: """
            An inclusion proof shows that one event is leaf I of the tree of N events (the
            audit path, O(log N) hashes): with a checkpoint of size N, anyone can check it with
            'evtool check-proof' and no store, and learns nothing of the other events. A
            consistency proof shows that the tree of the older checkpoint is a prefix of the
            newer one's. The store's tree must have the checkpoints' roots, or the command fails
            (exit 65) naming which. Extends the store's kept tree to the head, then reads O(log N)
            of its nodes (a store whose tree this user may not extend: the log, in position order).
            """,
        examples: ["evtool prove --event 0193a5c2-7d41-7c3e-9f00-1a2b3c4d5e6f --checkpoint cp-12.txt > proof.txt",
                   "evtool prove --from cp-12.txt --to cp-40.txt > consistency.txt"],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 0)
            let location = try StoreLocation.resolve(arguments)
            if let from = arguments.value("from") {
                let to = try arguments.required("to")
                guard arguments.value("event") == nil else { throw CLIError.usage("'--event' and '--from' are different proofs", arguments.command) }
                let older = try AuditFiles.checkpoint(from), newer = try AuditFiles.checkpoint(to)
                guard older.size > 0, older.size <= newer.size else {
                    throw CLIError(message: "no consistency proof from a tree of \(older.size) events to one of \(newer.size)", code: .invalidData)
                }
                let store = try AuditCommands.openForAudit(location)
                let built = try finish(location) { try LogTree.consistencyProof(of: store, from: older.size, to: newer.size) }
                try expect(built.fromRoot, of: older, from)
                try expect(built.root, of: newer, to)
                try console.output(String(ProofDocument.consistency(from: older.size, to: newer.size, path: built.proof).text.dropLast()))
                return
            }
            let idText = try arguments.required("event")
            guard let id = UUID(uuidString: idText) else { throw CLIError.usage("'\(idText)' is not an event id", arguments.command) }
            let checkpointPath = arguments.value("checkpoint")
            let checkpoint = try checkpointPath.map(AuditFiles.checkpoint)
            let store = try AuditCommands.openForAudit(location)
            guard let (index, event) = try LogTree.leaf(of: id, in: store) else {
                throw CLIError(message: "\(location) has no event \(idText)", code: .invalidData)
            }
            let size = try checkpoint?.size ?? LogTree.size(of: store)
            guard index < size else {
                throw CLIError(message: "event \(idText) is leaf \(index), after the checkpoint's \(size) events: seal again and prove it in the newer checkpoint", code: .invalidData)
            }
            let built = try finish(location) { try LogTree.inclusionProof(of: store, index: index, size: size, leafHash: try LogTree.leafHash(of: event)) }
            if let checkpoint, let checkpointPath { try expect(built.root, of: checkpoint, checkpointPath) }
            let previousHash = event.version > 1
                ? try store.read(stream: event.streamID, from: event.version - 1, direction: .forwards, limit: 1).first?.hash : EventChain.genesis.hexString
            guard let entry = [UInt8](hexadecimal: event.hash), let previous = previousHash.flatMap({ [UInt8](hexadecimal: $0) }) else {
                throw CLIError(message: "event \(idText) or the one before it in its stream has no valid chain hash", code: .invalidData)
            }
            try console.output(String(ProofDocument.inclusion(index: index, size: size, event: id, entry: entry, previous: previous, path: built.proof).text.dropLast()))
        })

    static let checkProof = CommandSpec(
        name: "check-proof", summary: "Check a proof against signed checkpoints, offline (no store)",
        usage: "PROOF --checkpoint FILE [--checkpoint NEWER] [--public-key KEY] [--event-file FILE]",
        arguments: [("PROOF", "A proof file printed by 'evtool prove'")],
        options: [
            .init(name: "checkpoint", value: "FILE", help: "The checkpoint the proof is for (a consistency proof: the older, then the newer)", repeatable: true),
            .init(name: "public-key", value: "KEY", help: "Check the checkpoints' Ed25519 signatures with this public key (PEM)"),
            .init(name: "event-file", value: "FILE", help: "The proven event as 'evtool export' prints it (one line): check that the proof is about this content"),
        ],
        discussion: """
            Needs no store: an auditor can hand a third party one event's inclusion proof, the
            checkpoint and the public key. An inclusion proof checks that the event with the
            proof's id and chain hash is leaf I of the checkpoint's tree; a consistency proof,
            that the older checkpoint's tree is a prefix of the newer one's. With --event-file,
            the event's chain hash is recomputed from its content (stream, version, id, type,
            time, data, metadata) and the proof's previous hash, and must be the proven leaf's:
            the proof is then about exactly that event. Exit 0 when it holds; 65 when it does
            not, naming why.
            """,
        examples: ["evtool check-proof proof.txt --checkpoint cp-12.txt --public-key checkpoint-key.pub.pem",
                   "evtool check-proof consistency.txt --checkpoint cp-12.txt --checkpoint cp-40.txt --public-key checkpoint-key.pub.pem"],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 1)
            guard let proofPath = arguments.positional.first else { throw CLIError.usage("the proof file is missing", arguments.command) }
            let proof = try AuditFiles.proof(proofPath)
            let paths = arguments.all("checkpoint")
            let checkpoints = try paths.map(AuditFiles.checkpoint)
            var notes: [String] = []
            for (checkpoint, path) in zip(checkpoints, paths) {
                notes.append(try AuditFiles.checkSignature(checkpoint, file: path, publicKey: arguments.value("public-key")))
            }
            do {
                switch proof {
                case .inclusion(let index, let size, let event, let entry, let previous, let path):
                    guard checkpoints.count == 1 else { throw CLIError.usage("an inclusion proof takes one '--checkpoint'", arguments.command) }
                    guard checkpoints[0].size == size else {
                        throw CLIError(message: "the proof is for a tree of \(size) events, the checkpoint's has \(checkpoints[0].size)", code: .invalidData)
                    }
                    try MerkleProof.verifyInclusion(leafHash: MerkleHash.leaf(entry), index: index, size: size, path: path, root: checkpoints[0].root)
                    var content = ""
                    if let file = arguments.value("event-file") {
                        try checkEventFile(file, event: event, entry: entry, previous: previous)
                        content = ", with the content of \(file)"
                    }
                    try console.output("OK: event \(event.lowercaseString) is leaf \(index) of the \(size) events of checkpoint \(paths[0]) (\(notes[0]))\(content)")
                case .consistency(let from, let to, let path):
                    guard checkpoints.count == 2 else { throw CLIError.usage("a consistency proof takes two '--checkpoint's: the older, then the newer", arguments.command) }
                    guard checkpoints[0].size == from, checkpoints[1].size == to else {
                        throw CLIError(message: "the proof is from \(from) to \(to) events, the checkpoints have \(checkpoints[0].size) and \(checkpoints[1].size)", code: .invalidData)
                    }
                    try MerkleProof.verifyConsistency(from: from, to: to, fromRoot: checkpoints[0].root, toRoot: checkpoints[1].root, path: path)
                    try console.output("OK: checkpoint \(paths[1]) (\(to) events, \(notes[1])) extends checkpoint \(paths[0]) (\(from) events, \(notes[0]))")
                }
            } catch let error as MerkleProofError {
                throw CLIError(message: "the proof does not hold: \(error)", code: .invalidData)
            }
        })

    /// Recomputes the chain hash of the event in an export line and compares it with the proof's.
    static func checkEventFile(_ path: String, event: UUID, entry: [UInt8], previous: [UInt8]) throws {
        let text = try AuditFiles.text(path, "event")
        guard let line = text.split(separator: "\n").first(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) else {
            throw CLIError(message: "the event file '\(path)' is empty", code: .invalidData)
        }
        let imported: LogRecord.Imported
        do {
            imported = try LogRecord.parse(Data(line.utf8))
        } catch {
            throw CLIError(message: "the event file '\(path)' is not an exported event: \(error.reason)", code: .invalidData)
        }
        guard imported.event.id == event else {
            throw CLIError(message: "the event file '\(path)' holds event \(imported.event.id.lowercaseString), not the proven \(event.lowercaseString)", code: .invalidData)
        }
        guard let recordedAt = imported.event.recordedAt else {
            throw CLIError(message: "the event file '\(path)' has no recording time", code: .invalidData)
        }
        let hash = EventChain.hash(previous: previous, stream: imported.stream, version: imported.version, id: imported.event.id,
                                   type: imported.event.type, recordedAt: Timestamp.format(recordedAt), data: imported.event.data,
                                   metadata: imported.event.metadata)
        guard hash == entry.hexString else {
            throw CLIError(message: "the event file '\(path)' is not the proven event: its content hashes to \(hash), the proof's leaf is \(entry.hexString) (the event was changed, or erased)", code: .invalidData)
        }
    }

    static func finish<T>(_ location: StoreLocation, _ build: () throws -> T) throws -> T {
        do {
            return try build()
        } catch let error as MerkleProofError {
            guard case .missingLeaves = error else { throw CLIError(message: "\(location): \(error)", code: .invalidData) }
            throw CLIError(message: "\(location): \(error); it was truncated, or events were removed, since the checkpoint", code: .invalidData)
        }
    }

    static func expect(_ root: [UInt8], of checkpoint: Checkpoint, _ path: String) throws {
        guard root == checkpoint.root else {
            throw CLIError(message: "the store's first \(checkpoint.size) events do not have the root of checkpoint '\(path)': an event there was modified, removed, inserted or reordered, or this store is a fork (run 'evtool verify --checkpoint \(path)')", code: .invalidData)
        }
    }
}
