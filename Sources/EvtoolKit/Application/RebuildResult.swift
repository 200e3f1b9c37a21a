import Foundation

/// What a rebuild of views did: each view rebuilt with the documents it now holds, and the log
/// position they were rebuilt through.
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
}
