import Commands
import EventLog
import EvtoolKit
import Foundation
import JSONKit
import Projections
import Transfer

/// `evtool favorites|recent|viewed|details|history`: read the views, now or as of the past.
enum QueryCommands {
    static let user = SharedOptions.user(help: "Whose view to show")
    static let userOptions: [CommandSpec.Option] = [
        user.declaration, SharedOptions.asOf.declaration, CommandSpec.storeOption, SharedOptions.readStore.declaration, CommandSpec.jsonOption,
    ]
    static let since = SharedOptions.time("since", help: "Only actions recorded at or after this time")
    static let until = SharedOptions.time("until", help: "Only actions recorded before this time")
    static let eventType = TypedOption.text("type", value: "T", help: "Only events of this type (Searched, Favorited, Unfavorited, DetailsViewed); repeatable",
                                       repeatable: true, completion: .values([Searched.typeName, Favorited.typeName, Unfavorited.typeName, DetailsViewed.typeName]))

    static let favorites = CommandSpec(
        name: "favorites", summary: "Show a user's favorites, in the order added",
        usage: "--user U [--as-of POSITION|TIME] [--json] [--store STORE] [--read-store URL]", options: userOptions,
        examples: ["evtool favorites --user ada", "evtool favorites --user ada --as-of 2026-03-01 --json"],
        run: { arguments, console in
            let document = try userDocument(Views.favorites, arguments, console: &console)
            let items = document?.items ?? []
            if arguments.flag(SharedOptions.json) { return try console.output(jsonText(document)) }
            guard !items.isEmpty else { return try console.output("No favorites") }
            var table = TextTable("LISTING", "NAME", "VENUE", "DATE", "CATEGORY", "ADDED")
            for item in items {
                table.add(item.listingID, item.summary.name, item.summary.venue, item.summary.localDateTime, item.summary.category, Timestamp.format(item.addedAt))
            }
            for line in table.lines { try console.output(line) }
        })

    static let recent = CommandSpec(
        name: "recent", summary: "Show a user's recent searches, newest first (20 at most, no repeats)",
        usage: "--user U [--as-of POSITION|TIME] [--json] [--store STORE] [--read-store URL]", options: userOptions,
        examples: ["evtool recent --user ada"],
        run: { arguments, console in
            let document = try userDocument(Views.recentSearches, arguments, console: &console)
            let items = document?.items ?? []
            if arguments.flag(SharedOptions.json) { return try console.output(jsonText(document)) }
            guard !items.isEmpty else { return try console.output("No recent searches") }
            var table = TextTable("KEYWORD", "CATEGORY", "DISTANCE", "LOCATION", "RESULTS", "SEARCHED")
            for item in items {
                let place: String
                switch item.location {
                case let .current(latitude, longitude): place = String(format: "here (%.4f,%.4f)", latitude, longitude)
                case let .custom(text): place = text
                }
                table.add(item.keyword, item.category.rawValue, "\(History.formatDistance(item.distance)) \(item.units.rawValue)", place,
                          item.resultCount.map(String.init) ?? "-", Timestamp.format(item.searchedAt))
            }
            for line in table.lines { try console.output(line) }
        })

    static let viewed = CommandSpec(
        name: "viewed", summary: "Show the listings a user opened most recently, newest first (20 at most)",
        usage: "--user U [--as-of POSITION|TIME] [--json] [--store STORE] [--read-store URL]", options: userOptions,
        examples: ["evtool viewed --user ada"],
        run: { arguments, console in
            let document = try userDocument(Views.recentlyViewed, arguments, console: &console)
            let items = document?.items ?? []
            if arguments.flag(SharedOptions.json) { return try console.output(jsonText(document)) }
            guard !items.isEmpty else { return try console.output("No recently viewed listings") }
            var table = TextTable("LISTING", "NAME", "VIEWED")
            for item in items { table.add(item.listingID, item.name, Timestamp.format(item.viewedAt)) }
            for line in table.lines { try console.output(line) }
        })

    static let details = CommandSpec(
        name: "details", summary: "Show the cached details of a listing: the latest any user fetched",
        usage: "--listing ID [--as-of POSITION|TIME] [--json] [--store STORE] [--read-store URL]",
        options: [.init(name: "listing", value: "ID", help: "The listing")] + userOptions.filter { $0.name != "user" },
        examples: ["evtool details --listing L000042", "evtool details --listing L000042 --json | jq .details.info"],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 0)
            let listing = try Rules.identifier(try arguments.required("listing"), field: "listing id")
            let application = try ReadStore.application(arguments, console: &console).application
            let point = try arguments.value(SharedOptions.asOf)
            let document = try application.document(Views.cachedDetails, key: listing, asOf: point)
            if arguments.flag(SharedOptions.json) { return try console.output(document.map { String(decoding: $0.jsonData, as: UTF8.self) } ?? "null") }
            guard let document else { return try console.output("No cached details for listing \(TerminalText.escaped(listing))") }
            let details = try document.decodedDetails()
            let info = details.info
            var lines = [
                ("Listing", listing), ("Name", info.name), ("Artists/teams", info.artistsOrTeams.joined(separator: ", ")),
                ("Venue", info.venue ?? "-"), ("Date", info.localDateTime ?? "-"), ("Category", info.category ?? "-"),
                ("Genres", info.genres.joined(separator: " | ")),
                ("Price", info.priceRange.map { "\($0.minimum) - \($0.maximum) \($0.currency ?? "")" } ?? "-"),
                ("Tickets", info.ticketStatus ?? "-"), ("Buy at", info.ticketLink ?? "-"), ("Seat map", info.seatMapLink ?? "-"),
                ("Artists", details.artists.map { $0.map(\.name).joined(separator: ", ") } ?? "no artist data"),
                ("Upcoming", "\(details.upcomingEvents.count) at the venue"),
            ]
            lines += [("Fetched", "\(Timestamp.format(document.fetchedAt)) by \(document.fetchedBy)"), ("Views", String(document.views))]
            for (label, value) in lines { try console.output(label.padded(to: 15) + TerminalText.escaped(value)) }
        })

    static let history = CommandSpec(
        name: "history", summary: "Show every action of a user in order, with time and metadata (the audit trail)",
        usage: "--user U [--type T]… [--since TIME] [--until TIME] [--as-of POSITION|TIME] [--json] [--store STORE] [--read-store URL]",
        options: [
            eventType.declaration, since.declaration, until.declaration,
        ] + userOptions,
        examples: ["evtool history --user ada", "evtool history --user ada --type Favorited --since 2026-03-01 --json"],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 0)
            let typed = try arguments.required(Self.user)
            let types = Set(try arguments.all(eventType))
            let filter = History.Filter(types: types, since: try arguments.value(since),
                                        until: try arguments.value(until), asOf: try arguments.value(SharedOptions.asOf))
            let application = try ReadStore.application(arguments, console: &console).application
            let user = try application.userWithEvents(typed: typed)
            if arguments.flag(SharedOptions.json) {
                try application.forEachHistoryEntry(of: user, filter: filter) { entry in
                    var writer = JSONWriter()
                    LogRecord.write(entry, to: &writer)
                    try console.output(writer.text)
                }
                return
            }
            var table = TextTable("POSITION", "RECORDED", "TYPE", "WHAT", "SOURCE", "REQUEST")
            try application.forEachHistoryEntry(of: user, filter: filter) { entry in
                table.add(String(entry.position), Timestamp.format(entry.recordedAt), entry.type, entry.summary, entry.source ?? "-", entry.requestID ?? "-")
            }
            if table.rows.isEmpty { return try console.output("No history for user \(TerminalText.escaped(user))") }
            for line in table.lines { try console.output(line) }
        })

    /// A view document as JSON; a user with nothing in the view gets an empty list.
    static func jsonText<D: ViewDocument>(_ document: D?) -> String {
        document.map { String(decoding: $0.jsonData, as: UTF8.self) } ?? #"{"items":[]}"#
    }

    /// A user-keyed view's document now (after catching the view up) or as of `--as-of`, from
    /// the read store when there is one (``EvtoolKit/ReadStore``).
    static func userDocument<P: Projection>(_ projection: P, _ arguments: ParsedArguments, console: inout Console) throws -> P.Document? {
        try arguments.expectPositional(atMost: 0)
        let typed = try arguments.required(Self.user)
        let application = try ReadStore.application(arguments, console: &console).application
        let user = try application.existingUser(typed: typed)
        let point = try arguments.value(SharedOptions.asOf)
        return try application.document(projection, key: user, asOf: point)
    }
}
