import EventLog
import Foundation
import StoreLocations
import Transfer

extension Proofs {
    /// A consistency proof that the tree of `older` (read from the file `olderPath`) is a
    /// prefix of the tree of `newer`, made from the log of the store at `location` (opened
    /// with ``LogAudit/open(_:)``): O(log n) nodes of its kept tree, extended to the head first.
    /// - Throws: ``OperationError/invalid(_:)`` for checkpoints in the wrong order, or a store
    ///   whose tree does not have the checkpoints' roots (naming which).
    public static func consistency(at location: StoreLocation, from older: Checkpoint, _ olderPath: String,
                                   to newer: Checkpoint, _ newerPath: String) throws -> ProofDocument {
        guard older.size > 0, older.size <= newer.size else {
            throw OperationError.invalid("no consistency proof from a tree of \(older.size.counted("event")) to one of \(newer.size)")
        }
        let store = try LogAudit.open(location)
        let built = try finishing(location) { try LogTree.consistencyProof(of: store, from: older.size, to: newer.size) }
        try expect(built.fromRoot, of: older, olderPath)
        try expect(built.root, of: newer, newerPath)
        return .consistency(from: older.size, to: newer.size, path: built.proof)
    }

    /// An inclusion proof that event `id` is a leaf of the tree of `checkpoint` (read from
    /// the file `path`), or of the whole log of now without one, made from the log of the
    /// store at `location` (opened with ``LogAudit/open(_:)``).
    /// - Throws: ``OperationError/invalid(_:)`` for an event the store does not have, one
    ///   after the checkpoint, or a store whose tree does not have the checkpoint's root.
    public static func inclusion(of id: UUID, at location: StoreLocation,
                                 checkpoint: (checkpoint: Checkpoint, path: String)? = nil) throws -> ProofDocument {
        let store = try LogAudit.open(location)
        let idText = id.lowercaseString
        guard let (index, event) = try LogTree.leaf(of: id, in: store) else {
            throw OperationError.invalid("\(location) has no event \(idText)")
        }
        let size = try checkpoint?.checkpoint.size ?? LogTree.size(of: store)
        guard index < size else {
            throw OperationError.invalid("event \(idText) is leaf \(index), after the checkpoint's \(size.counted("event")): seal again and prove it in the newer checkpoint")
        }
        let built = try inclusionDocument(of: event, index: index, size: size, in: store, "\(location)")
        if let checkpoint { try expect(built.root, of: checkpoint.checkpoint, checkpoint.path) }
        return built.document
    }

    /// The inclusion proof of `event`, leaf `index` of the tree of the first `size` events (checked
    /// before it is returned), with the chain hash before it in its stream; and the tree's root.
    /// `name` names the store in messages.
    static func inclusionDocument(of event: RecordedEvent, index: UInt64, size: UInt64, in store: any EventStore,
                                  _ name: String) throws -> (document: ProofDocument, root: [UInt8]) {
        let idText = event.id.lowercaseString
        let built = try finishing(name) { try LogTree.inclusionProof(of: store, index: index, size: size, leafHash: try LogTree.leafHash(of: event)) }
        let previousHash = event.version > 1
            ? try store.read(stream: event.streamID, from: event.version - 1, direction: .forwards, limit: 1).first?.hash : EventChain.genesis.hexString
        guard let entry = [UInt8](hexadecimal: event.hash), let previous = previousHash.flatMap({ [UInt8](hexadecimal: $0) }) else {
            throw OperationError.invalid("event \(idText) or the one before it in its stream has no valid chain hash")
        }
        return (.inclusion(index: index, size: size, event: event.id, entry: entry, previous: previous, path: built.proof), built.root)
    }

    /// Runs `build` (a proof from the store's kept tree, extended to the head first, or from
    /// the log); a tree smaller than asked means the log lost events.
    static func finishing<T>(_ location: some CustomStringConvertible, _ build: () throws -> T) throws -> T {
        do {
            return try build()
        } catch let error as MerkleProofError {
            guard case .missingLeaves = error else { throw OperationError.invalid("\(location): \(error)") }
            throw OperationError.invalid("\(location): \(error); it was truncated, or events were removed, since the checkpoint")
        }
    }

    /// Checks an inclusion proof against its checkpoint, offline; with `eventFile` (one line
    /// of `evtool export`), also that the proof is about exactly that event's content.
    /// - Throws: ``OperationError/invalid(_:)`` naming why it does not hold.
    public static func checkInclusion(_ proof: ProofDocument, against checkpoint: Checkpoint, eventFile: String? = nil) throws {
        guard case let .inclusion(index, size, event, entry, previous, path) = proof else {
            throw OperationError.invalid("the proof is not an inclusion proof")
        }
        guard checkpoint.size == size else {
            throw OperationError.invalid("the proof is for a tree of \(size.counted("event")), the checkpoint's has \(checkpoint.size)")
        }
        do {
            try MerkleProof.verifyInclusion(leafHash: MerkleHash.leaf(entry), index: index, size: size, path: path, root: checkpoint.root)
        } catch {
            throw OperationError.invalid("the proof does not hold: \(error)")
        }
        if let eventFile { try checkEventFile(eventFile, event: event, entry: entry, previous: previous) }
    }

    /// Checks a consistency proof against the older and the newer checkpoint, offline.
    /// - Throws: ``OperationError/invalid(_:)`` naming why it does not hold.
    public static func checkConsistency(_ proof: ProofDocument, from older: Checkpoint, to newer: Checkpoint) throws {
        guard case let .consistency(from, to, path) = proof else {
            throw OperationError.invalid("the proof is not a consistency proof")
        }
        guard older.size == from, newer.size == to else {
            throw OperationError.invalid("the proof is from \(from) to \(to.counted("event")), the checkpoints have \(older.size) and \(newer.size)")
        }
        do {
            try MerkleProof.verifyConsistency(from: from, to: to, fromRoot: older.root, toRoot: newer.root, path: path)
        } catch {
            throw OperationError.invalid("the proof does not hold: \(error)")
        }
    }
}
