import Dispatch
import Foundation
import Synchronization

/// One open connection's deadline for the request it is reading (see ``ConnectionClocks``).
final class ConnectionClock: Sendable {
    /// The connection's socket.
    let socket: Int32
    /// When the connection is past its time, in `DispatchTime` nanoseconds; 0 while a request
    /// is being answered (a write waiting for its commit, an event stream), which has none.
    let deadline: Atomic<UInt64>
    /// The request target's length as a C string when the request line was read (see
    /// ``RequestHead/targetLength``), or -1 before it was.
    let targetLength = Atomic<Int>(-1)

    init(socket: Int32, deadline: UInt64) {
        self.socket = socket
        self.deadline = Atomic(deadline)
    }
}

/// The deadlines of every open connection, and the thread that closes those past theirs.
///
/// libmicrohttpd closes a connection that sends nothing for `--timeout`, but not one that
/// sends a byte now and then: such a client (a slow loris) keeps its connection open as long
/// as it likes, and a few hundred of them hold every connection the server allows. So each part
/// of a request has the timeout to arrive: its request line from when the connection opened or
/// sent its last answer, then its headers and body from the request line. A connection past its
/// deadline has its socket shut down both ways, which libmicrohttpd reads as the end of the
/// connection and closes. A request being answered has no deadline: a write waiting for its
/// group commit, an event stream, a response the client reads slowly (libmicrohttpd's own
/// timeout covers a client that stops reading).
final class ConnectionClocks: Sendable {
    private let clocks = Mutex<[ObjectIdentifier: ConnectionClock]>([:])
    private let timeout: UInt64
    private let report: @Sendable (String) -> Void
    private let started = Atomic<Bool>(false)
    private let stopped = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)

    /// Clocks that give each part of a request `timeoutSeconds`; `report` receives one line
    /// for each sweep that closed connections.
    init(timeoutSeconds: Int, report: @escaping @Sendable (String) -> Void) {
        self.timeout = UInt64(max(1, timeoutSeconds)) * 1_000_000_000
        self.report = report
    }

    private static var now: UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// A connection was accepted: its request line is due within the timeout.
    func opened(socket: Int32) -> ConnectionClock {
        let clock = ConnectionClock(socket: socket, deadline: Self.now + timeout)
        clocks.withLock { $0[ObjectIdentifier(clock)] = clock }
        return clock
    }

    /// The connection is closing (its socket is still open): it is never shut down after this.
    func closed(_ clock: ConnectionClock) {
        _ = clocks.withLock { $0.removeValue(forKey: ObjectIdentifier(clock)) }
    }

    /// The request line was read: the headers and body are due within the timeout.
    func requestLineRead(_ clock: ConnectionClock, targetLength: Int) {
        clock.targetLength.store(targetLength, ordering: .relaxed)
        clock.deadline.store(Self.now + timeout, ordering: .relaxed)
    }

    /// The request is whole and being answered: no deadline until its answer is sent.
    func answering(_ clock: ConnectionClock) {
        clock.deadline.store(0, ordering: .relaxed)
    }

    /// The answer was sent: the next request line is due within the timeout.
    func answered(_ clock: ConnectionClock) {
        clock.deadline.store(Self.now + timeout, ordering: .relaxed)
    }

    /// Shuts down every connection past its deadline; returns how many.
    @discardableResult
    func sweep() -> Int {
        let now = Self.now
        return clocks.withLock { clocks in
            var closed = 0
            for clock in clocks.values {
                let deadline = clock.deadline.load(ordering: .relaxed)
                guard deadline != 0, now > deadline else { continue }
                // Held under the lock that ``closed(_:)`` takes, so the socket is still this
                // connection's: libmicrohttpd closes it only after telling us.
                shutdown(clock.socket, Int32(SHUT_RDWR))
                clock.deadline.store(0, ordering: .relaxed)
                closed += 1
            }
            return closed
        }
    }

    /// Sweeps four times a second on a thread of its own until ``stop()``.
    func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let seconds = Double(timeout) / 1e9
        Thread.detachNewThread { [self] in
            while !stopped.load(ordering: .acquiring) {
                Thread.sleep(forTimeInterval: 0.25)
                let closed = sweep()
                if closed > 0 {
                    report("serve: closed \(closed) connection\(closed == 1 ? "" : "s") whose request was not whole within \(Int(seconds)) s (--timeout)\n")
                }
            }
            done.signal()
        }
    }

    /// Stops the sweeping thread and waits for it.
    func stop() {
        guard started.load(ordering: .acquiring), !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        done.wait()
    }
}
