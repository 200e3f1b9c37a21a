import EventLog
import Foundation
import JSONKit
import Synchronization

/// Drives one projection against a store: its generation, checkpoint, cached documents and
/// the changes not yet committed. Used by one ``Projector`` at a time.
final class ProjectionWorker<P: Projection>: AnyProjectionWorker {
    let projection: P
    let store: any ProjectionStore
    private(set) var status: ProjectionStatus
    /// The cached documents: those known to match the store's generation plus the uncommitted
    /// changes, in numbered slots. The lookup from key to slot number is a `[String: Int]`,
    /// which the compiler specializes; a dictionary holding this generic class's own types
    /// would go through the generic runtime on every event.
    private var slotOf: [String: Int] = [:]
    private var slotKeys: [String] = []
    private var slotDocuments: [P.Document?] = []
    private var slotIsDirty: [Bool] = []
    /// The slots changed since the last commit.
    private var dirty: [Int] = []
    /// Position of the last event applied but not yet committed.
    private(set) var pendingPosition: Int64
    /// When set, the generation was empty when this worker started it, so a key missing
    /// from the cache is missing from the store too (no lookup needed).
    private var cacheIsComplete: Bool
    private let cacheLimit: Int
    /// Nanoseconds spent encoding documents for commits, summed over the threads that did.
    private let encodingNanoseconds = Atomic<UInt64>(0)

    var name: String { projection.name }
    var position: Int64 { pendingPosition }
    var encodingSeconds: Double { Double(encodingNanoseconds.load(ordering: .relaxed)) / 1e9 }

    init(projection: P, store: any ProjectionStore, status: ProjectionStatus, cacheLimit: Int) {
        self.projection = projection
        self.store = store
        self.status = status
        self.pendingPosition = status.position
        self.cacheIsComplete = status.position == 0
        self.cacheLimit = cacheLimit
    }

    /// Applies the events after this projection's checkpoint.
    // The domain's views get specialized copies, chosen at run time on entry: the generic
    // code would move every document through the runtime's value witnesses on every event.
    @_specialize(where P == FavoritesProjection)
    @_specialize(where P == RecentSearchesProjection)
    @_specialize(where P == RecentlyViewedProjection)
    @_specialize(where P == CachedDetailsProjection)
    func apply(_ events: [ViewEvent], through last: Int64) throws {
        // Events whose key's document is neither cached nor known to be absent wait until
        // those documents are loaded (one store lookup for all of them); every later event of
        // such a key waits too, so each key still sees its events in log order.
        var waiting: [(key: String, index: Int)] = []
        var missing: Set<String> = []
        do {
            try events.withUnsafeBufferPointer { events in
                // Each event is read where it lies in the batch: copying it out, once per view,
                // cost more than applying it.
                for index in events.indices where events[index].position > pendingPosition {
                    guard let key = projection.key(for: events[index]) else { continue }
                    if let slot = slotOf[key], missing.isEmpty || !missing.contains(key) {
                        evolve(slot, with: events[index])
                    } else if cacheIsComplete {
                        evolve(newSlot(key, nil), with: events[index])
                    } else {
                        missing.insert(key)
                        waiting.append((key, index))
                    }
                }
                if !missing.isEmpty {
                    let found = try store.documents(of: projection.name, generation: status.generation, keys: Array(missing))
                    for key in missing where slotOf[key] == nil {
                        _ = newSlot(key, try found[key].map { try P.Document.decode($0) })
                    }
                    for (key, index) in waiting { evolve(slotOf[key]!, with: events[index]) }
                }
            }
        } catch {
            // Some events may already have changed cached documents: forget everything not
            // committed, so that a retry starts again from the last commit instead of
            // applying those events twice.
            forgetUncommitted()
            throw error
        }
        if last > pendingPosition { pendingPosition = last }
    }

    private func newSlot(_ key: String, _ document: P.Document?) -> Int {
        let slot = slotKeys.count
        slotOf[key] = slot
        slotKeys.append(key)
        slotDocuments.append(document)
        slotIsDirty.append(false)
        return slot
    }

    @inline(__always)
    private func evolve(_ slot: Int, with event: ViewEvent) {
        projection.evolve(&slotDocuments[slot], with: event)
        if !slotIsDirty[slot] {
            slotIsDirty[slot] = true
            dirty.append(slot)
        }
    }

    private func dropCache() {
        slotOf.removeAll()
        slotKeys.removeAll()
        slotDocuments.removeAll()
        slotIsDirty.removeAll()
        dirty.removeAll()
    }

    /// Commits the changes since the last commit with the new checkpoint; with `activate`,
    /// also swaps this generation in for readers.
    func commit(activate: Bool) throws {
        guard pendingPosition != status.position || !dirty.isEmpty || (activate && !status.isActive) else { return }
        // The store takes the documents part by part inside its transaction, each part
        // encoded while the store writes the one before: a commit that rewrites a whole view
        // never holds the JSON of all of it. The first part is encoded before the transaction
        // starts, so a commit of one part (every follower's) holds the store's writer only to
        // write: on SQLite, appends wait for it. In key order, so that the store's index grows
        // at one end.
        let changed = dirty.sorted { slotKeys[$0] < slotKeys[$1] }
        let parts = stride(from: 0, to: changed.count, by: Self.commitPart).map { Array(changed[$0..<min($0 + Self.commitPart, changed.count)]) }
        let first = parts.first.map { encode($0) }
        nonisolated(unsafe) let worker = self
        let changes = ViewChanges(projection: projection.name, generation: status.generation, fromPosition: status.position,
                                  toPosition: pendingPosition, activate: activate) { body in
            var ahead: EncodingAhead?
            defer { _ = ahead?.wait() }   // nothing reads the documents once the commit returns
            for (index, slots) in parts.enumerated() {
                let encoded = index == 0 ? first ?? [] : ahead?.wait() ?? worker.encode(slots)
                ahead = index + 1 < parts.count ? EncodingAhead(parts[index + 1]) { slots in worker.encodeHere(slots) } : nil
                try body(slots.indices.map { (key: worker.slotKeys[slots[$0]], document: encoded[$0]) })
            }
        }
        do {
            try store.commit(changes)
        } catch let error as ProjectionStoreError {
            // Another projector moved the checkpoint: forget what we computed and reload.
            try reload()
            throw error
        }
        for slot in dirty { slotIsDirty[slot] = false }
        dirty.removeAll(keepingCapacity: true)
        status.position = pendingPosition
        if activate { status.isActive = true }
        if slotKeys.count > cacheLimit {
            dropCache()
            cacheIsComplete = false
        }
    }

    /// Documents encoded and handed to the store at a time by a commit.
    static var commitPart: Int { 2_048 }

    /// The JSON of each changed document (nil: removed). A commit after a rebuild writes every
    /// document of the view, so large parts are encoded on every core, in contiguous ranges.
    private func encode(_ changed: [Int]) -> [Data?] {
        let parts = changed.count >= 1_024 ? min(ProcessInfo.processInfo.activeProcessorCount, 8) : 1
        guard parts > 1 else { return encodeHere(changed) }
        var encoded = [Data?](repeating: nil, count: changed.count)
        var seconds = [Double](repeating: 0, count: parts)
        encoded.withUnsafeMutableBufferPointer { output in
            seconds.withUnsafeMutableBufferPointer { seconds in
                // Each part writes only its own range of `output` and its own element of
                // `seconds`; the documents are only read.
                nonisolated(unsafe) let output = output, seconds = seconds
                let documents = slotDocuments
                DispatchQueue.concurrentPerform(iterations: parts) { part in
                    var clock = PhaseClock()
                    var writer = JSONWriter()
                    let range = (changed.count * part / parts)..<(changed.count * (part + 1) / parts)
                    for index in range {
                        if let document = documents[changed[index]] { output[index] = document.jsonData(reusing: &writer) }
                    }
                    seconds[part] = clock.lap()
                }
            }
        }
        encodingNanoseconds.add(UInt64(seconds.reduce(0, +) * 1e9), ordering: .relaxed)
        return encoded
    }

    /// The JSON of the documents in `slots`, on this thread.
    private func encodeHere(_ slots: [Int]) -> [Data?] {
        var clock = PhaseClock()
        defer { encodingNanoseconds.add(UInt64(clock.lap() * 1e9), ordering: .relaxed) }
        var writer = JSONWriter()
        var encoded: [Data?] = []
        encoded.reserveCapacity(slots.count)
        for slot in slots { encoded.append(slotDocuments[slot].map { $0.jsonData(reusing: &writer) }) }
        return encoded
    }

    /// Drops every cached document and goes back to the last committed checkpoint.
    private func forgetUncommitted() {
        dropCache()
        pendingPosition = status.position
        // Nothing committed in this generation yet: the store holds none of its documents.
        cacheIsComplete = status.position == 0
    }

    /// Re-reads the checkpoint from the store and drops every cached document.
    func reload() throws {
        guard let fresh = try store.projectionStatuses().first(where: { $0.name == projection.name && $0.generation == status.generation }) else {
            throw ProjectionStoreError.checkpointMoved(projection: projection.name, generation: status.generation, expected: status.position, actual: nil)
        }
        status = fresh
        pendingPosition = fresh.position
        dropCache()
        cacheIsComplete = false
    }

    /// The committed document for `key` in this worker's generation.
    func document(for key: String) throws -> P.Document? {
        try store.documents(of: projection.name, generation: status.generation, keys: [key])[key]
            .map { try P.Document.decode($0) }
    }
}

/// One part of a commit's documents being encoded on another thread.
private final class EncodingAhead: @unchecked Sendable {
    // @unchecked: `encoded` is written by the encoding thread before it signals `done`, and
    // read only after waiting for it.
    private var encoded: [Data?] = []
    private let done = DispatchSemaphore(value: 0)

    init(_ slots: [Int], encode: @escaping @Sendable ([Int]) -> [Data?]) {
        DispatchQueue.global().async { [self] in
            encoded = encode(slots)
            done.signal()
        }
    }

    /// Waits for the part (call once).
    func wait() -> [Data?] {
        done.wait()
        return encoded
    }
}

/// A ``ProjectionWorker`` without its projection's document type.
protocol AnyProjectionWorker: AnyObject {
    var name: String { get }
    var position: Int64 { get }
    var status: ProjectionStatus { get }
    /// Seconds this worker's commits have spent encoding documents, summed over threads.
    var encodingSeconds: Double { get }
    /// Applies `events` (those a view can read) and moves past every event through `last`.
    func apply(_ events: [ViewEvent], through last: Int64) throws
    func commit(activate: Bool) throws
    func reload() throws
}
