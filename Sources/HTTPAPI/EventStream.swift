import Foundation
import Synchronization

/// A Server-Sent Events body. The server edge never blocks on it: it asks ``poll()`` for the
/// next chunk whenever the client can take more; when there is nothing yet, the edge parks the
/// connection and asks ``isDue()`` now and then whether to try again.
package final class EventStream: Sendable {
    /// What ``poll()`` has.
    package enum Poll: Sendable {
        /// Bytes to send.
        case chunk([UInt8])
        /// Nothing now; ask again once ``isDue()`` says so.
        case wait
        /// The stream is over (the server stops, or the store went away: the client
        /// reconnects with Last-Event-ID).
        case end
    }

    private let produce: @Sendable (EventStream) -> Poll
    private let due: @Sendable (EventStream) -> Bool
    private let stopped = Atomic<Bool>(false)

    /// Makes a stream: `produce` answers without waiting; `due` says cheaply whether
    /// `produce` would have something (new events, a heartbeat due).
    package init(produce: @escaping @Sendable (EventStream) -> Poll, isDue due: @escaping @Sendable (EventStream) -> Bool) {
        self.produce = produce
        self.due = due
    }

    /// The next chunk, nothing yet, or the end.
    package func poll() -> Poll {
        guard !stopped.load(ordering: .acquiring) else { return .end }
        return produce(self)
    }

    /// Whether ``poll()`` is worth calling again.
    package func isDue() -> Bool { stopped.load(ordering: .acquiring) || due(self) }

    /// Ends the stream at its next poll.
    package func stop() { stopped.store(true, ordering: .releasing) }

    /// Whether ``stop()`` was called.
    package var isStopped: Bool { stopped.load(ordering: .acquiring) }
}
