// `verify` of a log whose oldest events were archived (docs/explanation/audit.md "Archives").

extension LogVerifier {
    /// Verifies the log from an archive boundary on: the heads carried over stand for the
    /// archived events (their chains continue from them, the seals after the boundary count
    /// them), and the seals inside the archive are checked for their hash and link only.
    public mutating func carryOver(_ boundary: ArchiveBoundary, heads: StreamHeads) {
        carried = (boundary, heads)
    }

    /// Verifies archived events first, as `next` hands them out in position order (an empty
    /// batch ends them), after the heads carried over (if any), then the store's from there.
    /// - Parameters:
    ///   - end: the archive they must end at: its event count and heads, before its position.
    ///   - stillInTable: whether the events table still holds them (`archive` checks its file
    ///     before it removes them), for the count of the table's rows.
    public mutating func verifyArchivesFirst(end: ArchiveBoundary?, stillInTable: Bool, _ next: @escaping () throws -> [RecordedEvent]) {
        archivedPrefix = (next, end, stillInTable)
    }

    /// The archived events ended: they must be what the store recorded at the boundary.
    mutating func checkArchiveEnd(_ boundary: ArchiveBoundary, lastPosition: Int64) throws {
        guard events == boundary.events else {
            throw VerificationFailure(events < boundary.events ? .deleted : .inserted, position: lastPosition, stream: nil,
                                      "the archived events number \(events), and the store's archive \(boundary.number) records \(boundary.events) below position \(boundary.position)")
        }
        guard lastPosition < boundary.position else {
            throw VerificationFailure(.inserted, position: lastPosition, stream: nil,
                                      "the archived events hold position \(lastPosition), at or after the archive boundary \(boundary.position)")
        }
        guard heads.digest().hexString == boundary.headsSHA256 else {
            throw VerificationFailure(.modified, position: boundary.position, stream: nil,
                                      "the streams' heads at the end of the archived events differ from those the store recorded at archive \(boundary.number) (position \(boundary.position))")
        }
    }

    /// Each stream's head as verified so far.
    public var verifiedHeads: StreamHeads { heads }

    /// The events verified so far (with those carried over).
    public var verifiedEvents: Int64 { events }
}
