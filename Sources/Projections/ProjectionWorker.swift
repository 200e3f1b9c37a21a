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
    private var dirty: [String] = []
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
        var touched: [(slot: Slot?, key: String, event: ViewEvent)] = []
        var missing: [String] = []
        for (position, event) in events where position > pendingPosition {
            guard let event, let key = projection.key(for: event) else { continue }
            let slot = cache[key]
            if slot == nil {
                if cacheIsComplete {
                    let fresh = Slot(nil)
                    cache[key] = fresh
                    touched.append((fresh, key, event))
                    continue
                }
                missing.append(key)
            }
            touched.append((slot, key, event))
        }
        if !missing.isEmpty {
            let found = try store.documents(of: projection.name, generation: status.generation, keys: Array(Set(missing)))
            for key in missing where cache[key] == nil {
                cache[key] = Slot(try found[key].map { try P.Document.decode($0) })
            }
        }
        for (known, key, event) in touched {
            let slot = known ?? cache[key]!
            projection.evolve(&slot.document, with: event)
            if !slot.isDirty {
                slot.isDirty = true
                dirty.append(key)
            }
        }
        if let last = events.last?.position, last > pendingPosition { pendingPosition = last }
    }

    /// Commits the changes since the last commit with the new checkpoint; with `activate`,
    /// also swaps this generation in for readers.
    func commit(activate: Bool) throws {
        guard pendingPosition != status.position || !dirty.isEmpty || (activate && !status.isActive) else { return }
        var documents: [String: Data?] = [:]
        documents.reserveCapacity(dirty.count)
        for key in dirty {
            // updateValue keeps a nil (a deletion); assigning nil by subscript would drop the key.
            documents.updateValue(cache[key]?.document.map(\.jsonData), forKey: key)
        }
        do {
            try store.commit(ViewChanges(projection: projection.name, generation: status.generation, documents: documents,
                                         fromPosition: status.position, toPosition: pendingPosition, activate: activate))
        } catch let error as ProjectionStoreError {
            // Another projector moved the checkpoint: forget what we computed and reload.
            try reload()
            throw error
        }
        for key in dirty { cache[key]?.isDirty = false }
        dirty.removeAll(keepingCapacity: true)
        status.position = pendingPosition
        if activate { status.isActive = true }
        if cache.count > cacheLimit {
            cache.removeAll(keepingCapacity: true)
            cacheIsComplete = false
        }
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
