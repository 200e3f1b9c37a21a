import Foundation

/// A store whose appends can be answered later, on the thread that commits them, instead of
/// holding the caller's thread until they are durable (``GroupCommitStore`` in EvtoolKit): a
/// server's write then waits as a continuation, not as a parked thread.
public protocol AsynchronousAppending: EventStore {
    /// Appends `events` as ``EventStore/append(_:to:expectedVersion:)`` does, and calls
    /// `completion` with its outcome once it is durable (or failed), on a thread of the store.
    /// `completion` must be quick and must not wait for the store (it runs where the next
    /// commit waits); it is called exactly once.
    func append(_ events: [ProposedEvent], to stream: String, expectedVersion: ExpectedVersion,
                completion: @escaping @Sendable (Result<AppendResult, any Error>) -> Void)
}
