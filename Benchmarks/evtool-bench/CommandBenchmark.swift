import Commands
import EventLog
import Foundation

/// Measures commands handled per second through ``CommandRunner`` (load state, decide,
/// append) for users whose streams already hold `streamLength` events.
///
/// Build in release mode; debug builds are several times slower and say nothing.
public enum CommandBenchmark {
    /// What a run measured.
    public struct Result: Sendable, Hashable {
        /// Commands per second once each user's state is loaded (a long-running app server).
        public var commandsPerSecond: Double
        /// The mean time of each user's first command, which reads their whole stream.
        public var firstCommandSeconds: Double
        /// How many commands were timed.
        public var commands: Int
        /// How long the timed commands took, in seconds.
        public var seconds: Double
    }

    /// Seeds `users` streams of `streamLength` events, sends each user one command with a
    /// fresh runner (its cost is ``Result/firstCommandSeconds``: the state is read from the
    /// stream, or from the snapshot store and the events since), then times `commands`
    /// commands spread round-robin over the users: a search, a favorite, an unfavorite, in turn.
    ///
    /// With a snapshot store, each long stream gets a snapshot half an interval (50 events)
    /// before its end while seeding, as a process restarting mid-life would find it.
    /// Stream ids are fresh for each run, so a store may be reused. Cost: appends
    /// `users × streamLength` events to seed, in batches of 500.
    /// - Throws: the store's errors.
    public static func run(
        store: any EventStore, users: Int, streamLength: Int, commands: Int, snapshots: (any UserSnapshotStore)? = nil
    ) throws -> Result {
        let users = max(1, users)
        let prefix = "bench-" + String(UUID().lowercaseString.prefix(8)) + "-"
        let userIDs = (0..<users).map { prefix + String($0) }
        if let snapshots, streamLength >= 150 {
            try seed(store: store, userIDs: userIDs, range: 0..<(streamLength - 50))
            let primer = CommandRunner(store: store, cache: nil, snapshots: snapshots)
            for user in userIDs { _ = try primer.load(user: user) }
            try seed(store: store, userIDs: userIDs, range: (streamLength - 50)..<streamLength)
        } else {
            try seed(store: store, userIDs: userIDs, range: 0..<streamLength)
        }

        let runner = CommandRunner(store: store, snapshots: snapshots)
        let firstStart = DispatchTime.now().uptimeNanoseconds
        for user in userIDs {
            _ = try runner.handle(.search(search), context: context(user))
        }
        let firstSeconds = Double(DispatchTime.now().uptimeNanoseconds - firstStart) / 1e9

        let start = DispatchTime.now().uptimeNanoseconds
        for index in 0..<commands {
            let user = userIDs[index % users]
            let turn = index / users
            let command: UserCommand
            switch turn % 3 {
            case 0: command = .search(search)
            case 1: command = .favorite(listingID: "bench-\(turn / 3)", summary: summary)
            default: command = .unfavorite(listingID: "bench-\(turn / 3)")
            }
            _ = try runner.handle(command, context: context(user))
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return Result(
            commandsPerSecond: seconds > 0 ? Double(commands) / seconds : 0,
            firstCommandSeconds: firstSeconds / Double(users), commands: commands, seconds: seconds)
    }

    // MARK: - Seeding

    private static let search = Searched(
        keyword: "jazz", category: .music, location: .current(latitude: 34.0224, longitude: -118.2851),
        results: SearchResults(count: 3, listingIDs: ["vvG1zZ9pBk", "Z7r9jZ1AdJ", "k7vGF4bm"]))
    private static let summary = ListingSummary(
        name: "Jazz Night", venue: "The Baked Potato", localDateTime: "2026-12-05 20:00:00", category: "Music")

    private static func context(_ user: String) -> CommandContext {
        CommandContext(userID: user, source: "benchmark", occurredAt: Timestamp.now())
    }

    /// A realistic mix: 6 in 10 searches, 2 details views, 1 favorite, 1 unfavorite of it,
    /// so the decision state stays small however long the stream.
    private static func seed(store: any EventStore, userIDs: [String], range: Range<Int>) throws {
        let searchData = try DomainEvent.searched(search).encode().data
        let details = ListingDetails(
            listingID: "vvG1zZ9pBk",
            info: ListingInfo(
                name: "Jazz Night", artistsOrTeams: ["The Quartet"], venue: "The Baked Potato",
                localDateTime: "2026-12-05 20:00:00", category: "Music", genres: ["Jazz"],
                priceRange: PriceRange(minimum: 20, maximum: 45, currency: "USD"), ticketStatus: "onsale",
                ticketLink: "https://www.ticketmaster.com/event/vvG1zZ9pBk",
                seatMapLink: "https://maps.ticketmaster.com/maps/geometry/3/event/vvG1zZ9pBk/staticImage"),
            artists: [ArtistProfile(name: "The Quartet", followers: 12_345, popularity: 41,
                                    profileLink: "https://open.spotify.com/artist/0", albumCovers: ["https://i.scdn.co/image/0"])],
            venue: VenueDetails(name: "The Baked Potato", address: "3787 Cahuenga Blvd, Studio City, CA 91604",
                                phone: "(818) 980-1615", latitude: 34.1392, longitude: -118.3622),
            upcomingEvents: (1...5).map { UpcomingListing(name: "Show \($0)", artist: "Band \($0)", localDateTime: "2026-12-1\($0) 20:00:00") })
        let detailsData = try DomainEvent.detailsViewed(DetailsViewed(listingID: "vvG1zZ9pBk", details: details)).encode().data
        for user in userIDs {
            let metadata = try EventMetadata(
                userID: user, occurredAt: Timestamp.now(), handledAt: Timestamp.now(), correlationID: "seed",
                causationID: "seed", source: "benchmark-seed").encoded()
            var batch: [ProposedEvent] = []
            for index in range {
                switch index % 10 {
                case 0..<6:
                    batch.append(ProposedEvent(type: Searched.typeName, data: searchData, metadata: metadata))
                case 6, 7:
                    batch.append(ProposedEvent(type: DetailsViewed.typeName, data: detailsData, metadata: metadata))
                case 8:
                    let (type, data) = try DomainEvent.favorited(Favorited(listingID: "seed-\(index)", summary: summary)).encode()
                    batch.append(ProposedEvent(type: type, data: data, metadata: metadata))
                default:
                    let (type, data) = try DomainEvent.unfavorited(Unfavorited(listingID: "seed-\(index - 1)")).encode()
                    batch.append(ProposedEvent(type: type, data: data, metadata: metadata))
                }
                if batch.count == 500 {
                    _ = try store.append(batch, to: UserStream.id(for: user), expectedVersion: .any)
                    batch.removeAll(keepingCapacity: true)
                }
            }
            if !batch.isEmpty {
                _ = try store.append(batch, to: UserStream.id(for: user), expectedVersion: .any)
            }
        }
    }
}
