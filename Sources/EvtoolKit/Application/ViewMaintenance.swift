import Audit
import EventLog
import Foundation
import Projections
import Transfer

/// `rebuild`: views rebuilt from the whole log while readers keep the old ones, with progress
/// and a way to stop at a batch boundary (the next rebuild resumes from the last commit).
public enum ViewMaintenance {
    /// Rebuilds the views `names` (nil: all) from position 0 and swaps each in when complete.
    /// - Parameters:
    ///   - archives: on a store with archives, every archive's file, oldest first: verified with
    ///     the kept log (as `verify --archive` does), then folded before it (``ArchiveReplay``).
    ///     Without them a rebuild of an archived store is refused.
    ///   - progress: positions rebuilt, after each batch.
    ///   - shouldStop: checked after each batch; when true the rebuild stops there.
    /// - Returns: the views rebuilt (each one's generation and documents), the position they
    ///   were rebuilt through and the time it took.
    /// - Throws: ``OperationError/interrupted(_:)`` when stopped; the store's errors.
    @discardableResult
    public static func rebuild(_ store: any EventStore & ProjectionStore, names: [String]? = nil, archives: [String] = [],
                               progress: ProgressHandler = { _ in }, shouldStop: () -> Bool = { false }) throws -> RebuildResult {
        let started = ContinuousClock.now
        let names = Projector.distinct(names)
        let source: any EventStore & ProjectionStore
        if archives.isEmpty {
            try LogArchive.refuseRebuild(store, what: "rebuild")
            source = store
        } else {
            source = try LogArchive.replay(store, files: archives)
        }
        try progress(.started(label: "rebuild", total: try store.headPosition(), unit: "events"))
        let projector = Projector(store: source)
        let head = try projector.rebuild(names) { position, _ in
            try progress(.advanced(position))
            if shouldStop() {
                try progress(.finished)
                throw OperationError.interrupted("interrupted at position \(position); run the same rebuild again to resume from its last commit (readers still see the old views)")
            }
        }
        try progress(.completed(head))
        try progress(.finished)
        return try RebuildResult(projector, store: source, names: names, head: head, since: started)
    }
}
