import Foundation

/// Where projections keep their views and checkpoints: in the same store as the log, so a
/// batch of view changes and the checkpoint it reached are committed in one transaction.
///
/// A view is a set of JSON documents by key (e.g. one favorites document per user). Each
/// projection has generations: the active one answers readers; a rebuild fills a new one
/// beside it and ``commit(_:)`` with `activate` swaps it in at once, so readers never see a
/// half-built view.
public protocol ProjectionStore: Sendable {
    /// Every generation of every projection, with its checkpoint.
    func projectionStatuses() throws -> [ProjectionStatus]

    /// Starts a new, empty, inactive generation of a projection (at position 0).
    /// - Parameter version: the version of the projection's code that will fill it.
    func startGeneration(of projection: String, version: Int) throws -> ProjectionStatus

    /// The documents stored under `keys` in one generation (missing keys are left out).
    /// Cost: one indexed lookup per key.
    func documents(of projection: String, generation: Int, keys: [String]) throws -> [String: Data]

    /// Up to `limit` documents of a generation with keys greater than `key`, in key order.
    func documents(of projection: String, generation: Int, after key: String, limit: Int) throws -> [(key: String, document: Data)]

    /// Writes view changes and moves the generation's checkpoint, atomically; with `activate`,
    /// also makes the generation the one readers see and drops the others.
    /// - Throws: ``ProjectionStoreError/checkpointMoved(projection:generation:expected:actual:)``
    ///   when another projector advanced the checkpoint first; nothing is written then.
    func commit(_ changes: ViewChanges) throws

    /// Removes a generation and its documents (an abandoned rebuild).
    func dropGeneration(of projection: String, generation: Int) throws
}

/// One generation of a projection and how far it has read the log.
public struct ProjectionStatus: Sendable, Hashable {
    /// The projection's name, e.g. `favorites`.
    public var name: String
    /// The generation number; a rebuild makes a higher one.
    public var generation: Int
    /// The version of the projection code that built it.
    public var version: Int
    /// The checkpoint: the position of the last event applied.
    public var position: Int64
    /// Whether readers see this generation.
    public var isActive: Bool

    /// Makes a status.
    public init(name: String, generation: Int, version: Int, position: Int64, isActive: Bool) {
        self.name = name
        self.generation = generation
        self.version = version
        self.position = position
        self.isActive = isActive
    }
}

/// A batch of changes to one generation of a view, with the checkpoint they reach.
///
/// The changed documents come in parts, which the store takes one after the other inside
/// its transaction: a commit that rewrites a whole view (the end of a rebuild) then holds
/// one part's JSON at a time, not every document of the view at once.
public struct ViewChanges: Sendable {
    /// One changed key: its new document, or nil to remove the key.
    public typealias Change = (key: String, document: Data?)
    /// Hands the changes to `body` in parts, in order, each key once.
    public typealias Parts = @Sendable (_ body: ([Change]) throws -> Void) throws -> Void

    /// The view's name.
    public var projection: String
    /// The generation the changes go to.
    public var generation: Int
    /// The checkpoint the changes were computed from; the commit fails if it moved.
    public var fromPosition: Int64
    /// The checkpoint after the changes.
    public var toPosition: Int64
    /// Whether to make this generation the active one (and drop the others) in the same commit.
    public var activate: Bool
    private let parts: Parts

    /// Changes given all at once: new documents by key; nil removes the key.
    public init(projection: String, generation: Int, documents: [String: Data?], fromPosition: Int64, toPosition: Int64, activate: Bool = false) {
        let changes = documents.map { Change(key: $0.key, document: $0.value) }
        self.init(projection: projection, generation: generation, fromPosition: fromPosition, toPosition: toPosition, activate: activate) { body in
            if !changes.isEmpty { try body(changes) }
        }
    }

    /// Changes produced part by part while the store writes them (see ``Parts``).
    public init(projection: String, generation: Int, fromPosition: Int64, toPosition: Int64, activate: Bool = false, parts: @escaping Parts) {
        self.projection = projection
        self.generation = generation
        self.fromPosition = fromPosition
        self.toPosition = toPosition
        self.activate = activate
        self.parts = parts
    }

    /// Hands the changes to `body` in parts, in order; a store calls it inside its transaction,
    /// and only during ``ProjectionStore/commit(_:)`` (the parts may read the projector's
    /// documents, which are its own again once the commit returns).
    public func forEachPart(_ body: ([Change]) throws -> Void) throws {
        try parts(body)
    }

    /// Every change at once, by key (for tests and small commits).
    public func documents() throws -> [String: Data?] {
        var all: [String: Data?] = [:]
        try forEachPart { part in for change in part { all.updateValue(change.document, forKey: change.key) } }
        return all
    }
}

/// Failures of a projection store that a projector acts on.
public enum ProjectionStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Another projector committed first; reload the checkpoint and carry on from there.
    case checkpointMoved(projection: String, generation: Int, expected: Int64, actual: Int64?)

    public var description: String {
        switch self {
        case let .checkpointMoved(projection, generation, expected, actual):
            let now = actual.map { "is at \($0)" } ?? "no longer exists"
            return "projection '\(projection)' generation \(generation) was expected at position \(expected) but \(now) (another projector moved it)"
        }
    }
}

/// A store on which several projector processes can agree that one of them at a time
/// advances a projection. (Correctness never depends on it: a commit whose checkpoint moved
/// is refused. Leases only stop projectors from doing the same work twice.)
public protocol ProjectionLeasing: ProjectionStore {
    /// Tries to become the one projector of `projection`; nil when another holds it. A lease
    /// ends when released, or when its holder's process or connection ends, so another
    /// projector takes over when one dies.
    func tryLease(_ projection: String) throws -> (any ProjectionLease)?
}

/// The right to advance one projection, held until released.
public protocol ProjectionLease: AnyObject {
    /// Whether the lease still holds (its connection is alive).
    var isHeld: Bool { get }
    /// Gives the lease up.
    func release()
}
