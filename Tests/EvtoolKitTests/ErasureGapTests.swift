import Audit
import Commands
import EventLog
import EvtoolKit
import Foundation
import Projections
import TestSupport
import Testing

/// Two applications over one store (two app servers, or a server and `evtool forget`): one
/// keeps the user's decision state and views, the other erases the user. Nothing decided on the
/// state from before the erasure is recorded after it, the next command is decided on the
/// erased stream, the views forget the user as soon as they apply the erasure, and a user who
/// acts again gets views equal to a rebuild. On an SQLite file and on PostgreSQL.
@Suite("Erasure through another application")
struct ErasureGapTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case sqlite, postgres
        var testDescription: String { rawValue }
    }

    /// Two handles to one fresh store, and how to open more.
    func withStore(_ kind: Kind, _ body: (_ first: any EventStore & ProjectionStore, _ open: () throws -> any EventStore & ProjectionStore) throws -> Void) throws {
        switch kind {
        case .sqlite:
            let file = try TestStores.sqliteFile()
            defer { file.cleanup() }
            try body(file.store, { try file.open() })
        case .postgres:
            let postgres = try TestStores.postgres()
            defer { postgres.cleanup() }
            try body(postgres.store, { try postgres.open() })
        }
    }

    static let secret = "Hamilton-ada-secret"

    static func context(_ user: String) -> CommandContext {
        CommandContext(userID: user, source: "erasure-gap-test", occurredAt: Date())
    }

    static func favorite(_ listing: String, _ name: String = secret) -> UserCommand {
        .favorite(listingID: listing, summary: ListingSummary(name: name, venue: "Pantages Theatre", localDateTime: "2026-12-05 19:30:00", category: "Arts & Theatre"))
    }

    static let search = UserCommand.search(Searched(keyword: secret, location: .custom(text: "Los Angeles")))

    /// Every byte of the user's stream's payloads, as one string.
    static func payloads(_ store: any EventStore, _ user: String) throws -> String {
        try store.read(stream: UserStream.id(for: user)).map { String(decoding: $0.data + $0.metadata, as: UTF8.self) }.joined(separator: "\n")
    }

    /// The user-keyed views' stored documents and the cached details, by view and key.
    static func views(_ store: any ProjectionStore) throws -> [String: [String: Data]] {
        var all: [String: [String: Data]] = [:]
        for name in ["favorites", "recent-searches", "recently-viewed", "cached-details"] {
            all[name] = try StoredViews.documents(of: name, in: store)
        }
        return all
    }

    @Test("A caches the user, B forgets: A's next commands are decided on the erased stream and record nothing erased", arguments: Kind.allCases)
    func cachedStateAfterForget(kind: Kind) throws {
        try withStore(kind) { first, open in
            let a = Application(store: first, groupCommit: true, decidesOnCachedState: true)   // as `evtool serve` runs
            let b = Application(store: try open())
            let user = "ada"
            #expect(try a.record(Self.favorite("L-erased"), context: Self.context(user)).isRecorded)
            #expect(try a.record(Self.search, context: Self.context(user)).isRecorded)
            #expect(try a.view(Views.favorites, user: user).document?.contains(listing: "L-erased") == true)
            #expect(try a.view(Views.recentSearches, user: user).document != nil)

            let erased = try b.forget(user: user, reason: "ticket 14", operatorName: "ops")
            #expect(erased.outcome.erasedEvents == 2 && erased.outcome.streamVersion == 3, "\(erased.outcome)")

            // A's cache holds L-erased; the unfavorite must not record it again.
            let removal = try a.record(.unfavorite(listingID: "L-erased"), context: Self.context(user))
            #expect(!removal.isRecorded && removal.unchanged == .notFavorite(listingID: "L-erased") && removal.streamVersion == 3, "\(removal)")
            // A client that read the version before the erasure (an ETag) is refused.
            #expect(throws: ApplicationError.versionMismatch(expected: 2, actual: 3)) {
                try a.record(.unfavorite(listingID: "L-erased"), context: Self.context(user), requiredVersion: 2)
            }
            let stream = try first.read(stream: UserStream.id(for: user))
            #expect(stream.map(\.type) == ["Favorited", "Searched", Erasure.markerType], "nothing recorded after the marker")
            #expect(try !Self.payloads(first, user).contains("L-erased") && !Self.payloads(first, user).contains(Self.secret))
            // A's views (its projector and its memory) show nothing of the erased user.
            #expect(try a.view(Views.favorites, user: user).document == nil)
            #expect(try a.view(Views.recentSearches, user: user).document == nil)
            #expect(try a.view(Views.favorites, user: user).streamVersion == 3)

            // The user carries on through A, and B sees the same.
            #expect(try a.record(Self.favorite("L-again", "Wicked"), context: Self.context(user)).isRecorded)
            #expect(try a.record(Self.favorite("L-erased", "Hamilton"), context: Self.context(user)).isRecorded, "an erased favorite is no favorite")
            for app in [a, b] {
                #expect(try app.view(Views.favorites, user: user).document?.items.map(\.listingID) == ["L-again", "L-erased"])
                #expect(try app.view(Views.recentSearches, user: user).document == nil)
            }
            // Views kept up event by event equal a rebuild.
            _ = try a.view(Views.recentlyViewed, user: user)
            let kept = try Self.views(first)
            _ = try Projector(store: try open()).rebuild()
            #expect(try Self.views(first) == kept)
        }
    }

    @Test("the views forget an erased user as soon as they apply the erasure, before forget's rebuild", arguments: Kind.allCases)
    func viewsForgetAtTheMarker(kind: Kind) throws {
        try withStore(kind) { first, open in
            let a = Application(store: first)
            let user = "bo"
            let listing = ListingDetails(listingID: "L-seen", info: ListingInfo(name: Self.secret, artistsOrTeams: [], venue: "Pantages Theatre",
                                                                                localDateTime: "2026-12-05 19:30:00", category: "Arts & Theatre",
                                                                                genres: ["Musical"]))
            #expect(try a.record(Self.favorite("L-erased"), context: Self.context(user)).isRecorded)
            #expect(try a.record(Self.search, context: Self.context(user)).isRecorded)
            #expect(try a.record(.viewDetails(listingID: "L-seen", details: listing), context: Self.context(user)).isRecorded)
            #expect(try a.record(Self.favorite("L-other"), context: Self.context("other")).isRecorded)
            #expect(try a.view(Views.favorites, user: user).document != nil)
            #expect(try a.view(Views.recentlyViewed, user: user).document != nil)
            #expect(try a.view(Views.recentSearches, user: user).document != nil)

            // The erasure alone, committed by another process that has not rebuilt yet.
            let auditable = try #require(try open() as? any AuditableEventStore)
            _ = try auditable.erase(Erasure.Request(stream: UserStream.id(for: user), reason: "ticket 14", operatorName: "ops"))
            #expect(try a.view(Views.favorites, user: user).document == nil)
            #expect(try a.view(Views.recentSearches, user: user).document == nil)
            #expect(try a.view(Views.recentlyViewed, user: user).document == nil)
            #expect(try a.view(Views.favorites, user: "other").document?.items.map(\.listingID) == ["L-other"], "other users keep theirs")
            // As of a point after the erasure too (time travel folds the marker as the views do).
            #expect(try a.view(Views.favorites, user: user, asOf: .position(try first.headPosition())).document == nil)
            // The user-keyed views equal a rebuild; the cached details (by listing) wait for it.
            _ = try a.details(listing: "L-seen")
            let before = try Self.views(first)
            _ = try Projector(store: try open()).rebuild()
            let after = try Self.views(first)
            for name in ["favorites", "recent-searches", "recently-viewed"] { #expect(before[name] == after[name], "\(name)") }
            #expect(after["cached-details"]?.isEmpty == true)
        }
    }
}
