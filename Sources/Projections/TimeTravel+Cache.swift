import Commands
import EventLog
import Foundation

extension TimeTravel {
    /// A view's document for `key` as of `point`, as ``document(_:key:asOf:in:)`` computes it,
    /// starting from and keeping states in `cache` for views keyed by user as of a position
    /// (``TimeTravelCache``): what a long-running process (`evtool serve`, an app back end
    /// over ``Application``) uses, so that repeated reads of a user's past cost a few events.
    ///
    /// Cost: with a kept state at or before the position whose next kept state is past it, reads
    /// of the events after it in chunks doubling from 8, up to the first event past the position
    /// (at most the events between the two, about ``TimeTravelCache/step``), the event types the
    /// view does not read skipped undecoded (``Projection/reads(type:)``); otherwise as
    /// ``document(_:key:asOf:in:)`` (the stream searched for the position, the nearest stored
    /// snapshot, at most ``ViewSnapshots/interval`` events), keeping a state every
    /// ``TimeTravelCache/step`` versions and at the position's version. Other views and
    /// `as-of` a time do not use the cache.
    public static func document<P: Projection>(_ projection: P, key: String, asOf point: AsOf, in store: any EventStore,
                                               cache: TimeTravelCache?) throws -> P.Document? {
        guard let cache, projection.isKeyedByUser, case .position(let position) = point else {
            return try document(projection, key: key, asOf: point, in: store)
        }
        try refuseArchived(projection, key: key, in: store)
        let stream = UserStream.id(for: key)
        let cacheKey = TimeTravelCache.Key(kind: ViewSnapshots.kind(of: projection), stream: stream)
        if let document = try fromKept(projection, key: key, stream: stream, position: position, in: store, cache: cache, cacheKey: cacheKey) {
            return document.document
        }
        // No kept state fits: search the stream, start from the nearest stored snapshot.
        var fold = ViewSnapshots.Fold(projection, documentKey: projection.documentKey(key))
        var kept: [TimeTravelCache.Entry] = []
        let last = try StreamSearch.firstVersion(of: stream, afterPosition: position, in: store) - 1
        var next: Int64 = 1
        if let snapshots = store as? any EventStore & SnapshotDocuments {
            var slot = last / ViewSnapshots.interval * ViewSnapshots.interval
            var tries = 0
            while slot > 0, tries < 2 {
                tries += 1
                var candidate = ViewSnapshots.Fold(projection, documentKey: projection.documentKey(key))
                let ends = try store.read(stream: stream, from: slot, direction: .forwards, limit: 1).first
                if let ends, try candidate.start(from: snapshots, stream: stream, slot: slot, endingWith: ends) {
                    fold = candidate
                    next = slot + 1
                    kept.append(TimeTravelCache.Entry(after: ends, holding: fold.document))
                    break
                }
                slot -= ViewSnapshots.interval
            }
        }
        var ended: RecordedEvent?
        while next <= last {
            let batch = try store.read(stream: stream, from: next, direction: .forwards, limit: Int(min(1_000, last - next + 1)))
            guard let end = batch.last else { break }
            if apply(batch, to: &fold, through: position, step: cache.step, kept: &kept, ended: &ended) { break }
            next = end.version + 1
        }
        if let ended, kept.last?.version != ended.version {
            kept.append(TimeTravelCache.Entry(after: ended, holding: fold.document))
        }
        cache.keep(kept, for: cacheKey)
        return fold.document
    }

    /// The document from the kept state nearest before the position, folding at most
    /// ``ViewSnapshots/interval`` events after it; nil when no kept state fits (or the
    /// position lies too far past it).
    private static func fromKept<P: Projection>(_ projection: P, key: String, stream: String, position: Int64, in store: any EventStore,
                                                cache: TimeTravelCache, cacheKey: TimeTravelCache.Key) throws -> TimeTravelCache.Held<P.Document>? {
        guard let start = cache.start(cacheKey, atOrBefore: position),
              let held = start.entry.document as? TimeTravelCache.Held<P.Document> else { return nil }
        let (entry, nextVersion) = start
        var fold = ViewSnapshots.Fold(projection, documentKey: projection.documentKey(key))
        fold.document = held.document
        var kept: [TimeTravelCache.Entry] = []
        var ended: RecordedEvent?
        // The first read starts at the kept state's own event, to check it still fits. Reads
        // grow from a few events (doubling) up to the next kept state: the position is
        // usually nearer than that, and a row read past it is a row decoded for nothing
        // (about 40% of a hit's time in the profile, docs/explanation/scale.md, when it read through to
        // the next kept state).
        var next = entry.version
        let stop = entry.version + ViewSnapshots.interval
        var pastPosition = false
        var chunk: Int64 = 8
        while !pastPosition, next <= stop {
            let bound = nextVersion.map { min($0, stop) - next + 1 } ?? min(4 * cache.step, stop - next + 1)
            let wanted = Int(max(min(chunk, bound), 2))
            chunk = min(2 * chunk, ViewSnapshots.interval)
            var batch = try store.read(stream: stream, from: next, direction: .forwards, limit: wanted)
            let reachedEnd = batch.count < wanted
            if next == entry.version {
                guard let first = batch.first, entry.fits(first) else {
                    cache.drop(cacheKey)
                    return nil
                }
                batch.removeFirst()
                ended = first
            }
            pastPosition = apply(batch, to: &fold, through: position, step: cache.step, kept: &kept, ended: &ended) || reachedEnd
            guard let end = batch.last else { break }
            next = end.version + 1
        }
        guard pastPosition else { return nil }
        if let ended, ended.version != entry.version, kept.last?.version != ended.version {
            kept.append(TimeTravelCache.Entry(after: ended, holding: fold.document))
        }
        cache.keep(kept, for: cacheKey)
        return TimeTravelCache.Held(document: fold.document)
    }

    /// Applies the events of `batch` at or before `position`; keeps the state at every
    /// `step`th version; true when an event past the position was reached.
    private static func apply<P: Projection>(_ batch: [RecordedEvent], to fold: inout ViewSnapshots.Fold<P>, through position: Int64, step: Int64,
                                            kept: inout [TimeTravelCache.Entry], ended: inout RecordedEvent?) -> Bool {
        for recorded in batch {
            if recorded.position > position { return true }
            fold.apply(recorded)
            ended = recorded
            if recorded.version % step == 0 {
                kept.append(TimeTravelCache.Entry(after: recorded, holding: fold.document))
            }
        }
        return false
    }
}
