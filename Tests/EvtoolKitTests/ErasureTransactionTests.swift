import Audit
import Commands
import EventLog
import EvtoolKit
import Foundation
import Projections
import TestSupport
import Testing

/// What an erasure's own transaction does, before any rebuild: it takes the user's view
/// documents with it (a forget stopped right after it leaves none), and a user with nothing left
/// to erase records nothing, also when erasures of one user race. On an SQLite file and on
/// PostgreSQL.
@Suite("Erasure: the transaction itself")
struct ErasureTransactionTests {
    typealias Kind = ErasureGapTests.Kind

    static let secret = "SECRETMARKER12345"

    static func context(_ user: String) -> CommandContext {
        CommandContext(userID: user, source: "erasure-transaction-test", occurredAt: Date())
    }

    static func details(_ listing: String, _ name: String) -> UserCommand {
        .viewDetails(listingID: listing, details: ListingDetails(listingID: listing, info: ListingInfo(
            name: name, artistsOrTeams: [], venue: "Pantages Theatre", localDateTime: "2026-12-05 19:30:00", category: "Arts & Theatre", genres: ["Musical"])))
    }

    /// Every stored document of every generation of every view (active or being built), as
    /// "view/generation/key: document".
    static func allDocuments(_ store: any ProjectionStore) throws -> [String] {
        var found: [String] = []
        for status in try store.projectionStatuses() {
            var after = ""
            while true {
                let page = try store.documents(of: status.name, generation: status.generation, after: after, limit: 500)
                found += page.map { "\(status.name)/\(status.generation)/\($0.key): \(String(decoding: $0.document, as: UTF8.self))" }
                guard let last = page.last else { break }
                after = last.key
            }
        }
        return found
    }

    @Test("the erasure's transaction deletes the user's documents of every view, in every generation; other users keep theirs", arguments: Kind.allCases)
    func viewDocumentsGoWithTheErasure(kind: Kind) throws {
        try ErasureGapTests().withStore(kind) { first, open in
            let a = Application(store: first)
            let user = "bo"
            #expect(try a.record(ErasureGapTests.favorite("L-fav", Self.secret), context: Self.context(user)).isRecorded)
            #expect(try a.record(.search(Searched(keyword: Self.secret, location: .custom(text: "x"))), context: Self.context(user)).isRecorded)
            #expect(try a.record(Self.details("L-seen", Self.secret), context: Self.context(user)).isRecorded)
            #expect(try a.record(Self.details("L-theirs", "Wicked"), context: Self.context("other")).isRecorded)
            #expect(try a.record(ErasureGapTests.favorite("L-other", "Wicked"), context: Self.context("other")).isRecorded)
            _ = try Projector(store: try open()).catchUp()
            // A rebuild under way too: its generations, not yet active, hold the user's documents.
            let building = Projector(store: try open())
            struct Stop: Error {}
            #expect(throws: Stop.self) { try building.rebuild { _, _ in throw Stop() } }
            let before = try Self.allDocuments(first)
            #expect(before.filter { $0.contains(Self.secret) }.count >= 6, "\(before)")   // 3 views × active and building

            // The erasure alone, as a forget stopped right after it commits leaves it: no rebuild, no catch-up.
            let auditable = try #require(try open() as? any AuditableEventStore)
            let outcome = try auditable.erase(Erasure.Request(stream: UserStream.id(for: user), reason: "ticket 1", operatorName: "ops",
                                                              views: Views.erasedDocuments))
            #expect(outcome.recorded && outcome.erasedEvents == 3, "\(outcome)")
            let after = try Self.allDocuments(first)
            #expect(after.filter { $0.contains(Self.secret) || $0.contains("/\(user):") || $0.contains(#""fetchedBy":"bo""#) }.isEmpty, "\(after)")
            #expect(after.contains { $0.hasPrefix("favorites/") && $0.contains("/other: ") && $0.contains("L-other") }, "\(after)")
            #expect(after.contains { $0.hasPrefix("cached-details/") && $0.contains("/L-theirs: ") }, "\(after)")
            // What forget's rebuild makes then holds nothing of the user either, and the other user's views are whole.
            _ = try Projector(store: try open()).rebuild()
            let rebuilt = try ErasureGapTests.views(first)
            #expect(rebuilt["favorites"]?.keys.sorted() == ["other"] && rebuilt["recent-searches"]?.isEmpty == true, "\(rebuilt)")
            #expect(rebuilt["cached-details"]?.keys.sorted() == ["L-theirs"], "\(rebuilt)")
        }
    }

    @Test("forget of a user with nothing left to erase records nothing and names the erasure that covers them", arguments: Kind.allCases)
    func nothingLeftToErase(kind: Kind) throws {
        try ErasureGapTests().withStore(kind) { first, _ in
            let a = Application(store: first)
            #expect(try a.record(ErasureGapTests.search, context: Self.context("ada")).isRecorded)
            let erased = try a.forget(user: "ada", reason: "ticket 2", operatorName: "ops")
            #expect(erased.outcome.recorded && erased.erasedEvents == 1)
            let head = try first.headPosition()
            let again = try a.forget(user: "ada", reason: "ticket 2", operatorName: "ops")
            #expect(!again.outcome.recorded && again.erasedEvents == 0, "\(again.outcome)")
            #expect(again.position == erased.position && again.outcome.eventID == erased.outcome.eventID, "\(again.outcome)")
            #expect(try first.headPosition() == head, "nothing appended")
            // A user who acts again after the erasure has something to erase again.
            #expect(try a.record(ErasureGapTests.search, context: Self.context("ada")).isRecorded)
            let third = try a.forget(user: "ada", reason: "ticket 3", operatorName: "ops")
            #expect(third.outcome.recorded && third.erasedEvents == 1, "\(third.outcome)")
            #expect(try first.read(stream: Erasure.stream).count == 2)
        }
    }

    @Test("erasures of one user racing on separate connections: one records, the others record nothing", arguments: Kind.allCases)
    func racingErasures(kind: Kind) throws {
        try ErasureGapTests().withStore(kind) { first, open in
            let a = Application(store: first)
            for _ in 1...20 { #expect(try a.record(ErasureGapTests.search, context: Self.context("ada")).isRecorded) }
            let handles = try (0..<4).map { _ in try #require(try open() as? any AuditableEventStore) }
            let outcomes = Locked<[Result<Erasure.Outcome, any Error>]>([])
            DispatchQueue.concurrentPerform(iterations: handles.count) { index in
                let result = Result { try handles[index].erase(Erasure.Request(stream: "ada", reason: "race", operatorName: "ops", views: Views.erasedDocuments)) }
                outcomes.withLock { $0.append(result) }
            }
            let done = try outcomes.withLock { $0 }.map { try $0.get() }
            #expect(done.filter(\.recorded).count == 1, "\(done)")
            #expect(done.filter(\.recorded).first?.erasedEvents == 20)
            #expect(Set(done.map(\.eventID)).count == 1, "every outcome names the one erasure: \(done)")
            #expect(try first.read(stream: Erasure.stream).count == 1)
            #expect(try first.read(stream: "ada").filter { $0.type == Erasure.markerType }.count == 1)
        }
    }
}
