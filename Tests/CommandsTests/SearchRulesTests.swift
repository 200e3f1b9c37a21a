import Commands
import Testing

@Suite("Search rules: given a user, when they search, then …")
struct SearchRulesTests {
    @Test("a valid search records one Searched event with exactly what was asked")
    func validSearchIsRecorded() throws {
        let search = Fixtures.search()
        let events = try UserDecider.decide(.search(search), state: given([]))
        #expect(events == [.searched(search)])
    }

    @Test("a search records even when the same search was made before")
    func repeatedSearchIsRecordedAgain() throws {
        let search = Fixtures.search()
        let events = try UserDecider.decide(.search(search), state: given([.searched(search)]))
        #expect(events == [.searched(search)])
    }

    @Test("the distance defaults to 10 and the units to miles")
    func defaults() {
        let search = Searched(keyword: "jazz", location: .custom(text: "Chicago"))
        #expect(search.distance == 10)
        #expect(search.units == .miles)
        #expect(search.category == .all)
    }

    @Test("an empty or blank keyword is rejected, naming the field and the rule",
          arguments: ["", " ", "   \t", "\u{00A0}\u{2003}"])
    func blankKeyword(keyword: String) {
        let error = rejection(when: .search(Fixtures.search(keyword)))
        #expect(error == .rejected(field: "keyword", rule: "must not be empty or only spaces"))
        #expect(error?.description == "keyword must not be empty or only spaces")
    }

    @Test("a keyword with a control character or over the length limit is rejected")
    func oddKeyword() {
        #expect(rejection(when: .search(Fixtures.search("a\u{0}b")))
            == .rejected(field: "keyword", rule: "must not contain control characters"))
        let long = String(repeating: "k", count: Rules.maximumTextLength + 1)
        #expect(rejection(when: .search(Fixtures.search(long)))?.description.hasPrefix("keyword must be at most") == true)
    }

    @Test("a blank custom location is rejected", arguments: ["", "  "])
    func blankCustomLocation(text: String) {
        let error = rejection(when: .search(Fixtures.search(location: .custom(text: text))))
        #expect(error?.description == "custom location must not be empty or only spaces")
    }

    @Test("a custom location with text is accepted")
    func customLocation() throws {
        let search = Fixtures.search(location: .custom(text: "Los Angeles"))
        #expect(try UserDecider.decide(.search(search), state: given([])) == [.searched(search)])
    }

    @Test("a distance that is not a positive finite number is rejected",
          arguments: [0, -1, -0.0, .infinity, -.infinity, .nan])
    func badDistance(distance: Double) {
        var search = Fixtures.search()
        search.distance = distance
        #expect(rejection(when: .search(search))?.description == "distance must be a positive number")
    }

    @Test("current-location coordinates out of range are rejected")
    func badCoordinates() {
        let cases: [(Double, Double, String)] = [
            (90.5, 0, "current location latitude must be a number from -90 to 90"),
            (-91, 0, "current location latitude must be a number from -90 to 90"),
            (.nan, 0, "current location latitude must be a number from -90 to 90"),
            (0, 180.1, "current location longitude must be a number from -180 to 180"),
            (0, -181, "current location longitude must be a number from -180 to 180"),
        ]
        for (latitude, longitude, message) in cases {
            let search = Fixtures.search(location: .current(latitude: latitude, longitude: longitude))
            #expect(rejection(when: .search(search))?.description == message)
        }
        let edges = Fixtures.search(location: .current(latitude: -90, longitude: 180))
        #expect(rejection(when: .search(edges)) == nil)
    }

    @Test("category and units must be words from the lists")
    func categoryAndUnitsFromTheLists() throws {
        #expect(try SearchCategory(validating: "Arts & Theatre") == .artsAndTheatre)
        #expect(SearchCategory.allCases.map(\.rawValue) == ["All", "Music", "Sports", "Arts & Theatre", "Film", "Miscellaneous"])
        #expect(throws: CommandError.rejected(
            field: "category", rule: "must be one of All, Music, Sports, Arts & Theatre, Film, Miscellaneous")) {
            try SearchCategory(validating: "music")
        }
        #expect(try DistanceUnit(validating: "km") == .km)
        #expect(throws: CommandError.rejected(field: "units", rule: "must be one of miles, km")) {
            try DistanceUnit(validating: "meters")
        }
    }

    @Test("results must have a non-negative count, no more ids than the count, and valid ids")
    func badResults() {
        var search = Fixtures.search()
        search.results = SearchResults(count: -1, listingIDs: [])
        #expect(rejection(when: .search(search))?.description == "results count must not be negative")
        search.results = SearchResults(count: 1, listingIDs: ["a", "b"])
        #expect(rejection(when: .search(search))?.description.hasPrefix("results listing ids must not outnumber") == true)
        search.results = SearchResults(count: 5, listingIDs: [""])
        #expect(rejection(when: .search(search))?.description == "results listing id must not be empty")
        search.results = nil
        #expect(rejection(when: .search(search)) == nil)
    }
}
