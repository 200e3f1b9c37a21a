import Foundation

/// Where the time of a projector's last catch-up or rebuild went, in seconds of wall time, as
/// the projector measured it (a clock read per batch and per commit, nothing per event).
///
/// The projector's thread waits for batches, applies them and commits; the reader thread
/// reads and decodes the batches ahead of it (``readingAhead``), so a rebuild's time is about
/// ``waitingForBatches`` + ``applying`` + ``committing``, and ``readingAhead`` overlaps them.
public struct CatchUpPhases: Sendable, Equatable {
    /// The projector's thread waiting for the next batch (read and decoded on this thread for
    /// a short catch-up, or not yet ready on the reader thread).
    public var waitingForBatches: Double = 0
    /// Applying batches to every view's documents.
    public var applying: Double = 0
    /// Commits before the head (a building generation's periodic ones, an active view's per batch).
    public var committing: Double = 0
    /// The commits at the head (for a rebuild: every document of every view, and the swap).
    public var finalCommit: Double = 0
    /// The part of the commits' time spent encoding documents, summed over the threads that
    /// encoded them (encoding overlaps the store's writes).
    public var encoding: Double = 0
    /// The reader thread reading and decoding batches (overlapping the projector's thread).
    public var readingAhead: Double = 0
    /// Batches applied.
    public var batches = 0

    /// Makes empty phases.
    public init() {}

    /// One line: `wait 0.41 s, apply 1.52 s, commits 0.00 s, final commit 1.10 s (encoding 0.80 s on all threads); reader thread 1.60 s; 1,000 batches`.
    public var summary: String {
        func seconds(_ value: Double) -> String { String(format: "%.2f s", value) }
        return "wait \(seconds(waitingForBatches)), apply \(seconds(applying)), commits \(seconds(committing)), "
            + "final commit \(seconds(finalCommit)) (encoding \(seconds(encoding)) on all threads); "
            + "reader thread \(seconds(readingAhead)); \(batches) batches"
    }
}

/// A monotonic clock read once per phase: each lap is the seconds since the last one.
struct PhaseClock {
    private var last = DispatchTime.now().uptimeNanoseconds

    /// The seconds since the last lap (or since the clock was made), and starts the next.
    mutating func lap() -> Double {
        let now = DispatchTime.now().uptimeNanoseconds
        defer { last = now }
        return Double(now &- last) / 1e9
    }

    /// The seconds `body` took, with its result.
    static func timed<T>(_ body: () throws -> T) rethrows -> (result: T, seconds: Double) {
        var clock = PhaseClock()
        let result = try body()
        return (result, clock.lap())
    }
}
