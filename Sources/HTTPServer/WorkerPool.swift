import Foundation

/// A fixed set of threads that run jobs in the order they were submitted: the server runs the
/// write requests that must wait here (a read of the user's stream before the decision, an
/// admin operation, a retry), off libmicrohttpd's connection threads, so they hold neither a
/// connection thread nor the reads queued behind it there.
final class WorkerPool: @unchecked Sendable {
    // @unchecked: `jobs`, `running` and `idleWorkers` are used only under `condition`.
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var head = 0
    private var running = 0

    /// Starts `threads` threads (at least 1) that live as long as the process.
    init(threads: Int, name: String) {
        for index in 0..<max(1, threads) {
            let thread = Thread { [self] in work() }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    /// Queues a job; a free thread runs it.
    func submit(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Jobs queued or running.
    var outstanding: Int {
        condition.lock()
        defer { condition.unlock() }
        return jobs.count - head + running
    }

    private func work() {
        while true {
            condition.lock()
            while head == jobs.count { condition.wait() }
            let job = jobs[head]
            head += 1
            if head > 1_024, head * 2 > jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            running += 1
            condition.unlock()
            job()
            condition.lock()
            running -= 1
            condition.unlock()
        }
    }
}
