import EvtoolClient
import Foundation

/// The Event Search app's screens on the command line, through EvtoolClient: search, the
/// results, "Save Event", the favorites list, the details screen, remove, and "Save Event"
/// again. Every screen reads the client's views, so the walk works with the server down; the
/// actions wait on the device and `sync` sends them when the server is back.
///
///     EVTOOL_SERVER=http://127.0.0.1:8080 EVTOOL_TOKEN=evt_… swift run PhoneApp walk
///     swift run PhoneApp sync          # later: send what waits, show the favorites
///
/// Settings: `EVTOOL_SERVER` (default http://127.0.0.1:8080), `EVTOOL_TOKEN` (a user token
/// made for `EVTOOL_USER`), `EVTOOL_USER` (default ada), `EVTOOL_CLIENT_FILE` (default phoneapp.sqlite).
@main
enum PhoneApp {
    /// What the search screen finds (the app's own search back end, here a fixed catalog).
    static let catalog: [(id: String, summary: ListingSummary)] = [
        ("L000042", ListingSummary(name: "Hamilton", venue: "Pantages Theatre", localDateTime: "2026-12-05 19:30:00", category: "Arts & Theatre")),
        ("L000043", ListingSummary(name: "Wicked", venue: "Pantages Theatre", localDateTime: "2026-12-06 19:30:00", category: "Arts & Theatre")),
        ("L000044", ListingSummary(name: "Hamilton (matinee)", venue: "Pantages Theatre", localDateTime: "2026-12-06 14:00:00", category: "Arts & Theatre")),
    ]

    static func main() async {
        let environment = ProcessInfo.processInfo.environment
        let command = CommandLine.arguments.dropFirst().first ?? "walk"
        do {
            let client = try EvtoolClient(.init(
                server: URL(string: environment["EVTOOL_SERVER"] ?? "http://127.0.0.1:8080")!,
                token: environment["EVTOOL_TOKEN"] ?? "", user: environment["EVTOOL_USER"] ?? "ada",
                databasePath: environment["EVTOOL_CLIENT_FILE"] ?? "phoneapp.sqlite",
                source: "phoneapp", retry: .init(attempts: 3, initialDelay: 0.2, maximumDelay: 1)))
            switch command {
            case "walk": try await walk(client)
            case "sync": try await sync(client)
            case "favorites": try favoritesScreen(client)
            default:
                print("usage: PhoneApp walk|sync|favorites")
                exit(64)
            }
        } catch {
            print("Error: \(error)")
            exit(1)
        }
    }

    /// search → results → favorite → favorites list → details → remove → "Save Event" again.
    static func walk(_ client: EvtoolClient) async throws {
        // Search screen.
        let results = catalog.filter { $0.summary.name.lowercased().contains("hamilton") }
        try client.record(.search(Search(keyword: "Hamilton", category: "Arts & Theatre", place: .named("Los Angeles"), resultListingIDs: results.map(\.id))))
        print("[search] \"Hamilton\" in Arts & Theatre near Los Angeles: \(results.count) results")
        // Results screen: each row with its button.
        for (id, summary) in results {
            print("[results] \(id) \(summary.name), \(summary.venue), \(summary.localDateTime)  [\(try button(client, id))]")
        }
        // Tap "Save Event" on the first result.
        let (id, summary) = results[0]
        try client.record(.favorite(listingID: id, summary: summary))
        print("[results] tapped Save Event on \(id): [\(try button(client, id))]")
        try favoritesScreen(client)
        // Details screen.
        try client.record(.viewDetails(ListingDetails(listingID: id, name: summary.name)))
        print("[details] \(id) \(summary.name)  [\(try button(client, id))]")
        // Remove from the details screen: the button says "Save Event" again, everywhere.
        try client.record(.unfavorite(listingID: id))
        print("[details] tapped Remove: [\(try button(client, id))]")
        try favoritesScreen(client)
        print("[recently viewed] \(try client.recentlyViewed().map { "\($0.listingID) \($0.name)" }.joined(separator: ", "))")
        try await sync(client)
    }

    /// The details screen's button for a listing.
    static func button(_ client: EvtoolClient, _ listing: String) throws -> String {
        try client.isFavorite(listing) ? "Saved" : "Save Event"
    }

    static func favoritesScreen(_ client: EvtoolClient) throws {
        let favorites = try client.favorites()
        print("[favorites] " + (favorites.isEmpty ? "none" : favorites.map { "\($0.listingID) \($0.summary.name)" }.joined(separator: ", ")))
    }

    /// Sends what waits on the device, then shows the favorites as the server has them.
    static func sync(_ client: EvtoolClient) async throws {
        let report = await client.sync()
        for refused in report.refused { print("[sync] refused: \(refused.problem)") }
        if let stopped = report.stopped {
            print("[sync] not sent now: \(stopped); \(report.remaining) actions wait on this device")
        } else {
            print("[sync] sent \(report.sent.count) actions; nothing waits")
        }
        try favoritesScreen(client)
    }
}
