import Commands
import Testing

@Suite("Details rules: when a user views details, then the details must be well formed for that listing")
struct DetailsRulesTests {
    func view(_ details: ListingDetails, listingID: String = "vvG1zZ9pBk") -> UserCommand {
        .viewDetails(listingID: listingID, details: details)
    }

    @Test("well-formed details record DetailsViewed with the snapshot")
    func valid() throws {
        let details = Fixtures.details()
        #expect(try UserDecider.decide(view(details), state: given([])) == [
            .detailsViewed(DetailsViewed(listingID: "vvG1zZ9pBk", details: details)),
        ])
    }

    @Test("details with only a name (non-music, no venue, no upcoming events) are accepted")
    func minimal() {
        let details = ListingDetails(listingID: "x", info: ListingInfo(name: "Hamilton"))
        #expect(rejection(when: view(details, listingID: "x")) == nil)
    }

    @Test("details of another listing are rejected")
    func idsMustMatch() {
        #expect(rejection(when: view(Fixtures.details("other"))) ==
            .rejected(field: "details listing id", rule: "must equal the listing id of the command"))
    }

    @Test("the details need a name")
    func name() {
        var details = Fixtures.details()
        details.info.name = ""
        #expect(rejection(when: view(details))?.description == "details name must not be empty or only spaces")
    }

    @Test("artist popularity must be 0–100 and followers not negative", arguments: [-1, 101, 1_000])
    func popularity(popularity: Int) {
        var details = Fixtures.details()
        details.artists?[0].popularity = popularity
        #expect(rejection(when: view(details))?.description == "artist popularity must be from 0 to 100 (it is \(popularity))")
    }

    @Test("artist followers must not be negative; popularity 0 and 100 are fine")
    func followers() {
        var details = Fixtures.details()
        details.artists?[0].popularity = 0
        #expect(rejection(when: view(details)) == nil)
        details.artists?[0].followers = -5
        #expect(rejection(when: view(details))?.description == "artist followers must not be negative")
    }

    @Test("at most 5 upcoming events")
    func upcomingLimit() {
        var details = Fixtures.details()
        details.upcomingEvents = Array(repeating: UpcomingListing(name: "Show"), count: 5)
        #expect(rejection(when: view(details)) == nil)
        details.upcomingEvents.append(UpcomingListing(name: "Show"))
        #expect(rejection(when: view(details))?.description == "upcoming events must be at most 5 (there are 6)")
    }

    @Test("venue coordinates in range, and both or neither")
    func venueCoordinates() {
        var details = Fixtures.details()
        details.venue?.latitude = 100
        #expect(rejection(when: view(details))?.description == "venue latitude must be a number from -90 to 90")
        details.venue?.latitude = nil
        #expect(rejection(when: view(details))?.description == "venue latitude and longitude must both be given or both be missing")
        details.venue?.longitude = nil
        #expect(rejection(when: view(details)) == nil)
    }

    @Test("a price range is non-negative and ordered")
    func priceRange() {
        var details = Fixtures.details()
        details.info.priceRange = PriceRange(minimum: -1, maximum: 10)
        #expect(rejection(when: view(details))?.description == "details price range minimum must be a number not below 0")
        details.info.priceRange = PriceRange(minimum: 20, maximum: 10)
        #expect(rejection(when: view(details))?.description == "details price range maximum must be a number not below the minimum")
    }

    @Test("names inside the snapshot must not be blank")
    func blankNames() {
        var details = Fixtures.details()
        details.venue?.name = " "
        #expect(rejection(when: view(details))?.description == "venue name must not be empty or only spaces")
        details = Fixtures.details()
        details.upcomingEvents[0].name = ""
        #expect(rejection(when: view(details))?.description == "upcoming event name must not be empty or only spaces")
        details = Fixtures.details()
        details.artists?[0].name = ""
        #expect(rejection(when: view(details))?.description == "artist name must not be empty or only spaces")
    }
}
