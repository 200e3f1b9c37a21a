import EventLog
import Foundation

/// Drives one projection against a store: its generation, checkpoint, cached documents and
/// the changes not yet committed. Used by one ``Projector`` at a time.
final class ProjectionWorker<P: Projection>: AnyProjectionWorker {
    let projection: P
    let store: any ProjectionStore
    private(set) var status: ProjectionStatus
    /// One key's document as the store has it plus the uncommitted changes; a class, so that
    /// a document evolves in place with one dictionary lookup per event.
    private final class Slot {
        var document: P.Document?
        var isDirty = false
        init(_ document: P.Document?) { self.document = document }
    }
    /// Documents known to match the store's generation plus the uncommitted changes.
    private var cache: [String: Slot] = [:]
    /// The keys changed since the last commit, with their slots.
    private var dirty: [(key: String, slot: Slot)] = []
    /// Position of the last event applied but not yet committed.
    private(set) var pendingPosition: Int64
    /// When set, the generation was empty when this worker started it, so a key missing
    /// from the cache is missing from the store too (no lookup needed).
    private var cacheIsComplete: Bool
    private let cacheLimit: Int

    var name: String { projection.name }
    var position: Int64 { pendingPosition }

    init(projection: P, store: any ProjectionStore, status: ProjectionStatus, cacheLimit: Int) {
        self.projection = projection
        self.store = store
        self.status = status
        self.pendingPosition = status.position
        self.cacheIsComplete = status.position == 0
        self.cacheLimit = cacheLimit
    }

    /// Applies the events after this projection's checkpoint.
    func apply(_ events: [(position: Int64, event: ViewEvent?)]) throws {
        // Events whose key's document is neither cached nor known to be absent wait until
        // those documents are loaded (one store lookup for all of them); every later event of
        // such a key waits too, so each key still sees its events in log order.
        var waiting: [(key: String, event: ViewEvent)] = []
        var missing: Set<String> = []
        for (position, event) in events where position > pendingPosition {
            guard let event, let key = projection.key(for: event) else { continue }
            if let slot = cache[key], !missing.contains(key) {
                evolve(slot, key: key, with: event)
            } else if cacheIsComplete {
                let slot = Slot(nil)
                cache[key] = slot
                evolve(slot, key: key, with: event)
            } else {
                missing.insert(key)
                waiting.append((key, event))
            }
        }
        if !missing.isEmpty {
            let found = try store.documents(of: projection.name, generation: status.generation, keys: Array(missing))
            for key in missing where cache[key] == nil {
                cache[key] = Slot(try found[key].map { try P.Document.decode($0) })
            }
            for (key, event) in waiting { evolve(cache[key]!, key: key, with: event) }
        }
        if let last = events.last?.position, last > pendingPosition { pendingPosition = last }
    }

    @inline(__always)
    private func evolve(_ slot: Slot, key: String, with event: ViewEvent) {
        projection.evolve(&slot.document, with: event)
        if !slot.isDirty {
            slot.isDirty = true
            dirty.append((key, slot))
        }
    }

    /// Commits the changes since the last commit with the new checkpoint; with `activate`,
    /// also swaps this generation in for readers.
    func commit(activate: Bool) throws {
        guard pendingPosition != status.position || !dirty.isEmpty || (activate && !status.isActive) else { return }
        let encoded = Self.encode(dirty)
        var documents: [String: Data?] = [:]
        documents.reserveCapacity(dirty.count)
        for (index, entry) in dirty.enumerated() {
            // updateValue keeps a nil (a deletion); assigning nil by subscript would drop the key.
            documents.updateValue(encoded[index], forKey: entry.key)
        }
        do {
            try store.commit(ViewChanges(projection: projection.name, generation: status.generation, documents: documents,
                                         fromPosition: status.position, toPosition: pendingPosition, activate: activate))
        } catch let error as ProjectionStoreError {
            // Another projector moved the checkpoint: forget what we computed and reload.
            try reload()
            throw error
        }
        for entry in dirty { entry.slot.isDirty = false }
        dirty.removeAll(keepingCapacity: true)
        status.position = pendingPosition
        if activate { status.isActive = true }
        if cache.count > cacheLimit {
            cache.removeAll(keepingCapacity: true)
            cacheIsComplete = false
        }
    }

    /// The JSON of each changed document (nil: removed). A commit after a rebuild writes every
    /// document of the view, so large commits are encoded on every core, in contiguous parts.
    private static func encode(_ changed: [(key: String, slot: Slot)]) -> [Data?] {
        let parts = changed.count >= 2_048 ? min(ProcessInfo.processInfo.activeProcessorCount, 8) : 1
        guard parts > 1 else { return changed.map { $0.slot.document.map { $0.jsonData } } }
        var encoded = [Data?](repeating: nil, count: changed.count)
        encoded.withUnsafeMutableBufferPointer { output in
            // Each part writes only its own range of `output`; the slots are only read.
            nonisolated(unsafe) let output = output, changed = changed
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                let range = (changed.count * part / parts)..<(changed.count * (part + 1) / parts)
                for index in range { output[index] = changed[index].slot.document.map { $0.jsonData } }
            }
        }
        return encoded
    }

    /// Re-reads the checkpoint from the store and drops every cached document.
    func reload() throws {
        guard let fresh = try store.projectionStatuses().first(where: { $0.name == projection.name && $0.generation == status.generation }) else {
            throw ProjectionStoreError.checkpointMoved(projection: projection.name, generation: status.generation, expected: status.position, actual: nil)
        }
        status = fresh
        pendingPosition = fresh.position
        cache.removeAll()
        dirty.removeAll()
        cacheIsComplete = false
    }

    /// The committed document for `key` in this worker's generation.
    func document(for key: String) throws -> P.Document? {
        try store.documents(of: projection.name, generation: status.generation, keys: [key])[key]
            .map { try P.Document.decode($0) }
    }
}

/// A ``ProjectionWorker`` without its projection's document type.
protocol AnyProjectionWorker: AnyObject {
    var name: String { get }
    var position: Int64 { get }
    var status: ProjectionStatus { get }
    func apply(_ events: [(position: Int64, event: ViewEvent?)]) throws
    func commit(activate: Bool) throws
    func reload() throws
}
