import Commands
import Testing

@Suite("Favorite rules: given a user's favorites, when they favorite or unfavorite, then …")
struct FavoriteRulesTests {
    @Test("favoriting a listing that is not a favorite records Favorited with its summary")
    func favoriteNew() throws {
        let decision = try UserDecider.decision(Fixtures.favorite("A"), state: given([]))
        #expect(decision == .record([Fixtures.favorited("A")]))
    }

    @Test("favoriting a current favorite records nothing and says so")
    func favoriteTwice() throws {
        let decision = try UserDecider.decision(Fixtures.favorite("A"), state: given([Fixtures.favorited("A")]))
        #expect(decision == .unchanged(.alreadyFavorite(listingID: "A")))
        #expect(decision.events.isEmpty)
        #expect(Unchanged.alreadyFavorite(listingID: "A").description == "listing 'A' is already a favorite; nothing recorded")
    }

    @Test("favoriting again after removing it records Favorited again")
    func favoriteAfterRemoval() throws {
        let history: [DomainEvent] = [Fixtures.favorited("A"), .unfavorited(Unfavorited(listingID: "A"))]
        #expect(try UserDecider.decide(Fixtures.favorite("A"), state: given(history)) == [Fixtures.favorited("A")])
    }

    @Test("unfavoriting a favorite records Unfavorited")
    func unfavorite() throws {
        let events = try UserDecider.decide(.unfavorite(listingID: "A"), state: given([Fixtures.favorited("A")]))
        #expect(events == [.unfavorited(Unfavorited(listingID: "A"))])
    }

    @Test("unfavoriting a listing that is not a favorite records nothing and says so")
    func unfavoriteNonFavorite() throws {
        let history: [DomainEvent] = [Fixtures.favorited("B")]
        #expect(try UserDecider.decision(.unfavorite(listingID: "A"), state: given(history)) == .unchanged(.notFavorite(listingID: "A")))
        let removed: [DomainEvent] = [Fixtures.favorited("A"), .unfavorited(Unfavorited(listingID: "A"))]
        #expect(try UserDecider.decision(.unfavorite(listingID: "A"), state: given(removed)) == .unchanged(.notFavorite(listingID: "A")))
    }

    @Test("searches and details views do not change the favorites")
    func otherEventsLeaveFavorites() {
        let state = given([.searched(Fixtures.search()), .detailsViewed(DetailsViewed(listingID: "A", details: Fixtures.details("A")))])
        #expect(state == UserDecider.initialState)
    }

    @Test("a favorite's summary needs a name")
    func summaryName() {
        let command = UserCommand.favorite(listingID: "A", summary: Fixtures.summary(" "))
        #expect(rejection(when: command)?.description == "summary name must not be empty or only spaces")
    }
}

@Suite("Identifier rules: listing ids and user ids are non-empty, bounded, without control characters")
struct IdentifierRulesTests {
    static let badIDs: [(String, String)] = [
        ("", "must not be empty"),
        (String(repeating: "x", count: 201), "must be at most 200 bytes long (it is 201)"),
        ("a\nb", "must not contain control characters"),
        ("a\u{7F}", "must not contain control characters"),
    ]

    @Test("a bad listing id is rejected by every listing command")
    func badListingID() {
        for (id, rule) in Self.badIDs {
            for command: UserCommand in [
                Fixtures.favorite(id), .unfavorite(listingID: id), .viewDetails(listingID: id, details: Fixtures.details(id)),
            ] {
                #expect(rejection(when: command) == .rejected(field: "listing id", rule: rule))
            }
        }
    }

    @Test("an id of exactly 200 bytes, or with spaces and any script, is accepted")
    func goodListingIDs() {
        for id in [String(repeating: "x", count: 200), "vvG1zZ9pBk", "Konzert Nr. 7", "演唱会-1"] {
            #expect(rejection(when: Fixtures.favorite(id)) == nil)
        }
    }

    @Test("a bad user id, source or request id is rejected before anything is read")
    func badContext() {
        for (id, rule) in Self.badIDs {
            var context = Fixtures.context()
            context.userID = id
            #expect(throws: CommandError.rejected(field: "user id", rule: rule)) { try context.validate() }
            context = Fixtures.context(requestID: id)
            #expect(throws: CommandError.rejected(field: "request id", rule: rule)) { try context.validate() }
        }
        var context = Fixtures.context()
        context.source = ""
        #expect(throws: CommandError.rejected(field: "source", rule: "must not be empty")) { try context.validate() }
        #expect(throws: Never.self) { try Fixtures.context(requestID: "req-1").validate() }
    }

    @Test("the stream of a user is named by the user id")
    func streamID() {
        #expect(UserStream.id(for: "user-42") == "user-42")
    }
}
