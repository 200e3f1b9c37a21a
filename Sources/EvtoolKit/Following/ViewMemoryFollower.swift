import Commands
import EventLog
import Foundation
import Projections

/// Feeds a ``ViewMemory`` from the log on a thread of its own, for `evtool serve`: reads every
/// event after the head at its start (other servers' writes too, and this server's own, which
/// ``Application/record(_:context:requiredVersion:)`` touched already), touches the stream's
/// tag and, for a `DetailsViewed`, the listing's, at the event's position, and waits for more
/// (PostgreSQL wakes it on NOTIFY; SQLite is polled, 5 ms to 100 ms).
///
/// What no event tells of clears the memory: a `UserErased` event (an erasure through any
/// server; its views are rebuilt after it), and a change of any view's active generation (a
/// rebuild anywhere), checked at least every 250 ms. When the store cannot be read, the memory
/// is stopped (every read goes to the store, and fails as it would) until the follower reads
/// again, then started again from where it got to; nothing is skipped.
public final class ViewMemoryFollower: @unchecked Sendable {
    // @unchecked: `stopping` is behind `lock`; the rest is set once in init.
    private let store: any EventStore & ProjectionStore
    private let memory: ViewMemory
    private let capacityBytes: Int
    private let report: @Sendable (String) -> Void
    private let lock = NSLock()
    private var stopping = false
    private let done = DispatchSemaphore(value: 0)

    /// Turns `memory` on with the bound `capacityBytes` from the head of `store` now and starts
    /// following; `report` receives one line when the store is lost and one when it is back.
    /// - Throws: the store's errors reading its head or its views' statuses (the memory stays off).
    public init(store: any EventStore & ProjectionStore, memory: ViewMemory, capacityBytes: Int,
                report: @escaping @Sendable (String) -> Void) throws {
        self.store = store
        self.memory = memory
        self.capacityBytes = capacityBytes
        self.report = report
        let generations = try Self.activeGenerations(store)
        let head = try store.headPosition()
        memory.start(capacityBytes: capacityBytes, from: head)
        Thread.detachNewThread { [self] in run(from: head, generations: generations) }
    }

    private var shouldStop: Bool { lock.withLock { stopping } }

    static func activeGenerations(_ store: any ProjectionStore) throws -> [String: Int] {
        var active: [String: Int] = [:]
        for status in try store.projectionStatuses() where status.isActive { active[status.name] = status.generation }
        return active
    }

    /// The tags one event touches: its stream's, and a viewed listing's.
    static func tags(of lent: LentEvent) -> [String] {
        var tags = [ViewMemory.streamTag(lent.streamID)]
        if lent.type == DetailsViewed.typeName, let event = ViewEvent.decode(lent), case let .detailsViewed(listingID, _, _) = event.action {
            tags.append(ViewMemory.listingTag(ViewKey.listing(listingID)))
        }
        return tags
    }

    private func run(from head: Int64, generations start: [String: Int]) {
        defer { done.signal() }
        var cursor = head
        var generations = start
        var checked = ContinuousClock.now
        var lost = false
        while !shouldStop {
            do {
                var touches: [(tag: String, position: Int64)] = []
                var erased = false
                var last = cursor
                let count = try store.scanAll(after: cursor, limit: 1_000) { lent in
                    for tag in Self.tags(of: lent) { touches.append((tag, lent.position)) }
                    if lent.type == Erasure.eventType { erased = true }
                    last = lent.position
                }
                if lost {
                    // Back: answers are kept again from here on (every event after it is touched).
                    memory.start(capacityBytes: capacityBytes, from: cursor)
                    report("view memory: the store answers again; keeping views in memory from position \(cursor)")
                    lost = false
                }
                memory.touch(touches)
                cursor = last
                if erased { memory.clear() }
                if ContinuousClock.now - checked >= .milliseconds(250) {
                    let now = try Self.activeGenerations(store)
                    if now != generations { memory.clear() }
                    generations = now
                    checked = ContinuousClock.now
                }
                if count == 0 { _ = try store.waitForEvents(after: cursor, timeout: .milliseconds(250)) }
            } catch {
                if !lost {
                    memory.stop()
                    report("view memory: off while the store cannot be read (reads go to the store): \(error)")
                    lost = true
                }
                Thread.sleep(forTimeInterval: 0.2)
            }
        }
    }

    /// Stops the thread and waits for it (at most one read and one wait), and turns the memory off.
    public func stop() {
        lock.withLock { stopping = true }
        done.wait()
        memory.stop()
    }
}
