import Audit
import EventLog
import Foundation

/// `evtool prove` and `evtool check-proof`: inclusion and consistency proofs over the log's
/// Merkle tree, made from a store and checked without one (docs/explanation/audit.md).
enum ProofCommands {
    static let prove = CommandSpec(
        name: "prove", summary: "Print an inclusion proof for one event, or a consistency proof between two checkpoints",
        usage: "--event ID [--checkpoint FILE] | --from CHECKPOINT --to CHECKPOINT [--json] [--store STORE]",
        options: [
            .init(name: "event", value: "ID", help: "The event to prove (its id, as 'evtool log' prints it)"),
            .init(name: "checkpoint", value: "FILE", help: "Prove it in this checkpoint's tree (default: the whole log of now)"),
            .init(name: "from", value: "CHECKPOINT", help: "The older checkpoint of a consistency proof"),
            .init(name: "to", value: "CHECKPOINT", help: "The newer checkpoint of a consistency proof"),
            CommandSpec.storeOption,
            .init(name: "json", value: nil, help: "Print the proof as one JSON object (what 'evtool serve' serves at /v1/proofs; check-proof reads either form)"),
        ],
        discussion: """
            An inclusion proof shows that one event is leaf I of the tree of N events (the
            audit path, O(log N) hashes): with a checkpoint of size N, anyone can check it with
            'evtool check-proof' and no store, and learns nothing of the other events. A
            consistency proof shows that the tree of the older checkpoint is a prefix of the
            newer one's. The store's tree must have the checkpoints' roots, or the command fails
            (exit 65) naming which. Extends the store's kept tree to the head, then reads O(log N)
            of its nodes (a store whose tree this user may not extend: the log, in position order).
            With --json, the same proof as one JSON object (docs/schemas/proof.schema.json), the
            document 'evtool serve' answers GET /v1/proofs/inclusion and /v1/proofs/consistency with.
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
                let proof = try Proofs.consistency(at: location, from: older, from, to: newer, to)
                try console.output(arguments.flag("json") ? proof.json : String(proof.text.dropLast()))
                return
            }
            let idText = try arguments.required("event")
            guard let id = UUID(uuidString: idText) else { throw CLIError.usage("'\(idText)' is not an event id", arguments.command) }
            let checkpoint = try arguments.value("checkpoint").map { (checkpoint: try AuditFiles.checkpoint($0), path: $0) }
            let proof = try Proofs.inclusion(of: id, at: location, checkpoint: checkpoint)
            try console.output(arguments.flag("json") ? proof.json : String(proof.text.dropLast()))
        })

    static let checkProof = CommandSpec(
        name: "check-proof", summary: "Check a proof against signed checkpoints, offline (no store)",
        usage: "PROOF --checkpoint FILE [--checkpoint NEWER] [--public-key KEY…] [--event-file FILE]",
        arguments: [("PROOF", "A proof file printed by 'evtool prove' (text, or --json), or served at /v1/proofs")],
        options: [
            .init(name: "checkpoint", value: "FILE", help: "The checkpoint the proof is for (a consistency proof: the older, then the newer)", repeatable: true),
            .init(name: "public-key", value: "KEY", help: "Check the checkpoints' Ed25519 signatures with this public key (PEM); give one per key across a rotation, each checkpoint must be signed by one of them", repeatable: true),
            .init(name: "event-file", value: "FILE", help: "The proven event as 'evtool export' prints it (one line): check that the proof is about this content"),
        ],
        discussion: """
            Needs no store: an auditor can hand a third party one event's inclusion proof, the
            checkpoint and the public key. An inclusion proof checks that the proof's chain hash
            (its entry) is leaf I of the checkpoint's tree; a consistency proof, that the older
            checkpoint's tree is a prefix of the newer one's. The event id a proof names is only
            its claim until --event-file: then the event's chain hash is recomputed from its
            content (stream, version, id, type, time, data, metadata) and the proof's previous
            hash, and must be the proven leaf's, so the proof is about exactly that event (the OK
            line names the event only then; without it, the entry). Exit 0 when it holds; 65
            when it does not, naming why.
            """,
        examples: ["evtool check-proof proof.txt --checkpoint cp-12.txt --public-key checkpoint-key.pub.pem",
                   "evtool check-proof consistency.txt --checkpoint cp-12.txt --checkpoint cp-40.txt --public-key checkpoint-key.pub.pem",
                   "evtool check-proof consistency.txt --checkpoint cp-12.txt --checkpoint cp-90.txt --public-key old-key.pub.pem --public-key new-key.pub.pem"],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 1)
            guard let proofPath = arguments.positional.first else { throw CLIError.usage("the proof file is missing", arguments.command) }
            let proof = try AuditFiles.proof(proofPath)
            let paths = arguments.all("checkpoint")
            let checkpoints = try paths.map(AuditFiles.checkpoint)
            var notes: [String] = []
            for (checkpoint, path) in zip(checkpoints, paths) {
                notes.append(try AuditFiles.checkSignature(checkpoint, file: path, publicKeys: arguments.all("public-key")))
            }
            switch proof {
            case .inclusion(let index, let size, let event, let entry, _, _):
                guard checkpoints.count == 1 else { throw CLIError.usage("an inclusion proof takes one '--checkpoint'", arguments.command) }
                let file = arguments.value("event-file")
                try Proofs.checkInclusion(proof, against: checkpoints[0], eventFile: file)
                guard let file else {
                    // What the proof holds is a chain hash; the id beside it is not covered by anything checked.
                    return try console.output("OK: entry \(entry.hexString) is leaf \(index) of the \(size.counted("event")) of checkpoint \(paths[0]) (\(notes[0])); the proof names it event \(event.lowercaseString): give --event-file (its line from 'evtool export') to check that it is")
                }
                try console.output("OK: event \(event.lowercaseString) is leaf \(index) of the \(size.counted("event")) of checkpoint \(paths[0]) (\(notes[0])), with the content of \(file)")
            case .consistency(let from, let to, _):
                guard checkpoints.count == 2 else { throw CLIError.usage("a consistency proof takes two '--checkpoint's: the older, then the newer", arguments.command) }
                try Proofs.checkConsistency(proof, from: checkpoints[0], to: checkpoints[1])
                try console.output("OK: checkpoint \(paths[1]) (\(to.counted("event")), \(notes[1])) extends checkpoint \(paths[0]) (\(from.counted("event")), \(notes[0]))")
            }
        })
}
