import Foundation

/// The thread of a follower that keeps something up with the log while a long-running process
/// runs (``KeptTreeFollower``, ``ViewFollower``): runs `step` again and again until ``stop()``
/// or until `step` returns false. A step that throws is reported once through `report`, with
/// `failure`'s words around the error (and again when the error changes, or after a step that
/// ``succeeded()``), and tried again a second later.
final class FollowingThread: @unchecked Sendable {
    // @unchecked: `stopping` is behind `lock`; `lastFailure` is the thread's own.
    private let lock = NSCondition()
    private var stopping = false
    private var lastFailure: String?
    private let done = DispatchSemaphore(value: 0)

    /// Starts the thread.
    init(failure: @escaping @Sendable (String) -> String, report: @escaping @Sendable (String) -> Void,
         step: @escaping @Sendable (FollowingThread) throws -> Bool) {
        Thread.detachNewThread { [self] in
            defer { done.signal() }
            while !shouldStop {
                do {
                    guard try step(self) else { return }
                } catch {
                    let text = "\(error)"
                    if text != lastFailure { report(failure(text)) }
                    lastFailure = text
                    Thread.sleep(forTimeInterval: 1)
                }
            }
        }
    }

    /// Whether ``stop()`` was called: a long step checks it.
    var shouldStop: Bool { lock.withLock { stopping } }

    /// Waits `duration`, or less when ``stop()`` is called meanwhile.
    func pause(_ duration: Duration) {
        let until = Date(timeIntervalSinceNow: duration.timeInterval)
        lock.lock()
        defer { lock.unlock() }
        while !stopping, lock.wait(until: until) {}
    }

    /// Notes a step that worked: the next failure is reported even if it is the last one again.
    func succeeded() { lastFailure = nil }

    /// Stops the thread and waits for it (at most the time of the step in progress).
    func stop() {
        lock.withLock {
            stopping = true
            lock.broadcast()
        }
        done.wait()
    }
}
