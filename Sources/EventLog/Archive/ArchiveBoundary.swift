/// One archive taken from a store's log (`evtool archive`, docs/explanation/audit.md "Archives"): the events
/// at positions below ``position`` that no earlier archive took were written to a file in the
/// export format, checked against the log, and removed from the events table. The store keeps
/// this record, and each stream's head as of the boundary (``ArchivingStore/archivedHeads()``),
/// in owner-only tables, so `verify` checks the rest of the log from here.
public struct ArchiveBoundary: Sendable, Hashable {
    /// 1, 2, 3 … in the order archives were taken.
    public var number: Int64
    /// Every event below this position is archived; the kept log starts at or after it.
    public var position: Int64
    /// The events of the log archived so far (this archive's and every earlier one's): the
    /// kept Merkle tree's first `events` leaves are archived events.
    public var events: Int64
    /// The events this archive's file holds.
    public var fileEvents: Int64
    /// Hex SHA-256 of the archive file's bytes.
    public var fileSHA256: String
    /// The file's name as given to `evtool archive` (for people; the digest is what counts).
    public var fileName: String
    /// Hex digest of every stream's head as of the boundary (``StreamHeads/digest()``).
    public var headsSHA256: String
    /// Hex root of the log's Merkle tree of the first ``events`` events.
    public var treeRoot: String
    /// When it was taken, in ``Timestamp/format(_:)`` form.
    public var archivedAt: String

    /// An archive record as a store holds it.
    public init(number: Int64, position: Int64, events: Int64, fileEvents: Int64, fileSHA256: String, fileName: String,
                headsSHA256: String, treeRoot: String, archivedAt: String) {
        self.number = number
        self.position = position
        self.events = events
        self.fileEvents = fileEvents
        self.fileSHA256 = fileSHA256
        self.fileName = fileName
        self.headsSHA256 = headsSHA256
        self.treeRoot = treeRoot
        self.archivedAt = archivedAt
    }
}
