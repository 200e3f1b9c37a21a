import Commands
import EventLog
import Foundation
import Projections

/// What the store overview shows, gathered in one streaming pass over the log (memory grows
/// with days, users and listings, never with events), plus the seals, view checkpoints and erasures.
package struct StoreOverview: Sendable {
    /// The event types the stacked chart shows in their own colour; the rest are "other".
    package static let chartedTypes = ["Searched", "Favorited", "Unfavorited", "DetailsViewed"]

    /// One day of the log. The activity (events by type, users) counts each event on the day
    /// it occurred (``OccurredTime``: when the user acted); ``recorded`` on the day the store took it.
    package struct Day: Sendable, Hashable {
        /// The UTC day, in days since 1970-01-01.
        package var day: Int64
        /// Events that occurred that day per type, in ``StoreOverview/chartedTypes`` order, then other types.
        package var byType: [Int]
        /// Events the store recorded that day.
        package var recorded: Int
        /// Users with at least one action that occurred that day.
        package var activeUsers: Int
        /// Users whose first action occurred on or before that day.
        package var users: Int
    }

    /// A listing with how often users favorited or opened it.
    package struct ListingCount: Sendable, Hashable {
        /// The listing's id.
        package var listingID: String
        /// The listing's name, as last recorded.
        package var name: String
        /// How many times.
        package var count: Int
    }

    /// A view's checkpoint and how far it is behind the head.
    package struct Checkpoint: Sendable, Hashable {
        /// The view's status (generation, version, checkpoint).
        package var status: ProjectionStatus
        /// Events between the checkpoint and the head.
        package var lag: Int64
    }

    /// The store, as the page names it (password masked).
    package var storeDescription: String
    /// When the overview was made.
    package var madeAt: Date
    /// The head of the log the overview reads up to.
    package var headPosition: Int64
    /// Events in the log up to the head.
    package var events: Int64 = 0
    /// Each day with events, oldest first.
    package var days: [Day] = []
    /// Users with at least one event.
    package var users = 0
    /// The listings favorited most often, most first.
    package var mostFavorited: [ListingCount] = []
    /// The listings whose details were opened most often, most first.
    package var mostViewed: [ListingCount] = []
    /// The seals recorded, oldest first.
    package var seals: [Seal] = []
    /// Each view's checkpoint and lag.
    package var checkpoints: [Checkpoint] = []
    /// The erasures recorded, oldest first.
    package var erasures: [UserReport.ErasureRecord] = []
    /// The checkpoints `evtool seal --key` signed and the store recorded, in order.
    package var signedCheckpoints: [RecordedCheckpoint] = []
    /// The whole log's verify verdict (nil: not verified while gathering).
    package var verdict: LogVerdict?
    /// The users with the most events, most first (at most ``gather(in:storeDescription:top:users:now:)``'s `users`).
    package var topUsers: [UserCount] = []

    /// The size of the charts' buckets: a day while few days hold events (``DayBuckets``).
    var chartSize: DayBuckets.Size = .day
    /// Users with at least one action that occurred in each bucket of the charts that holds events, oldest first.
    var activeUsersByBucket: [(bucket: DayBuckets.Bucket, count: Int)] = []
    /// How many events occurred more than 30 days from when they were recorded (``OccurredTime/far``).
    package var farEventCount = 0
    /// The first of those events in log order (at most ``gather(in:storeDescription:top:users:now:verify:)``'s `top` times five).
    package var farEvents: [FarEvent] = []

    /// An event that occurred far from when the store recorded it (by the client's clock).
    package struct FarEvent: Sendable, Hashable {
        /// The event's position.
        package var position: Int64
        /// Its stream, as recorded.
        package var stream: String
        /// Its type.
        package var type: String
        /// When the store recorded it.
        package var recordedAt: Date
        /// When it occurred, by the client's clock.
        package var occurredAt: Date
    }

    /// A user and how many events of theirs the log holds.
    package struct UserCount: Sendable, Hashable {
        /// The user id, as recorded.
        package var user: String
        /// Their events.
        package var events: Int
    }

    /// Gathers the overview in one pass over the log up to the head read first.
    /// - Parameter top: how many listings the "most favorited/viewed" tables keep.
    /// - Parameter users: how many users the list of users keeps (most events first).
    /// - Parameter verify: also verify the whole log as `evtool verify` does (``verdict``).
    package static func gather(in store: any EventStore, storeDescription: String, top: Int = 20, users listed: Int = 1_000, now: Date = Date(),
                               verify: Bool = true) throws -> StoreOverview {
        let head = try store.headPosition()
        var overview = StoreOverview(storeDescription: storeDescription, madeAt: now, headPosition: head)
        var perDay: [Int64: [Int]] = [:]
        var recordedPerDay: [Int64: Int] = [:]
        // Users by their stream id's bytes: two streams whose ids are canonically equal but
        // differ in bytes (written before the identity rule) are two users, as in `stats`.
        var activePerDay: [Int64: Set<StreamKey>] = [:]
        var firstDayOfUser: [StreamKey: Int64] = [:]
        var eventsOfUser: [StreamKey: Int] = [:]
        var favorited: [String: (name: String, count: Int)] = [:]
        var viewed: [String: (name: String, count: Int)] = [:]
        let typeIndex = Dictionary(uniqueKeysWithValues: chartedTypes.enumerated().map { ($1, $0) })
        var cursor: Int64 = 0
        scanning: while cursor < head {
            var last = cursor
            // Whole events (the metadata too: the day each action occurred), 5,000 at a time.
            let batch = try store.readAll(after: cursor, limit: 5_000)
            let count = batch.count
            for event in batch {
                last = event.position
                guard event.position <= head else { continue }
                overview.events += 1
                let occurred = OccurredTime.of(event)
                let day = HTML.dayNumber(occurred)
                if OccurredTime.isFar(occurred, recorded: event.recordedAt) {
                    overview.farEventCount += 1
                    if overview.farEvents.count < top * 5 {
                        overview.farEvents.append(FarEvent(position: event.position, stream: event.streamID, type: event.type,
                                                           recordedAt: event.recordedAt, occurredAt: occurred))
                    }
                }
                recordedPerDay[HTML.dayNumber(event.recordedAt), default: 0] += 1
                perDay[day, default: Array(repeating: 0, count: chartedTypes.count + 1)][typeIndex[event.type] ?? chartedTypes.count] += 1
                // An erasure's marker is no action of the user's.
                guard !event.streamID.hasPrefix("$"), event.type != Erasure.markerType else { continue }
                let user = StreamKey(UserStream.userID(ofStream: event.streamID))
                activePerDay[day, default: []].insert(user)
                eventsOfUser[user, default: 0] += 1
                if let seen = firstDayOfUser[user] {
                    if day < seen { firstDayOfUser[user] = day }
                } else {
                    firstDayOfUser[user] = day
                }
                guard event.type == "Favorited" || event.type == "DetailsViewed", let decoded = ViewEvent.decode(event) else { continue }
                switch decoded.action {
                case let .favorited(listing, summary):
                    favorited[listing, default: (summary.name, 0)].count += 1
                    favorited[listing]?.name = summary.name
                case let .detailsViewed(listing, name, _):
                    viewed[listing, default: (name, 0)].count += 1
                    viewed[listing]?.name = name
                default: break
                }
            }
            if count == 0 || last >= head { break scanning }
            cursor = last
        }
        var newUsersPerDay: [Int64: Int] = [:]
        for day in firstDayOfUser.values { newUsersPerDay[day, default: 0] += 1 }
        overview.users = firstDayOfUser.count
        // Only the days that hold events: the cost follows them, not the span from the first to the last.
        var users = 0
        for day in Set(perDay.keys).union(recordedPerDay.keys).sorted() {
            users += newUsersPerDay[day] ?? 0
            overview.days.append(Day(day: day, byType: perDay[day] ?? Array(repeating: 0, count: chartedTypes.count + 1),
                                     recorded: recordedPerDay[day] ?? 0, activeUsers: activePerDay[day]?.count ?? 0, users: users))
        }
        // The charts plot the days actions occurred on, in buckets (``DayBuckets``); the active
        // users of a bucket are those active on any of its days.
        overview.chartSize = DayBuckets.size(for: perDay.keys)
        var activePerBucket: [Int64: Set<StreamKey>] = [:]
        for day in perDay.keys { activePerBucket[DayBuckets.start(of: day, overview.chartSize), default: []].formUnion(activePerDay[day] ?? []) }
        overview.activeUsersByBucket = activePerBucket.keys.sorted().map { (DayBuckets.bucket(of: $0, overview.chartSize), activePerBucket[$0]?.count ?? 0) }
        func ranked(_ counts: [String: (name: String, count: Int)]) -> [ListingCount] {
            counts.map { ListingCount(listingID: $0.key, name: $0.value.name, count: $0.value.count) }
                .sorted { $0.count != $1.count ? $0.count > $1.count : $0.listingID < $1.listingID }
                .prefix(top).map { $0 }
        }
        overview.topUsers = eventsOfUser.map { UserCount(user: $0.key.id, events: $0.value) }
            .sorted { $0.events != $1.events ? $0.events > $1.events : StreamKey($0.user) < StreamKey($1.user) }
            .prefix(listed).map { $0 }
        overview.mostFavorited = ranked(favorited)
        overview.mostViewed = ranked(viewed)
        if let audit = store as? any AuditableEventStore { overview.seals = try audit.seals() }
        if let views = store as? any ProjectionStore {
            overview.checkpoints = try views.projectionStatuses().map { Checkpoint(status: $0, lag: max(0, head - $0.position)) }
        }
        overview.erasures = try UserReport.ErasureRecord.all(in: store)
        if let recording = store as? any CheckpointRecording { overview.signedCheckpoints = try recording.recordedCheckpoints() }
        if verify { overview.verdict = try LogVerdict.run(store, name: storeDescription) }
        return overview
    }
}
