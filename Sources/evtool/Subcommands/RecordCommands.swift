import Commands
import EventLog
import EvtoolKit
import Foundation

/// `evtool search|favorite|unfavorite|view`: record one user action through the command
/// runner (load the user's stream, decide, append with the expected version, retry).
enum RecordCommands {
    static let commonOptions: [CommandSpec.Option] = [
        .init(name: "user", value: "ID", help: "The acting user"),
        .init(name: "request-id", value: "ID", help: "The client's request id: sending the same one again records nothing new"),
        .init(name: "source", value: "NAME", help: "Which app server or client sent it (default: evtool-cli)"),
        .init(name: "correlation-id", value: "ID", help: "Ties together what one user interaction caused"),
        .init(name: "occurred-at", value: "TIME", help: "When it happened on the client (default: now)"),
        CommandSpec.storeOption,
        .init(name: "json", value: nil, help: "Print the outcome as JSON"),
    ]

    static let search = CommandSpec(
        name: "search",
        summary: "Record a search",
        usage: "--user U --keyword K [--category C] [--distance N] [--units miles|km] (--here LAT,LNG | --location TEXT) [--results FILE] [options]",
        options: [
            .init(name: "keyword", value: "TEXT", help: "What the user searched for (not empty)"),
            .init(name: "category", value: "C", help: "All (default), Music, Sports, \"Arts & Theatre\", Film, Miscellaneous"),
            .init(name: "distance", value: "N", help: "How far to look (default 10), a positive number"),
            .init(name: "units", value: "U", help: "miles (default) or km"),
            .init(name: "here", value: "LAT,LNG", help: "Search around the user's detected location"),
            .init(name: "location", value: "TEXT", help: "Search around a location the user typed in"),
            .init(name: "results", value: "FILE", help: #"What came back: {"count":N,"listingIDs":[…]} ('-' for standard input)"#),
        ] + commonOptions,
        examples: [
            "evtool search --user ada --keyword jazz --category Music --here 34.0224,-118.2851",
            #"evtool search --user ada --keyword Lakers --distance 25 --units km --location "Los Angeles" --request-id r-81"#,
        ],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 0)
            let keyword = try arguments.required("keyword")
            let category: SearchCategory
            if let text = arguments.value("category") {
                guard let parsed = SearchCategory.allCases.first(where: { $0.rawValue.lowercased() == text.lowercased() }) else {
                    throw CLIError(message: "category must be one of \(SearchCategory.allCases.map(\.rawValue).joined(separator: ", ")), not '\(text)'", code: .invalidData)
                }
                category = parsed
            } else {
                category = .all
            }
            var distance = Searched.defaultDistance
            if let text = arguments.value("distance") {
                guard let value = Double(text) else { throw CLIError(message: "distance must be a positive number, not '\(text)'", code: .invalidData) }
                distance = value
            }
            var units = DistanceUnit.miles
            if let text = arguments.value("units") {
                guard let value = DistanceUnit(rawValue: text.lowercased()) else { throw CLIError(message: "units must be miles or km, not '\(text)'", code: .invalidData) }
                units = value
            }
            let location: SearchLocation
            switch (arguments.value("here"), arguments.value("location")) {
            case let (here?, nil):
                let parts = here.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
                guard parts.count == 2, let latitude = parts[0], let longitude = parts[1] else {
                    throw CLIError(message: "'--here' must be LATITUDE,LONGITUDE in degrees, e.g. 34.0224,-118.2851, not '\(here)'", code: .invalidData)
                }
                location = .current(latitude: latitude, longitude: longitude)
            case let (nil, text?):
                location = .custom(text: text)
            case (nil, nil):
                throw CLIError.usage("give the location: --here LAT,LNG or --location TEXT", arguments.command)
            default:
                throw CLIError.usage("give either --here or --location, not both", arguments.command)
            }
            let results = try arguments.value("results").map { try JSONInput.decode(SearchResults.self, from: $0, what: "results") }
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
            .init(name: "details", value: "FILE", help: "The details as JSON (see docs/EVENTS.md); '-' for standard input"),
        ] + commonOptions,
        examples: ["evtool view --user ada --listing L000042 --details details.json", "curl … | evtool view --user ada --listing L000042 --details -"],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 0)
            let listing = try arguments.required("listing")
            let details = try JSONInput.decode(ListingDetails.self, from: try arguments.required("details"), what: "details")
            try record(.viewDetails(listingID: listing, details: details), type: DetailsViewed.typeName, arguments, &console)
        })

    /// Runs a command for the user named by `--user` and prints its outcome.
    static func record(_ command: UserCommand, type: String, _ arguments: ParsedArguments, _ console: inout Console) throws {
        let user = try arguments.required("user")
        let context = CommandContext(
            userID: user, source: arguments.value("source") ?? "evtool-cli",
            occurredAt: try TimeArgument.option("occurred-at", in: arguments) ?? Timestamp.now(),
            requestID: arguments.value("request-id"), correlationID: arguments.value("correlation-id"))
        let store = try StoreLocation.resolve(arguments).open(create: true)
        // A long stream is read from its snapshot; snapshots of the views are kept for time travel.
        let outcome = try CommandRunner(store: store, snapshots: StoreSnapshots.of(store)).handle(command, context: context)
        try console.output(describe(outcome, user: user, type: type, json: arguments.flag("json")))
    }

    static func describe(_ outcome: CommandOutcome, user: String, type: String, json: Bool) -> String {
        switch outcome {
        case let .recorded(ids, version, positions):
            if json {
                return #"{"outcome":"recorded","user":\#(JSONText.quoted(user)),"type":"\#(type)","version":\#(version),"position":\#(positions.lowerBound),"eventIDs":[\#(ids.map { "\"\($0.lowercaseString)\"" }.joined(separator: ","))]}"#
            }
            return "recorded \(type) for \(TerminalText.escaped(user)): version \(version), position \(positions.lowerBound)"
        case .unchanged(let reason):
            if json { return #"{"outcome":"unchanged","user":\#(JSONText.quoted(user)),"reason":\#(JSONText.quoted(reason.description))}"# }
            return TerminalText.escaped(reason.description)
        }
    }
}

/// JSON arguments read from a file or standard input.
enum JSONInput {
    /// Reads `source` (a path, or `-` for standard input) and decodes it as `T`.
    static func decode<T: Decodable>(_: T.Type, from source: String, what: String) throws -> T {
        let data = try InputSource(source, what: what).readAll(what: what)
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let error as DecodingError {
            throw CLIError(message: "the \(what) JSON is not usable: \(JSONInput.reason(error))", code: .invalidData)
        }
    }

    static func reason(_ error: DecodingError) -> String {
        switch error {
        case let .keyNotFound(key, _): return "'\(key.stringValue)' is missing"
        case let .typeMismatch(type, context): return "'\(context.codingPath.map(\.stringValue).joined(separator: "."))' is not a \(type)"
        case let .valueNotFound(_, context): return "'\(context.codingPath.map(\.stringValue).joined(separator: "."))' is null"
        case let .dataCorrupted(context): return context.codingPath.isEmpty ? "it is not valid JSON" : "'\(context.codingPath.map(\.stringValue).joined(separator: "."))': \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}
