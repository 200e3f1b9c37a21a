import Commands
import EventLog
import Foundation
import JSONKit
import Projections
import Simulation
import Testing

/// A rebuild's final commit writes every document of a view at once (encoded in parts, the
/// first on every core, each with a writer reused from one document to the next), while a view
/// kept current commits a few documents per batch. Both must store the same bytes, and those
/// bytes must be what the declared fields (``DocumentFields``) write for the fold of the log.
@Suite("Rebuilt documents: the bytes of incremental catch-up and of the declared fields")
struct RebuildDocumentsTests {
    /// Appends `count` simulated events for `users` users, 500 per multi-stream transaction.
    static func appendActivity(_ count: Int, users: Int, seed: UInt64, startingAt first: Int, versions: inout [String: Int64],
                               into store: any MultiStreamAppending) throws {
        var generator = ActivityGenerator(users: users, listings: 2_000, seed: seed)
        var parts: [StreamAppend] = []
        for index in 0..<count {
            let action = generator.next()
            let event: DomainEvent
            switch action.command {
            case .search(let search): event = .searched(search)
            case let .favorite(listing, summary): event = .favorited(Favorited(listingID: listing, summary: summary))
            case .unfavorite(let listing): event = .unfavorited(Unfavorited(listingID: listing))
            case let .viewDetails(listing, details): event = .detailsViewed(DetailsViewed(listingID: listing, details: details))
            }
            let (type, data) = try event.encode()
            let occurred = Timestamp.date(microseconds: Timestamp.microseconds(Date(timeIntervalSince1970: 1_796_000_000)) + Int64(first + index) * 250_123)
            let metadata = try EventMetadata(userID: action.userID, occurredAt: occurred, handledAt: occurred, correlationID: "test",
                                             causationID: "test", source: "test").encoded()
            let stream = UserStream.id(for: action.userID)
            let version = versions[stream, default: 0]
            versions[stream] = version + 1
            let proposed = ProposedEvent(type: type, data: data, metadata: metadata, recordedAt: occurred)
            if let last = parts.last, last.stream == stream {
                parts[parts.count - 1].events.append(proposed)
            } else {
                parts.append(StreamAppend(stream: stream, expectedVersion: .exactly(version), events: [proposed]))
            }
            if parts.count == 500 {
                _ = try store.append(parts)
                parts.removeAll()
            }
        }
        if !parts.isEmpty { _ = try store.append(parts) }
    }

    /// The fold of the whole log, each document written by the declared fields.
    static func declaredView<P: Projection>(_ projection: P, from store: any EventStore) throws -> [String: Data] where P.Document: DeclaredDocument {
        var events: [ViewEvent] = []
        try store.forEachBatch { batch in events += batch.compactMap(ViewEvent.decode) }
        return projection.fold(events).mapValues { document in
            var writer = JSONWriter()
            P.Document.fields.write(document, to: &writer)
            return writer.data
        }
    }

    @Test("a rebuild of 2,000 users stores, byte for byte, what catching up batch by batch stored and what the declared fields write",
          arguments: ViewStoreKind.underTest)
    func rebuildEqualsCatchUpAndDeclaredFields(kind: ViewStoreKind) throws {
        let fixture = try kind.make(); defer { fixture.remove() }
        var versions: [String: Int64] = [:]
        // Caught up after each of four appends, in batches of 97: after the first, the views
        // are active and commit every batch, a few documents at a time.
        let projector = Projector(store: fixture.store, batchSize: 97)
        for round in 0..<4 {
            try Self.appendActivity(3_000, users: 2_000, seed: 40 + UInt64(round), startingAt: round * 3_000, versions: &versions, into: fixture.store)
            try projector.catchUp()
        }
        var incremental: [String: [String: Data]] = [:]
        for projection in Views.all { incremental[projection.name] = try storedView(projection.name, in: fixture.store) }

        // A rebuild commits every document of each view once, at the end.
        try Projector(store: fixture.store).rebuild()
        let declared = [
            Views.favorites.name: try Self.declaredView(Views.favorites, from: fixture.store),
            Views.recentSearches.name: try Self.declaredView(Views.recentSearches, from: fixture.store),
            Views.recentlyViewed.name: try Self.declaredView(Views.recentlyViewed, from: fixture.store),
            Views.cachedDetails.name: try Self.declaredView(Views.cachedDetails, from: fixture.store),
        ]
        for projection in Views.all {
            let rebuilt = try storedView(projection.name, in: fixture.store)
            #expect(!rebuilt.isEmpty, "view \(projection.name) is empty")
            // Enough documents that the final commit's first part is encoded on every core.
            if projection.name == Views.recentSearches.name { #expect(rebuilt.count > 1_024, "\(rebuilt.count) recent searches") }
            #expect(rebuilt == incremental[projection.name], "view \(projection.name): rebuilt against caught up")
            #expect(rebuilt == declared[projection.name], "view \(projection.name): rebuilt against the declared fields")
        }
    }
}
