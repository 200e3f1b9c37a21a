import Commands
import EventLog
import Foundation
import Testing

/// The commands record user and listing ids in NFC and refuse ids with invisible characters,
/// whichever face sends them (the runner is the boundary).
@Suite("Command rules: one identity for user and listing ids")
struct IdentityRulesTests {
    static let nfc = "jos\u{E9}"
    static let nfd = "jose\u{301}"

    @Test("blank means Unicode's White_Space for every code point (ASCII decided without the tables)")
    func blankIsUnicodeWhiteSpace() {
        for value in 0..<0x110000 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            #expect(Rules.isBlank(String(scalar)) == scalar.properties.isWhitespace, "U+\(String(value, radix: 16))")
            if Rules.isBlank(String(scalar)) != scalar.properties.isWhitespace { return }
        }
        #expect(throws: CommandError.self) { try Rules.checkNewIdentifier("ada\t", field: "user id") }
        #expect(throws: CommandError.self) { try Rules.checkNewIdentifier("\u{A0}ada", field: "user id") }
        #expect(throws: Never.self) { try Rules.checkNewIdentifier("a da", field: "user id") }
    }

    @Test("the runner records a user typed in NFD in the user's NFC stream, with NFC in the metadata")
    func userIDsNormalized() throws {
        let store = InMemoryEventStore()
        let runner = CommandRunner(store: store)
        _ = try runner.handle(Fixtures.favorite("L1"), context: Fixtures.context(user: Self.nfd))
        _ = try runner.handle(Fixtures.favorite("L2"), context: Fixtures.context(user: Self.nfc))
        #expect(try store.version(of: Self.nfc) == 2)
        #expect(try store.version(of: Self.nfd) == 0)
        let metadata = try store.read(stream: Self.nfc).map { try EventMetadata.decode($0.metadata) }
        #expect(metadata.allSatisfy { Array($0.userID.utf8) == Array(Self.nfc.utf8) })
        // A second runner (another process) sees the same user under either spelling.
        let outcome = try CommandRunner(store: store).handle(.unfavorite(listingID: "L1"), context: Fixtures.context(user: Self.nfd))
        guard case .recorded = outcome else { Issue.record("not recorded: \(outcome)"); return }
        #expect(try CommandRunner(store: store).load(user: Self.nfd).state.favorites == ["L2"])
    }

    @Test("listing ids are recorded in NFC in favorites, unfavorites, details and search results")
    func listingIDsNormalized() throws {
        let (cafeNFC, cafeNFD) = ("caf\u{E9}", "cafe\u{301}")
        var events = try UserDecider.decide(.favorite(listingID: cafeNFD, summary: Fixtures.summary()), state: UserDecider.initialState)
        guard case .favorited(let favorited) = events.first else { Issue.record("\(events)"); return }
        #expect(Array(favorited.listingID.utf8) == Array(cafeNFC.utf8))
        let state = UserDecider.evolve(UserDecider.initialState, events[0])
        #expect(try UserDecider.decision(.favorite(listingID: cafeNFC, summary: Fixtures.summary()), state: state) == .unchanged(.alreadyFavorite(listingID: cafeNFC)))
        events = try UserDecider.decide(.unfavorite(listingID: cafeNFD), state: state)
        guard case .unfavorited(let unfavorited) = events.first else { Issue.record("\(events)"); return }
        #expect(Array(unfavorited.listingID.utf8) == Array(cafeNFC.utf8))
        events = try UserDecider.decide(.viewDetails(listingID: cafeNFD, details: Fixtures.details(cafeNFD)), state: state)
        guard case .detailsViewed(let viewed) = events.first else { Issue.record("\(events)"); return }
        #expect(Array(viewed.listingID.utf8) == Array(cafeNFC.utf8) && Array(viewed.details.listingID.utf8) == Array(cafeNFC.utf8))
        var search = Fixtures.search()
        search.results = SearchResults(count: 2, listingIDs: [cafeNFD, "L2"])
        events = try UserDecider.decide(.search(search), state: state)
        guard case .searched(let searched) = events.first else { Issue.record("\(events)"); return }
        #expect(searched.results?.listingIDs.map { Array($0.utf8) } == [Array(cafeNFC.utf8), Array("L2".utf8)])
    }

    @Test("ids with zero-width, byte-order-mark, bidirectional or separator characters are refused naming the code point, nothing recorded")
    func invisibleCharactersRefused() throws {
        let store = InMemoryEventStore()
        let runner = CommandRunner(store: store)
        for (character, named) in [("\u{202E}", "U+202E (RIGHT-TO-LEFT OVERRIDE)"), ("\u{200B}", "U+200B (ZERO WIDTH SPACE)"),
                                   ("\u{FEFF}", "U+FEFF (ZERO WIDTH NO-BREAK SPACE)"), ("\u{200E}", "U+200E (LEFT-TO-RIGHT MARK)"),
                                   ("\u{2029}", "U+2029 (PARAGRAPH SEPARATOR)")] {
            let id = "a" + character
            #expect(throws: CommandError.rejected(field: "user id", rule: "must not contain \(named): ids refuse invisible characters (control, format, zero-width, byte-order mark, bidirectional controls, line separators)")) {
                try runner.handle(Fixtures.favorite("L1"), context: Fixtures.context(user: id))
            }
            for command in [Fixtures.favorite(id), .unfavorite(listingID: id), .viewDetails(listingID: id, details: Fixtures.details(id))] {
                #expect(throws: CommandError.self) { try runner.handle(command, context: Fixtures.context()) }
                do { _ = try runner.handle(command, context: Fixtures.context()) } catch let error as CommandError {
                    #expect(error.description.hasPrefix("listing id must not contain \(named)"), "\(error)")
                }
            }
            #expect(throws: CommandError.self) { try runner.load(user: id) }
        }
        #expect(try store.headPosition() == 0)
    }
}
