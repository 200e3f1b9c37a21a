import Commands
import EventLog
import EvtoolKit
import Foundation
import Projections
import TestSupport
import Testing

/// The application's calls take ids as a face received them (issue 31, item 4): `josé` in NFC
/// and in NFD is one user for every read, version lookup and write, with the view memory on
/// (its follower running), so neither spelling can fill the memory for the other with the
/// wrong answer; `café-7` is one listing; a request id is one request. On an SQLite file and
/// on PostgreSQL.
@Suite("Application: one identity for every call")
struct ApplicationIdentityTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case sqlite, postgres
        var testDescription: String { rawValue }
    }

    static let (nfc, nfd) = ("jos\u{E9}", "jose\u{301}")
    static let (cafeNFC, cafeNFD) = ("caf\u{E9}-7", "cafe\u{301}-7")

    func withStore(_ kind: Kind, _ body: (any EventStore & ProjectionStore) throws -> Void) throws {
        switch kind {
        case .sqlite:
            let file = try TestStores.sqliteFile()
            defer { file.cleanup() }
            try body(file.store)
        case .postgres:
            let postgres = try TestStores.postgres()
            defer { postgres.cleanup() }
            try body(postgres.store)
        }
    }

    static func context(_ user: String, request: String? = nil) -> CommandContext {
        CommandContext(userID: user, source: "identity-test", occurredAt: Date(), requestID: request)
    }

    static func same(_ answers: [ViewMemory.Answer]) -> Bool {
        answers.allSatisfy { $0 == answers[0] }
    }

    @Test("reads, versions, history and writes under either spelling name one user and one listing; the memory files one entry", arguments: Kind.allCases)
    func oneIdentityForEveryCall(kind: Kind) throws {
        try withStore(kind) { store in
            let application = Application(store: store, groupCommit: true, decidesOnCachedState: true)
            let follower = try ViewMemoryFollower(store: store, memory: application.viewMemory, capacityBytes: ViewMemory.defaultCapacityBytes) { _ in }
            defer { follower.stop() }
            let summary = ListingSummary(name: "Hamilton", venue: "Pantages Theatre", localDateTime: "2026-12-05 19:30:00", category: "Arts & Theatre")
            var result = try application.record(.favorite(listingID: "LD", summary: summary), context: Self.context(Self.nfc))
            #expect(result.streamVersion == 1)

            // NFD first: it must not fill the memory with an empty answer the NFC read then gets.
            for user in [Self.nfd, Self.nfc] {
                let answer = try application.currentViewAnswer(Views.favorites, user: user)
                #expect(answer.version == 1 && String(decoding: answer.bytes ?? [], as: UTF8.self).contains(#""listingID":"LD""#), "\(user): \(answer)")
                #expect(try application.view(Views.favorites, user: user).document?.contains(listing: "LD") == true)
                #expect(try application.view(Views.favorites, user: user, asOf: .position(1)).document?.contains(listing: "LD") == true)
                #expect(try application.streamVersion(user: user) == 1)
                #expect(try application.document(Views.favorites, key: user)?.contains(listing: "LD") == true)
                #expect(try application.document(Views.favorites, key: user, asOf: .position(1))?.contains(listing: "LD") == true)
                #expect(try application.history(user: user).entries.count == 1)
                var entries = 0
                try application.forEachHistoryEntry(of: user) { _ in entries += 1 }
                #expect(entries == 1)
            }

            // A write under NFD, with a request id in NFD, names the user and records in NFC.
            let details = ListingDetails(listingID: Self.cafeNFD, info: ListingInfo(name: "Wicked", artistsOrTeams: [], venue: "Gershwin",
                                                                                   localDateTime: "2026-12-05 19:30:00", category: "Arts & Theatre", genres: []))
            result = try application.record(.viewDetails(listingID: Self.cafeNFD, details: details), context: Self.context(Self.nfd, request: "cle\u{301}"))
            #expect(result.isRecorded && result.streamVersion == 2 && result.user.utf8.elementsEqual(Self.nfc.utf8), "\(result)")
            // The same request in NFC, under the other spelling: the first outcome, nothing recorded again.
            let replay = try application.record(.viewDetails(listingID: Self.cafeNFC, details: details), context: Self.context(Self.nfc, request: "cl\u{E9}"))
            #expect(replay.isReplay && replay.streamVersion == 2 && replay.eventIDs == result.eventIDs, "\(replay)")
            #expect(try store.version(of: Self.nfc) == 2 && store.version(of: Self.nfd) == 0, "one stream, named in NFC")

            var listingAnswers: [ViewMemory.Answer] = []
            var userAnswers: [ViewMemory.Answer] = []
            for user in [Self.nfd, Self.nfc] {
                userAnswers.append(try application.currentViewAnswer(Views.recentlyViewed, user: user))
                for listing in [Self.cafeNFD, Self.cafeNFC] {
                    listingAnswers.append(try application.currentListingAnswer(listing, for: user) { page in
                        Array("\(page.listingID) \(page.isFavorite) \(page.details?.views ?? 0)".utf8)
                    })
                    #expect(try application.listing(listing, for: user).details != nil)
                }
            }
            #expect(Self.same(userAnswers) && userAnswers[0].version == 2 && String(decoding: userAnswers[0].bytes ?? [], as: UTF8.self).contains("Wicked"), "\(userAnswers)")
            #expect(Self.same(listingAnswers) && listingAnswers[0].bytes == Array("\(Self.cafeNFC) false 1".utf8), "\(listingAnswers)")
            let detailAnswers = try [Self.cafeNFD, Self.cafeNFC].map { try application.currentDetailsAnswer(listing: $0) }
            #expect(Self.same(detailAnswers) && detailAnswers[0].bytes != nil)
            #expect(try [Self.cafeNFD, Self.cafeNFC].map { try application.details(listing: $0)?.views } == [1, 1])
            #expect(try [Self.cafeNFD, Self.cafeNFC].map { try application.document(Views.cachedDetails, key: $0)?.views } == [1, 1])

            // Ids with invisible characters are refused by every call, naming the code point.
            for call in [{ _ = try application.currentViewAnswer(Views.favorites, user: "jos\u{200B}e") },
                         { _ = try application.view(Views.favorites, user: "jos\u{200B}e") },
                         { _ = try application.history(user: "jos\u{200B}e") },
                         { _ = try application.streamVersion(user: "jos\u{200B}e") },
                         { _ = try application.currentDetailsAnswer(listing: "L\u{202E}7") },
                         { _ = try application.currentListingAnswer("L\u{202E}7", for: Self.nfc) { _ in [] } },
                         { _ = try application.record(.favorite(listingID: "LE", summary: summary), context: Self.context(Self.nfc, request: "r\u{FEFF}")) }] as [() throws -> Void] {
                #expect {
                    try call()
                } throws: { error in
                    guard case let .invalid(_, message) = error as? ApplicationError else { return false }
                    return message.contains("U+200B") || message.contains("U+202E") || message.contains("U+FEFF")
                }
            }
            #expect(try store.version(of: Self.nfc) == 2, "nothing recorded")
        }
    }

    @Test("the view memory tags two streams whose ids are canonically equal but differ in bytes apart")
    func streamTagsByBytes() {
        #expect(ViewMemory.streamTag(Self.nfc) != ViewMemory.streamTag(Self.nfd))
        #expect(ViewMemory.streamTag(Self.nfc) == "s:" + Self.nfc)
    }
}
