import Foundation

/// Where a store keeps snapshots: derived documents about one stream at one of its versions
/// (a user's decision state, a view as of a version), so that reading a long stream can start
/// from the latest snapshot instead of its first event.
///
/// A snapshot is a cache, never the truth: whoever reads one checks it against the stream
/// (the event it ends with, its chain hash) and folds the stream from the start when it does
/// not fit. The stores keep them beside the views (`view_documents`, under the projection
/// name `snapshot:KIND` and generation `slot`), and an erasure (``AuditableEventStore/erase(_:)``)
/// deletes the stream's snapshots in its transaction. Safe to share between threads.
public protocol SnapshotDocuments: Sendable {
    /// The snapshot of `kind` in `slot` for a stream, if one is kept.
    /// Cost: one indexed lookup.
    func snapshotDocument(kind: String, slot: Int64, stream: String) throws -> Data?

    /// Keeps (or replaces) snapshots, all in one transaction.
    /// - Throws: ``EventStoreError/invalidInput(_:)`` for a slot out of `0...Int32.max` or a
    ///   kind that is empty or too long (nothing is kept then); the store's errors.
    func saveSnapshotDocuments(_ documents: [SnapshotDocument]) throws
}

extension SnapshotDocuments {
    /// Keeps (or replaces) the snapshot of `kind` in `slot` for a stream.
    /// - Parameter document: JSON.
    public func saveSnapshotDocument(_ document: Data, kind: String, slot: Int64, stream: String) throws {
        try saveSnapshotDocuments([SnapshotDocument(kind: kind, slot: slot, stream: stream, document: document)])
    }
}

/// One snapshot to keep: its kind, slot, stream and JSON.
public struct SnapshotDocument: Sendable, Hashable {
    /// What the snapshot is of (a decision state, a view), as its reader names it.
    public var kind: String
    /// Which of the stream's snapshots of this kind it is (its slot; the reader says what a slot means).
    public var slot: Int64
    /// The stream it was taken of.
    public var stream: String
    /// JSON.
    public var document: Data

    /// Makes a snapshot document.
    public init(kind: String, slot: Int64, stream: String, document: Data) {
        self.kind = kind
        self.slot = slot
        self.stream = stream
        self.document = document
    }
}

/// Names and limits shared by every store's ``SnapshotDocuments``.
public enum SnapshotDocumentNames {
    /// The prefix of the projection name under which snapshots of a kind are kept.
    public static let prefix = "snapshot:"

    /// The projection name of a kind's snapshots; refuses a slot or kind a store cannot keep.
    public static func projection(kind: String, slot: Int64) throws -> String {
        guard (0...Int64(Int32.max)).contains(slot) else {
            throw EventStoreError.invalidInput("snapshot slot \(slot) is out of 0...\(Int32.max)")
        }
        guard !kind.isEmpty, kind.utf8.count <= 100 else {
            throw EventStoreError.invalidInput("snapshot kind must have 1 to 100 bytes")
        }
        return prefix + kind
    }
}
