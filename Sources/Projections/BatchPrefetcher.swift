import EventLog
import Foundation

/// A batch of the log, decoded for the views.
struct DecodedBatch: Sendable {
    /// The events a view can read, in log order, stored inline (no allocation per event).
    var events: [ViewEvent]
    /// The position of the last event read (decoded or not); nil for an empty batch (the head).
    var lastPosition: Int64?
    /// How many events were read.
    var count: Int
    /// Events of the domain's types whose payload could not be read.
    var undecodable: Int

    static let empty = DecodedBatch(events: [], lastPosition: nil, count: 0, undecodable: 0)
}

/// Reads and decodes the log ahead of the projector on a thread of its own, at most two
/// batches ahead, so that reading and decoding one batch overlaps applying the previous one
/// (a rebuild keeps both cores busy).
///
/// It stops after handing over an empty batch (the head of the log as it was then) or an
/// error; ``stop()`` ends it early and waits for its thread, so nothing reads the store
/// after the projector has returned.
final class BatchPrefetcher: @unchecked Sendable {
    // @unchecked: the mutable state below is only touched with `condition` locked.
    private let condition = NSCondition()
    private var ready: [Result<DecodedBatch, any Error>] = []
    /// Batches the projector has applied, released on the reading thread that allocated them:
    /// freeing memory from another thread's malloc arena contends for that arena's lock.
    private var spent: [DecodedBatch] = []
    private var stopping = false
    private var finished = false
    /// Seconds the reading thread spent reading and decoding (read after ``stop()``).
    private var busy: Double = 0
    private static let depth = 2

    init(store: any EventStore, after position: Int64, batchSize: Int) {
        let thread = Thread { [self] in produce(store: store, after: position, batchSize: batchSize) }
        thread.name = "evtool-projector-reader"
        thread.start()
    }

    private func produce(store: any EventStore, after position: Int64, batchSize: Int) {
        var cursor = position
        while true {
            condition.lock()
            while ready.count >= Self.depth && !stopping { condition.wait() }
            let stop = stopping
            var released = spent
            spent.removeAll(keepingCapacity: true)
            condition.unlock()
            // One applied batch's storage is filled again (its events are released here, on
            // this thread): a new batch's array would be a large allocation each time, which
            // makes malloc consolidate its free lists first.
            var reusable = released.popLast()?.events ?? []
            released.removeAll()
            if stop { break }
            let (result, seconds) = PhaseClock.timed { Result { try Projector.readBatch(from: store, after: cursor, limit: batchSize, reusing: &reusable) } }
            let last = (try? result.get())?.lastPosition
            condition.withLock {
                busy += seconds
                ready.append(result)
                condition.broadcast()
            }
            guard let last else { break }   // the head, or an error: handed over, done
            cursor = last
        }
        condition.withLock {
            finished = true
            condition.broadcast()
        }
    }

    /// The next batch in log order (empty at the head); rethrows a read error.
    func next() throws -> DecodedBatch {
        condition.lock()
        defer { condition.unlock() }
        while ready.isEmpty {
            guard !finished else { return .empty }
            condition.wait()
        }
        let result = ready.removeFirst()
        condition.broadcast()
        return try result.get()
    }

    /// Hands back a batch that has been applied, to be released on the reading thread.
    func recycle(_ batch: consuming DecodedBatch) {
        condition.lock()
        spent.append(batch)
        condition.unlock()
    }

    /// Seconds the reading thread spent reading and decoding batches so far.
    var busySeconds: Double { condition.withLock { busy } }

    /// Stops reading ahead and waits until the reading thread has finished.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while !finished { condition.wait() }
        condition.unlock()
    }
}
