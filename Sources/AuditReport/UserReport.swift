import Audit
import Commands
import EventLog
import Foundation
import Projections

/// What the audit report of one user shows, gathered from the log in one read of the user's
/// stream (bounded by the stream's size, never the log's), plus one stream verification and
/// the store's seals and erasures.
package struct UserReport: Sendable {
    /// One row of the timeline.
    package struct Row: Sendable {
        /// The event as `evtool history` words it.
        package var entry: History.Entry
        /// The erasure that covers it, when its payload was erased.
        package var erasure: ErasureRecord?
    }

    /// A `UserErased` event: who erased which stream, why and when.
    package struct ErasureRecord: Sendable, Hashable {
        /// The `UserErased` event's position.
        package var position: Int64
        /// The erased user's stream.
        package var stream: String
        /// How many events' payloads it erased.
        package var events: Int64
        /// The last position of the stream it covers.
        package var throughPosition: Int64
        /// Why (a ticket, a legal basis).
        package var reason: String
        /// The operator who erased.
        package var by: String
        /// When the store recorded the erasure.
        package var recordedAt: Date
    }

    /// One change of a listing in the user's favorites.
    package struct FavoriteChange: Sendable, Hashable {
        /// The listing's id.
        package var listingID: String
        /// The listing's name from the favorite.
        package var name: String
        /// When it was favorited, by the client's clock (``OccurredTime``; nil: before the report's first event).
        package var added: Date?
        /// When it was removed, by the client's clock (nil: still a favorite).
        package var removed: Date?
    }

    /// A search, as the report's searches table shows it.
    package struct SearchRow: Sendable, Hashable {
        /// The search's position in the log.
        package var position: Int64
        /// When the store recorded it.
        package var recordedAt: Date
        /// When the user searched, by the client's clock (``OccurredTime``).
        package var occurredAt: Date
        /// What the user searched for.
        package var keyword: String
        /// The category searched in.
        package var category: String
        /// How far, with its units (e.g. `10 miles`).
        package var distance: String
        /// Where: the typed location or the detected coordinates.
        package var location: String
        /// How many results came back, if the client said.
        package var results: Int?
    }

    /// The result of verifying the user's hash chain while making the report.
    package enum ChainCheck: Sendable, Hashable {
        case verified(events: Int64, erased: Int64)
        case failed(String)
        case empty
    }

    /// The user the report is about.
    package var user: String
    /// The store, as the page names it (password masked).
    package var storeDescription: String
    /// The head of the log when the report was made.
    package var headPosition: Int64
    /// The point the views are folded as of (nil: now).
    package var asOf: AsOf?
    /// When the report was made.
    package var madeAt: Date
    /// The user's timeline, oldest first.
    package var rows: [Row] = []
    /// The user's events per type.
    package var countsByType: [String: Int] = [:]
    /// The user's favorites count at the end of each UTC day, by the day each action occurred
    /// (``OccurredTime``), for each day on which an action occurred, oldest first: the count after
    /// the last action in log order that occurred that day. Days without one are left out (the
    /// count holds over them), so the series grows with the user's actions, not their span.
    package var favoritesByDay: [(day: Int64, count: Int)] = []
    /// Every favorite the user added or removed, with when.
    package var favoriteChanges: [FavoriteChange] = []
    /// The user's searches, oldest first.
    package var searches: [SearchRow] = []
    /// Each listing the user favorited, removed or opened: the position of the last such event
    /// on the page (the page links a listing to that row of its timeline).
    package var lastEventOfListing: [String: Int64] = [:]
    /// The favorites view folded from the user's stream (as of ``asOf``).
    package var favorites: FavoritesProjection.Document?
    /// The recent searches view folded from the user's stream (as of ``asOf``).
    package var recentSearches: RecentSearchesProjection.Document?
    /// The recently viewed view folded from the user's stream (as of ``asOf``).
    package var recentlyViewed: RecentlyViewedProjection.Document?
    /// The result of verifying the user's hash chain.
    package var chain: ChainCheck = .empty
    /// The latest seal at or after the user's last event (nil when none covers it yet).
    package var coveringSeal: Seal?
    /// How many seals the store holds.
    package var sealCount = 0
    /// What was re-checked about ``coveringSeal`` (and a checkpoint, when given) while making the report.
    package var sealCheck: SealCheck?
    /// The checkpoint given, when no seal covers the user's last event (it is then not checked).
    package var uncheckedCheckpoint: String?

    /// The first and last action's recorded times (the store's clock).
    package var period: (first: Date, last: Date)? {
        guard let first = rows.first?.entry.recordedAt, let last = rows.last?.entry.recordedAt else { return nil }
        return (first, last)
    }

    /// The user's actions that occurred more than 30 days before or after the store recorded them (``OccurredTime/far``), in log order.
    package var farRows: [Row] {
        rows.filter { OccurredTime.isFar($0.entry.occurredAt ?? $0.entry.recordedAt, recorded: $0.entry.recordedAt) }
    }

    /// The earliest and latest time the user's actions occurred (the client's clock, ``OccurredTime``).
    package var occurredPeriod: (first: Date, last: Date)? {
        let times = rows.map { $0.entry.occurredAt ?? $0.entry.recordedAt }
        guard let first = times.min(), let last = times.max() else { return nil }
        return (first, last)
    }

    /// Gathers the report of `user` as of `asOf` (the whole stream when nil).
    /// Cost: one read of the user's stream (views, timeline and chart in the same pass), one
    /// verification of that stream, the store's seals and the `$erasures` stream.
    /// With `outside`, the checkpoint is checked too (its signature with the key given, its root against the log).
    package static func gather(user: String, in store: any EventStore, asOf: AsOf?, storeDescription: String, now: Date = Date(),
                              outside: SealCheck.Outside? = nil) throws -> UserReport {
        let stream = UserStream.id(for: user)
        var report = UserReport(user: user, storeDescription: storeDescription, headPosition: try store.headPosition(), asOf: asOf, madeAt: now)
        let erasures = try ErasureRecord.all(in: store).filter { $0.stream == stream }

        var favorites: FavoritesProjection.Document?
        var recent: RecentSearchesProjection.Document?
        var viewed: RecentlyViewedProjection.Document?
        var changes: [String: Int] = [:]  // listing → index of its open change in favoriteChanges
        var countAtDay: [Int64: Int] = [:]  // occurred day → favorites after the last action (in log order) that occurred that day
        var next: Int64 = 1
        reading: while true {
            let batch = try store.read(stream: stream, from: next, direction: .forwards, limit: 1_000)
            for recorded in batch {
                if let asOf, !asOf.includes(position: recorded.position, recordedAt: recorded.recordedAt) {
                    if case .position = asOf { break reading }
                    continue
                }
                // A tombstone the erasure covers, or the erasure's marker (appended just before its `UserErased` event).
                let erasure = erasures.first { recorded.position <= $0.throughPosition && recorded.data == Erasure.tombstone }
                    ?? (Erasure.isMarker(recorded) ? erasures.first { $0.position == recorded.position + 1 } : nil)
                let entry = History.entry(for: recorded)
                report.rows.append(Row(entry: entry, erasure: erasure))
                report.countsByType[recorded.type, default: 0] += 1
                let occurredAt = entry.occurredAt ?? recorded.recordedAt
                let day = HTML.dayNumber(occurredAt)
                defer { countAtDay[day] = favorites?.count ?? 0 }
                guard erasure == nil, let event = ViewEvent.decode(recorded) else { continue }
                Views.favorites.evolve(&favorites, with: event)
                Views.recentSearches.evolve(&recent, with: event)
                Views.recentlyViewed.evolve(&viewed, with: event)
                switch event.action {
                case .favorited(let listing, _), .unfavorited(let listing), .detailsViewed(let listing, _, _):
                    report.lastEventOfListing[listing] = recorded.position
                default: break
                }
                switch event.action {
                case .favorited(let listing, let summary):
                    if changes[listing] == nil {
                        changes[listing] = report.favoriteChanges.count
                        report.favoriteChanges.append(FavoriteChange(listingID: listing, name: summary.name, added: occurredAt, removed: nil))
                    }
                case .unfavorited(let listing):
                    if let index = changes.removeValue(forKey: listing) { report.favoriteChanges[index].removed = occurredAt }
                case .searched(let search):
                    let place: String
                    switch search.location {
                    case let .current(latitude, longitude): place = String(format: "here (%.4f,%.4f)", latitude, longitude)
                    case let .custom(text): place = text
                    }
                    report.searches.append(SearchRow(
                        position: recorded.position, recordedAt: recorded.recordedAt, occurredAt: occurredAt, keyword: search.keyword, category: search.category.rawValue,
                        distance: "\(History.formatDistance(search.distance)) \(search.units.rawValue)", location: place, results: search.resultCount))
                case .detailsViewed, .erased: break
                }
            }
            guard let last = batch.last, batch.count == 1_000 else { break }
            next = last.version + 1
        }
        report.favoritesByDay = countAtDay.keys.sorted().map { ($0, countAtDay[$0] ?? 0) }
        report.favorites = favorites
        report.recentSearches = recent
        report.recentlyViewed = viewed

        // After an archive the user's chain goes on from its head at the boundary (the
        // archived events are in the archive file, checked by 'verify --archive').
        var verifier = try LogArchive.verifier(for: store)
        do {
            let result = try verifier.verifyStream(stream)
            report.chain = result.events > 0 ? .verified(events: result.events, erased: result.erasedEvents) : .empty
        } catch let failure as VerificationFailure {
            report.chain = .failed(String(describing: failure))
        }
        if let audit = store as? any AuditableEventStore {
            let seals = try audit.seals()
            report.sealCount = seals.count
            if let lastPosition = report.rows.last?.entry.position {
                report.coveringSeal = seals.last { $0.position >= lastPosition }
                if let seal = report.coveringSeal {
                    report.sealCheck = try SealCheck.run(seal: seal, seals: seals, lastPosition: lastPosition, headPosition: report.headPosition,
                                                         store: audit, outside: outside)
                }
            }
        }
        if report.sealCheck == nil, let outside { report.uncheckedCheckpoint = outside.name }
        return report
    }
}

extension UserReport.ErasureRecord {
    /// Every `UserErased` event in the store, oldest first (there are few).
    static func all(in store: any EventStore) throws -> [UserReport.ErasureRecord] {
        try store.read(stream: Erasure.stream).compactMap { event in
            guard event.type == Erasure.eventType,
                  let object = try? JSONSerialization.jsonObject(with: event.data) as? [String: Any],
                  let stream = object["stream"] as? String, let through = object["throughPosition"] as? NSNumber else { return nil }
            return UserReport.ErasureRecord(
                position: event.position, stream: stream, events: (object["events"] as? NSNumber)?.int64Value ?? 0,
                throughPosition: through.int64Value, reason: object["reason"] as? String ?? "", by: object["by"] as? String ?? "",
                recordedAt: event.recordedAt)
        }
    }
}
