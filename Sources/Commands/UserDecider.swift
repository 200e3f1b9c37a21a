import EventLog

/// The pure domain logic of one user's stream (the Decider pattern): no I/O, no clock.
///
/// `decide` checks a command against the rules and the state and returns the events to
/// record; `evolve` folds an event into the state. ``CommandRunner`` does the loading,
/// appending and retrying around it.
public enum UserDecider {
    /// The version of the rules that fold events into the state (``evolve(_:_:)``): a snapshot
    /// of a state folded by other rules is not used (``UserSnapshot``). Raise it whenever
    /// `evolve` would fold some stream into a different state.
    public static let stateVersion = 1

    /// The state of a user with no events.
    public static let initialState = UserState()

    /// The events a command records, or none when the state already is what it asks for.
    /// - Throws: ``CommandError/rejected(field:rule:)`` naming the field and the rule broken.
    public static func decide(_ command: UserCommand, state: UserState) throws -> [DomainEvent] {
        try decision(command, state: state).events
    }

    /// Checks `command`'s fields against the rules, as ``decision(_:state:)`` does whatever the
    /// stream holds (no rule depends on the state): a face refuses bad input with this before
    /// it opens a store, so a rejected command never creates one.
    /// - Throws: ``CommandError/rejected(field:rule:)`` naming the field and the rule broken.
    public static func check(_ command: UserCommand) throws {
        _ = try decision(command, state: UserState())
    }

    /// Like ``decide(_:state:)``, but says why nothing is recorded when nothing is.
    /// - Throws: ``CommandError/rejected(field:rule:)`` naming the field and the rule broken.
    public static func decision(_ command: UserCommand, state: UserState) throws -> Decision {
        // Listing ids are recorded in NFC (``Rules/identifier(_:field:)``): the state's set and
        // the views compare them by canonical equivalence, which is byte equality between NFC
        // strings, so a listing favorited under one spelling is removed under another.
        switch command {
        case .search(var search):
            if var results = search.results {
                results.listingIDs = try results.listingIDs.map {
                    try Rules.checkNewIdentifier($0, field: "results listing id")
                    return try Rules.identifier($0, field: "results listing id")
                }
                search.results = results
            }
            try check(search)
            return .record([.searched(search)])
        case let .favorite(listingID, summary):
            try Rules.checkNewIdentifier(listingID, field: "listing id")
            let listingID = try Rules.identifier(listingID, field: "listing id")
            try check(summary)
            if state.favorites.contains(listingID) {
                return .unchanged(.alreadyFavorite(listingID: listingID))
            }
            return .record([.favorited(Favorited(listingID: listingID, summary: summary))])
        case let .unfavorite(listingID):
            // Not held to the new-id rule: a favorite recorded before it can still be removed.
            let listingID = try Rules.identifier(listingID, field: "listing id")
            if !state.favorites.contains(listingID) {
                return .unchanged(.notFavorite(listingID: listingID))
            }
            return .record([.unfavorited(Unfavorited(listingID: listingID))])
        case .viewDetails(let listingID, var details):
            try Rules.checkNewIdentifier(listingID, field: "listing id")
            try Rules.checkNewIdentifier(details.listingID, field: "details listing id")
            let listingID = try Rules.identifier(listingID, field: "listing id")
            details.listingID = try Rules.identifier(details.listingID, field: "details listing id")
            try check(details, listingID: listingID)
            return .record([.detailsViewed(DetailsViewed(listingID: listingID, details: details))])
        }
    }

    /// The state after an event.
    public static func evolve(_ state: UserState, _ event: DomainEvent) -> UserState {
        var state = state
        switch event {
        case .favorited(let event): state.favorites.insert(event.listingID)
        case .unfavorited(let event): state.favorites.remove(event.listingID)
        case .searched, .detailsViewed: break
        }
        return state
    }

    /// The state after a recorded event, decoding the payload only for the types that change it
    /// (`Favorited`, `Unfavorited`); everything else is a fact that leaves the state as it is:
    ///
    /// - searches and details views (skipped unread);
    /// - tombstones (``Erasure/isTombstone(_:)``: what `evtool forget` left of an event). An
    ///   erased past is not known: a favorite that was erased is no favorite any more, so
    ///   favoriting it again records a new `Favorited` and unfavoriting it records nothing, as
    ///   the favorites view (a fold that skips tombstones too) shows;
    /// - an erasure's marker (``Erasure/markerType`` with the marker's data): the state becomes the initial one, as
    ///   folding the tombstones before it gives (so a state folded before the erasure and
    ///   carried past its marker forgets what was erased too);
    /// - types this release does not know (written with `evtool append` or imported): they are
    ///   taken not to be about favorites. A later release that adds a type changing favorites
    ///   must be deployed before it is written.
    /// - Throws: ``DomainEventError/unreadable(stream:version:position:_:)`` for a `Favorited`
    ///   or `Unfavorited` payload this release cannot read (newer schema, malformed and not a
    ///   tombstone), naming where it is: deciding on a state that silently skipped such an
    ///   event could record a duplicate favorite.
    public static func evolve(_ state: UserState, recorded: RecordedEvent) throws -> UserState {
        switch recorded.type {
        case Favorited.typeName, Unfavorited.typeName:
            if Erasure.isTombstone(recorded) { return state }
            do {
                return evolve(state, try DomainEvent.decode(recorded))
            } catch let error as DomainEventError {
                throw DomainEventError.reading(recorded, error)
            }
        case Erasure.markerType:
            // The data's shape alone, as the views test it (``Erasure/markerThroughVersion(_:)``).
            return Erasure.markerThroughVersion(recorded.data) != nil ? initialState : state
        default:
            return state
        }
    }

    // MARK: - Rules

    static func check(_ search: Searched) throws {
        try Rules.checkText(search.keyword, field: "keyword")
        guard search.distance.isFinite, search.distance > 0 else {
            throw CommandError.rejected(field: "distance", rule: "must be a positive number")
        }
        // Half the Earth's circumference is about 20,000 km (12,400 miles): a larger radius
        // finds nothing more, and is most likely a mistyped number.
        guard search.distance <= Searched.maximumDistance else {
            throw CommandError.rejected(field: "distance", rule: "must be at most \(Int(Searched.maximumDistance)) (half the Earth's circumference is about 20,000 km)")
        }
        switch search.location {
        case let .current(latitude, longitude):
            try Rules.checkCoordinates(latitude: latitude, longitude: longitude, field: "current location")
        case let .custom(text):
            try Rules.checkText(text, field: "custom location")
        }
        if let results = search.results {
            guard results.count >= 0 else {
                throw CommandError.rejected(field: "results count", rule: "must not be negative")
            }
            guard results.listingIDs.count <= results.count else {
                throw CommandError.rejected(
                    field: "results listing ids", rule: "must not outnumber the results count (\(results.listingIDs.count) ids, count \(results.count))")
            }
            for id in results.listingIDs {
                try Rules.checkIdentifier(id, field: "results listing id")
            }
        }
    }

    static func check(_ summary: ListingSummary) throws {
        try Rules.checkText(summary.name, field: "summary name")
        try Rules.checkOptionalText(summary.venue, field: "summary venue")
        try Rules.checkOptionalText(summary.localDateTime, field: "summary local date and time")
        try Rules.checkOptionalText(summary.category, field: "summary category")
    }

    static func check(_ details: ListingDetails, listingID: String) throws {
        guard details.listingID == listingID else {
            throw CommandError.rejected(field: "details listing id", rule: "must equal the listing id of the command")
        }
        let info = details.info
        try Rules.checkText(info.name, field: "details name")
        for name in info.artistsOrTeams { try Rules.checkText(name, field: "details artist or team") }
        for genre in info.genres { try Rules.checkOptionalText(genre, field: "details genre") }
        try Rules.checkOptionalText(info.venue, field: "details venue")
        try Rules.checkOptionalText(info.localDateTime, field: "details local date and time")
        try Rules.checkOptionalText(info.category, field: "details category")
        try Rules.checkOptionalText(info.ticketStatus, field: "details ticket status")
        try Rules.checkOptionalText(info.ticketLink, field: "details ticket link")
        try Rules.checkOptionalText(info.seatMapLink, field: "details seat map link")
        if let price = info.priceRange {
            guard price.minimum.isFinite, price.minimum >= 0 else {
                throw CommandError.rejected(field: "details price range minimum", rule: "must be a number not below 0")
            }
            guard price.maximum.isFinite, price.maximum >= price.minimum else {
                throw CommandError.rejected(field: "details price range maximum", rule: "must be a number not below the minimum")
            }
            try Rules.checkOptionalText(price.currency, field: "details price range currency")
        }
        for artist in details.artists ?? [] {
            try Rules.checkText(artist.name, field: "artist name")
            if let popularity = artist.popularity, !(0...100).contains(popularity) {
                throw CommandError.rejected(field: "artist popularity", rule: "must be from 0 to 100 (it is \(popularity))")
            }
            if let followers = artist.followers, followers < 0 {
                throw CommandError.rejected(field: "artist followers", rule: "must not be negative")
            }
            try Rules.checkOptionalText(artist.profileLink, field: "artist profile link")
            for cover in artist.albumCovers { try Rules.checkText(cover, field: "artist album cover") }
        }
        if let venue = details.venue {
            try Rules.checkText(venue.name, field: "venue name")
            for (text, field) in [
                (venue.address, "venue address"), (venue.phone, "venue phone"), (venue.openHours, "venue open hours"),
                (venue.generalRule, "venue general rule"), (venue.childRule, "venue child rule"),
            ] {
                try Rules.checkOptionalText(text, field: field)
            }
            switch (venue.latitude, venue.longitude) {
            case (nil, nil): break
            case let (latitude?, longitude?):
                try Rules.checkCoordinates(latitude: latitude, longitude: longitude, field: "venue")
            default:
                throw CommandError.rejected(field: "venue latitude and longitude", rule: "must both be given or both be missing")
            }
        }
        let upcoming = details.upcomingEvents
        guard upcoming.count <= ListingDetails.maximumUpcomingEvents else {
            throw CommandError.rejected(
                field: "upcoming events", rule: "must be at most \(ListingDetails.maximumUpcomingEvents) (there are \(upcoming.count))")
        }
        for listing in upcoming {
            try Rules.checkText(listing.name, field: "upcoming event name")
            try Rules.checkOptionalText(listing.artist, field: "upcoming event artist")
            try Rules.checkOptionalText(listing.localDateTime, field: "upcoming event local date and time")
            try Rules.checkOptionalText(listing.type, field: "upcoming event type")
            try Rules.checkOptionalText(listing.link, field: "upcoming event link")
        }
    }
}
