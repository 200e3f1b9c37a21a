import Foundation

/// A value behind a lock whose waiters sleep: a plain pthread mutex (`NSLock`).
///
/// For state that many threads use at once. Swift's `Mutex` waits on a priority-inheriting
/// futex, and the kernel keeps a waiter spinning on its processor while the holder runs: under
/// `evtool serve` on a 2-core machine the SQLite commit thread spun through the views'
/// commits and they through its (8% of the server's processor time in `perf`), and the
/// request counters of `/metrics` took a third of it under a flood of requests answered at
/// once. With `NSLock` a waiter sleeps at once. Safe to share between threads.
public final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is used only under `lock`.
    private let lock = NSLock()
    private var value: Value

    /// Puts `value` behind the lock.
    public init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, waiting for the lock.
    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// Runs `body` with the value when no one holds the lock; nil (without running it) otherwise.
    public func withLockIfAvailable<T>(_ body: (inout Value) throws -> T) rethrows -> T? {
        guard lock.try() else { return nil }
        defer { lock.unlock() }
        return try body(&value)
    }
}
