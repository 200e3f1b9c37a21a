import Foundation

/// A store that keeps an audit trail beside its log: seals over the stream heads and the
/// digests of erased payloads, and that can erase a user (docs/explanation/audit.md).
public protocol AuditableEventStore: EventStore {
    /// Every seal, in order. Cost: O(seals); there are few.
    func seals() throws -> [Seal]

    /// Adds a seal; its number must follow the last seal's.
    /// - Throws: ``EventStoreError/wrongExpectedVersion(stream:expected:actual:)`` on the
    ///   stream `$seals` when another seal was added first.
    func addSeal(_ seal: Seal) throws

    /// Counts the events table's rows at or below `position` (every row there, not only the
    /// ones a read from position 0 returns) and finds its lowest position, in one statement.
    /// Cost: O(rows) (a count of the table).
    func eventRowCensus(through position: Int64) throws -> EventRowCensus

    /// The kept digests of erased events at positions in `positions`, by position.
    /// Cost: O(log n + erased events in the range).
    func erasedDigests(in positions: ClosedRange<Int64>) throws -> [Int64: ErasedDigests]

    /// Erases a user in one transaction: keeps the digests of each of the stream's payloads,
    /// replaces data and metadata with ``Erasure/tombstone``, and appends a `UserErased`
    /// event to ``Erasure/stream``. Events erased before are left as they are. On a store with
    /// archives, a stream whose events are all archived is erased too (its `UserErased` event
    /// covers through the position before the latest boundary), and the request's
    /// ``Erasure/Request/archivedState`` replaces the state kept beside its archived head.
    /// - Returns: what was erased. The caller rebuilds the views.
    /// - Throws: ``EventStoreError/invalidInput(_:)`` for a stream that has no events, kept or archived.
    func erase(_ request: Erasure.Request) throws -> Erasure.Outcome
}
