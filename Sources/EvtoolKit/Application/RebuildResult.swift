import EventLog
import Foundation
import Projections

/// What a rebuild of views did: each view rebuilt with the documents it now holds, and the log
/// position they were rebuilt through: what `evtool rebuild` and `POST /v1/admin/rebuild` answer.
public struct RebuildResult: Sendable, Hashable {
    /// One rebuilt view.
    public struct View: Sendable, Hashable {
        /// The view's name.
        public var name: String
        /// The generation now active (the rebuilt one).
        public var generation: Int
        /// Documents in it (users or listings with something to show).
        public var documents: Int
    }

    /// The views rebuilt, in the projector's order.
    public var views: [View]
    /// The log position every rebuilt view reflects.
    public var head: Int64
    /// Seconds the rebuild took.
    public var seconds: Double

    /// Makes a result.
    public init(views: [View], head: Int64, seconds: Double) {
        self.views = views
        self.head = head
        self.seconds = seconds
    }

    /// The result of a rebuild `projector` just made of the views `names` (nil: all) through
    /// `head`, started at `started`: each view's active generation and the documents it holds
    /// in `store`.
    init(_ projector: Projector, store: any ProjectionStore, names: [String]?, head: Int64, since started: ContinuousClock.Instant) throws {
        let statuses = try projector.statuses()
        var views: [View] = []
        for name in names ?? projector.names {
            guard let active = statuses.first(where: { $0.name == name && $0.isActive }) else { continue }
            views.append(View(name: name, generation: active.generation,
                              documents: try Self.documentCount(of: name, generation: active.generation, in: store)))
        }
        let elapsed = ContinuousClock.now - started
        self.init(views: views, head: head, seconds: elapsed.timeInterval)
    }

    /// The documents a generation of a view holds.
    private static func documentCount(of name: String, generation: Int, in store: any ProjectionStore) throws -> Int {
        var count = 0
        var after = ""
        while true {
            let page = try store.documents(of: name, generation: generation, after: after, limit: 10_000)
            count += page.count
            guard page.count == 10_000, let last = page.last else { return count }
            after = last.key
        }
    }
}
