/// A store that records a copy of another log into it (`evtool migrate`) while the copy is
/// unfinished, so that a check of the store after the copy stopped can tell an incomplete copy
/// from a tampered log (docs/explanation/audit.md, "Migrate of an erased log").
///
/// A copy is resumable: the store always holds a prefix of the source. A prefix of a log with
/// erasures holds tombstones before the `UserErased` events that cover them; the verifier
/// accepts such a tombstone only once it meets that event, so a prefix cut before it fails
/// exactly as a tombstone written by hand fails. The record, written before the first batch that
/// copies an erased event and removed once the whole copy was compared with its source, says
/// which it is.
public protocol CopyRecording: EventStore {
    /// The source of the copy into this store that has not finished (as the copy named it,
    /// passwords masked); nil when none is recorded. Cost: one read of one row.
    func unfinishedCopy() throws -> String?

    /// Records that a copy from `source` into this store has started and not finished
    /// (replacing an earlier record).
    func recordUnfinishedCopy(from source: String) throws

    /// Removes the record: the copy is complete.
    func finishCopy() throws
}
