import EventLog
import Foundation
import StoreLocations
import Transfer

/// The checks behind `prove` and `check-proof` that are not the Merkle proofs themselves:
/// a proof's event file against its leaf, a built tree against a checkpoint's root. Every
/// failure is ``OperationError/invalid(_:)``.
public enum Proofs {
    /// Recomputes the chain hash of the event in an export line and compares it with the proof's.
    public static func checkEventFile(_ path: String, event: UUID, entry: [UInt8], previous: [UInt8]) throws {
        let text = try AuditFiles.text(path, "event")
        guard let line = text.split(separator: "\n").first(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) else {
            throw OperationError.invalid("the event file '\(path)' is empty")
        }
        let imported: LogRecord.Imported
        do {
            imported = try LogRecord.parse(Data(line.utf8))
        } catch {
            throw OperationError.invalid("the event file '\(path)' is not an exported event: \(error.reason)")
        }
        guard imported.event.id == event else {
            throw OperationError.invalid("the event file '\(path)' holds event \(imported.event.id.lowercaseString), not the proven \(event.lowercaseString)")
        }
        guard let recordedAt = imported.event.recordedAt else {
            throw OperationError.invalid("the event file '\(path)' has no recording time")
        }
        let hash = EventChain.hash(previous: previous, stream: imported.stream, version: imported.version, id: imported.event.id,
                                   type: imported.event.type, recordedAt: Timestamp.format(recordedAt), data: imported.event.data,
                                   metadata: imported.event.metadata)
        guard hash == entry.hexString else {
            throw OperationError.invalid("the event file '\(path)' is not the proven event: its content hashes to \(hash), the proof's leaf is \(entry.hexString) (the event was changed, or erased)")
        }
    }

    /// Finishes a proof builder; a tree smaller than asked means the log lost events.
    public static func finish(_ builder: MerkleProofBuilder, _ location: StoreLocation) throws -> (root: [UInt8], proof: [[UInt8]]) {
        do {
            return try builder.finish()
        } catch {
            throw OperationError.invalid("\(location): \(error); it was truncated, or events were removed, since the checkpoint")
        }
    }

    /// Checks that the store's tree of the checkpoint's size has the checkpoint's root.
    public static func expect(_ root: [UInt8], of checkpoint: Checkpoint, _ path: String) throws {
        guard root == checkpoint.root else {
            throw OperationError.invalid("the store's first \(checkpoint.size) events do not have the root of checkpoint '\(path)': an event there was modified, removed, inserted or reordered, or this store is a fork (run 'evtool verify --checkpoint \(path)')")
        }
    }
}
