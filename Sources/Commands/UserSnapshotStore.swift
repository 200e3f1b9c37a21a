/// Where the runner keeps users' decision states between processes, so the first command
/// for a user with a long stream reads only the events since the last snapshot.
///
/// A snapshot is a cache, never the truth: it must reflect events 1…version of the user's
/// stream in the log the runner writes to. Failures to read or save one are ignored by the
/// runner (it reads the stream instead).
public protocol UserSnapshotStore: Sendable {
    /// The latest snapshot of a stream, if any.
    func latestSnapshot(stream: String) throws -> UserSnapshot?
    /// Keeps a snapshot; an older one may be dropped.
    func save(_ snapshot: UserSnapshot, stream: String) throws
}
