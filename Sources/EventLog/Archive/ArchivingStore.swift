import Foundation

/// A store whose oldest events can be moved out to archive files (`evtool archive`): it keeps
/// each archive's record and every stream's head as of the latest boundary, and removes the
/// archived rows in the transaction that records them (docs/explanation/audit.md "Archives").
///
/// A stream whose events were all archived keeps its version and chain: appends continue from
/// the archived head (``EventStore/version(of:)`` counts it).
public protocol ArchivingStore: EventStore {
    /// Every archive taken, oldest first. Cost: O(archives); there are few.
    func archives() throws -> [ArchiveBoundary]

    /// Each stream's head as of the latest boundary (empty when nothing was archived).
    /// Cost: O(streams with archived events).
    func archivedHeads() throws -> StreamHeads

    /// One stream's head as of the latest boundary, nil when none of its events is archived.
    func archivedHead(of stream: String) throws -> StreamHeads.Head?

    /// One stream's head as of the latest boundary with the decision state kept beside it (the
    /// runner's, as bytes this module does not read), nil when none of its events is archived.
    func archivedState(of stream: String) throws -> (head: StreamHeads.Head, state: Data?)?

    /// In one transaction: records `boundary` (its number must follow the last archive's),
    /// replaces the archived heads with `heads` (and beside each, its entry of `states`: the
    /// decision state as of that head), and deletes every event below
    /// `boundary.position`; checks that exactly `boundary.fileEvents` rows went.
    /// - Returns: the rows deleted.
    /// - Throws: ``EventStoreError/wrongExpectedVersion(stream:expected:actual:)`` on the
    ///   stream `$archives` when another archive was recorded first,
    ///   ``EventStoreError/corrupt(_:)`` when the rows below the boundary are not the ones
    ///   archived (then nothing changed).
    @discardableResult
    func recordArchive(_ boundary: ArchiveBoundary, heads: StreamHeads, states: [StreamKey: Data]) throws -> Int64
}

extension ArchivingStore {
    /// The latest archive, nil when none was taken.
    public func latestArchive() throws -> ArchiveBoundary? { try archives().last }
}
