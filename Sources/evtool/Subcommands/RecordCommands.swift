import Commands
import EventLog
import EvtoolKit
import Foundation
import JSONKit
import StoreLocations
import Transfer

/// `evtool search|favorite|unfavorite|view`: record one user action through the command
/// runner (load the user's stream, decide, append with the expected version, retry).
enum RecordCommands {
    static let user = SharedOptions.user(help: "The acting user")
    static let requestID = TypedOption.text("request-id", value: "ID", help: "The client's request id: sending the same one again records nothing new")
    static let source = TypedOption.text("source", value: "NAME", help: "Which app server or client sent it (default: evtool-cli)", default: "evtool-cli")
    static let correlationID = TypedOption.text("correlation-id", value: "ID", help: "Ties together what one user interaction caused")
    static let occurredAt = SharedOptions.time("occurred-at", help: "When it happened on the client (default: now)")
    static let json = CommandSpec.Option(name: "json", value: nil, help: "Print the outcome as JSON")

    static let commonOptions: [CommandSpec.Option] = [
        user.declaration, requestID.declaration, source.declaration, correlationID.declaration, occurredAt.declaration,
        CommandSpec.storeOption, json,
    ]

    // `search`'s own options: a value the option cannot read is a usage error (64), as for every
    // option; a value it reads that breaks a rule (a negative distance, a latitude past 90) is 65.
    static let keyword = TypedOption.text("keyword", value: "TEXT", help: "What the user searched for (not empty)")
    static let category = TypedOption<SearchCategory>(
        name: "category", value: "C", help: "All (default), Music, Sports, \"Arts & Theatre\", Film, Miscellaneous",
        completion: .values(SearchCategory.allCases.map(\.rawValue)), default: .all, parse: { text in
            guard let parsed = SearchCategory.allCases.first(where: { $0.rawValue.lowercased() == text.lowercased() }) else {
                throw OptionValueError(message: "category must be one of \(SearchCategory.allCases.map(\.rawValue).joined(separator: ", ")), not '\(text)'")
            }
            return parsed
        })
    static let distance = TypedOption<Double>(
        name: "distance", value: "N", help: "How far to look (default 10), a positive number", default: Searched.defaultDistance, parse: { text in
            guard let value = Double(text) else { throw OptionValueError(message: "distance must be a positive number, not '\(text)'") }
            return value
        })
    static let units = TypedOption<DistanceUnit>(
        name: "units", value: "U", help: "miles (default) or km", completion: .values(["miles", "km"]), default: .miles, parse: { text in
            guard let value = DistanceUnit(rawValue: text.lowercased()) else { throw OptionValueError(message: "units must be miles or km, not '\(text)'") }
            return value
        })
    static let here = TypedOption<(latitude: Double, longitude: Double)>(
        name: "here", value: "LAT,LNG", help: "Search around the user's detected location", parse: { here in
            let parts = here.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 2, let latitude = parts[0], let longitude = parts[1] else {
                throw OptionValueError(message: "'--here' must be LATITUDE,LONGITUDE in degrees, e.g. 34.0224,-118.2851, not '\(here)'")
            }
            return (latitude, longitude)
        })
    static let location = TypedOption.text("location", value: "TEXT", help: "Search around a location the user typed in")
    static let results = TypedOption.text("results", value: "FILE", help: #"What came back: {"count":N,"listingIDs":[…]} ('-' for standard input)"#)

    static let search = CommandSpec(
        name: "search",
        summary: "Record a search",
        usage: "--user U --keyword K [--category C] [--distance N] [--units miles|km] (--here LAT,LNG | --location TEXT) [--results FILE] [options]",
        options: [
            keyword.declaration, category.declaration, distance.declaration, units.declaration,
            here.declaration, location.declaration, results.declaration,
        ] + commonOptions,
        examples: [
            "evtool search --user ada --keyword jazz --category Music --here 34.0224,-118.2851",
            #"evtool search --user ada --keyword Lakers --distance 25 --units km --location "Los Angeles" --request-id r-81"#,
        ],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 0)
            let keyword = try arguments.required(Self.keyword)
            let category = try arguments.required(Self.category)
            let distance = try arguments.required(Self.distance)
            let units = try arguments.required(Self.units)
            let location: SearchLocation
            switch (try arguments.value(Self.here), try arguments.value(Self.location)) {
            case let (here?, nil):
                location = .current(latitude: here.latitude, longitude: here.longitude)
            case let (nil, text?):
                location = .custom(text: text)
            case (nil, nil):
                throw CLIError.usage("give the location: --here LAT,LNG or --location TEXT", arguments.command)
            default:
                throw CLIError.usage("give either --here or --location, not both", arguments.command)
            }
            let results = try arguments.value(Self.results).map { try JSONInput.decode(SearchResults.self, from: $0, what: "results") }
            try record(.search(Searched(keyword: keyword, category: category, distance: distance, units: units, location: location, results: results)),
                       type: Searched.typeName, arguments, &console)
        })

    static let favorite = CommandSpec(
        name: "favorite",
        summary: "Record that a user favorited a listing",
        usage: "--user U --listing ID (--name N --venue V --date D --category C | --summary FILE) [options]",
        options: [
            .init(name: "listing", value: "ID", help: "The listing's id"),
            .init(name: "name", value: "TEXT", help: "The listing's name, as its list row shows it"),
            .init(name: "venue", value: "TEXT", help: "The venue's name"),
            .init(name: "date", value: "TEXT", help: "Local date and time as the source gave it, e.g. \"2026-12-05 19:30:00\""),
            .init(name: "category", value: "TEXT", help: "The listing's category (picks the row's icon)"),
            .init(name: "summary", value: "FILE", help: #"The summary as JSON {"name","venue","localDateTime","category"} ('-' for standard input)"#),
        ] + commonOptions,
        examples: [
            #"evtool favorite --user ada --listing L000042 --name "Hamilton" --venue "Pantages Theatre" --date "2026-12-05 19:30:00" --category "Arts & Theatre""#,
            #"echo '{"name":"Hamilton","venue":"Pantages","localDateTime":"2026-12-05 19:30:00","category":"Arts & Theatre"}' | evtool favorite --user ada --listing L000042 --summary -"#,
        ],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 0)
            let listing = try arguments.required("listing")
            let summary: ListingSummary
            if let source = arguments.value("summary") {
                for field in ["name", "venue", "date", "category"] where arguments.value(field) != nil {
                    throw CLIError.usage("give either --summary or --\(field) and the other summary fields, not both", arguments.command)
                }
                summary = try JSONInput.decode(ListingSummary.self, from: source, what: "summary")
            } else {
                summary = ListingSummary(name: try arguments.required("name"), venue: try arguments.required("venue"),
                                         localDateTime: try arguments.required("date"), category: try arguments.required("category"))
            }
            try record(.favorite(listingID: listing, summary: summary), type: Favorited.typeName, arguments, &console)
        })

    static let unfavorite = CommandSpec(
        name: "unfavorite",
        summary: "Record that a user removed a listing from their favorites",
        usage: "--user U --listing ID [options]",
        options: [.init(name: "listing", value: "ID", help: "The listing's id")] + commonOptions,
        examples: ["evtool unfavorite --user ada --listing L000042"],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 0)
            try record(.unfavorite(listingID: try arguments.required("listing")), type: Unfavorited.typeName, arguments, &console)
        })

    static let view = CommandSpec(
        name: "view",
        summary: "Record that a user opened a listing's details, with the details they saw",
        usage: "--user U --listing ID --details FILE [options]",
        options: [
            .init(name: "listing", value: "ID", help: "The listing's id"),
            .init(name: "details", value: "FILE", help: "The details as JSON (see docs/reference/events.md); '-' for standard input"),
        ] + commonOptions,
        discussion: """
        The details file holds the details object, or a DetailsViewed payload as \
        docs/reference/events.md shows it ({"details": {…}, "listingID": …, "schemaVersion": 1}). \
        Only listingID and info.name are required; artistsOrTeams, genres and upcomingEvents \
        default to empty lists.
        """,
        examples: [
            #"echo '{"listingID":"L000042","info":{"name":"Hamilton","venue":"Pantages Theatre"}}' | evtool view --user ada --listing L000042 --details -"#,
            "evtool view --user ada --listing L000042 --details details.json",
            "curl … | evtool view --user ada --listing L000042 --details -",
        ],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 0)
            let listing = try arguments.required("listing")
            let details = try JSONInput.decode(ListingDetails.Submitted.self, from: try arguments.required("details"), what: "details").details
            try record(.viewDetails(listingID: listing, details: details), type: DetailsViewed.typeName, arguments, &console)
        })

    /// Runs a command for the user named by `--user` and prints its outcome.
    static func record(_ command: UserCommand, type: String, _ arguments: ParsedArguments, _ console: inout Console) throws {
        let user = try arguments.required(Self.user)
        let typed = CommandContext(
            userID: user, source: try arguments.required(Self.source),
            occurredAt: try arguments.value(occurredAt) ?? Timestamp.now(),
            requestID: try arguments.value(requestID), correlationID: try arguments.value(correlationID))
        // Refused before the store is opened: a rejected command creates no store. The outcome
        // names the user as recorded (NFC), as `favorites` and the HTTP API do.
        let context = try typed.normalized()
        try UserDecider.check(command)
        // A long stream is read from its snapshot; snapshots of the views are kept for time travel.
        let application = Application(store: try StoreLocation.resolve(arguments).openForViews(create: true))
        let result = try application.record(command, context: context)
        try console.output(describe(result, requestID: context.requestID, json: arguments.flag(json)))
    }

    /// A recording's outcome: its JSON (the HTTP API's shape, ``EvtoolKit/RecordResult/write(to:)``)
    /// or a line for a person.
    static func describe(_ result: RecordResult, requestID: String?, json: Bool) -> String {
        if json {
            var writer = JSONWriter()
            result.write(to: &writer)
            return writer.text
        }
        if let reason = result.unchanged { return TerminalText.escaped(reason.description) }
        let replay = result.isReplay ? " (request '\(TerminalText.escaped(requestID ?? ""))' was recorded already: its first outcome, nothing recorded again)" : ""
        return "recorded \(result.type) for \(TerminalText.escaped(result.user)): version \(result.streamVersion), position \(result.positions?.lowerBound ?? 0)" + replay
    }
}

/// JSON arguments read from a file or standard input.
enum JSONInput {
    /// Reads `source` (a path, or `-` for standard input) and decodes it as `T`.
    static func decode<T: Decodable>(_: T.Type, from source: String, what: String) throws -> T {
        let data = try InputSource(source, what: what).readAll(what: what)
        do {
            return try JSONDecodingFailure.decode(T.self, from: data)
        } catch {
            throw CLIError(message: "the \(what) JSON is not usable: \(error)", code: .invalidData)
        }
    }
}
