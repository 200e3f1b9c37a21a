import Foundation
import Synchronization

/// A Server-Sent Events body: the server edge asks for the next chunk whenever the client can
/// take more; ``next()`` blocks until there is something to send (events, or a heartbeat
/// comment after a quiet interval) and returns nil when the stream ends (the server stops).
public final class EventStream: Sendable {
    private let produce: @Sendable (EventStream) -> [UInt8]?
    private let stopped = Atomic<Bool>(false)

    /// Makes a stream whose chunks come from `produce` (nil ends it); `produce` is handed the
    /// stream so that a wait inside it can end early once the stream is stopped.
    public init(_ produce: @escaping @Sendable (EventStream) -> [UInt8]?) {
        self.produce = produce
    }

    /// The next chunk, or nil at the end.
    public func next() -> [UInt8]? {
        guard !stopped.load(ordering: .acquiring) else { return nil }
        return produce(self)
    }

    /// Ends the stream at its next chunk.
    public func stop() { stopped.store(true, ordering: .releasing) }

    /// Whether ``stop()`` was called.
    public var isStopped: Bool { stopped.load(ordering: .acquiring) }
}
