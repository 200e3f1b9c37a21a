import Commands
import EvtoolKit
import Foundation
import Projections
import StoreLocations

/// What an app's back end does with evtool, through the application library alone: open a
/// store from a URL, record a user's search, favorite and details view, read the favorites and
/// the history, and follow the log for a moment.
///
///     swift run AppBackend sqlite:/tmp/app.sqlite
///     swift run AppBackend 'postgresql://app@db/evtool?schema=app'
///
/// Each request has an id, so running it again on the same store records nothing twice.
@main
enum AppBackend {
    static func main() {
        do {
            try run(store: CommandLine.arguments.dropFirst().first)
        } catch {
            FileHandle.standardError.write(Data("Error: \(Redaction.maskingPasswords(in: "\(error)"))\n".utf8))
            exit(1)
        }
    }

    static func run(store text: String?) throws {
        // The location as the command line takes it: sqlite:PATH, a path, postgres://…, or $EVTOOL_STORE.
        let location = try StoreLocation.resolve(text)
        let app = Application(store: try location.openForViews(create: true))
        print("store \(location)")

        let user = "ada"
        func context(_ requestID: String) -> CommandContext {
            CommandContext(userID: user, source: "app-backend", occurredAt: Date(), requestID: requestID)
        }
        let commands: [(String, UserCommand)] = [
            ("search-1", .search(Searched(keyword: "hamilton", category: .artsAndTheatre, location: .custom(text: "Los Angeles")))),
            ("favorite-1", .favorite(listingID: "L7", summary: ListingSummary(
                name: "Hamilton", venue: "Pantages Theatre", localDateTime: "2026-12-05 19:30:00", category: "Arts & Theatre"))),
            ("view-1", .viewDetails(listingID: "L7", details: ListingDetails(
                listingID: "L7", info: ListingInfo(name: "Hamilton", venue: "Pantages Theatre", localDateTime: "2026-12-05 19:30:00")))),
        ]
        for (requestID, command) in commands {
            let result = try app.record(command, context: context(requestID))
            let outcome = result.isReplay ? "already recorded" : result.isRecorded ? "recorded" : "unchanged"
            print("\(outcome) \(result.type) for \(result.user), version \(result.streamVersion)")
        }

        // Reads see the writes before them (read-your-writes): no waiting for a projector.
        let favorites = try app.view(FavoritesProjection(), user: user)
        for item in favorites.document?.items ?? [] {
            print("favorite \(item.listingID): \(item.summary.name) at \(item.summary.venue)")
        }
        for entry in try app.history(user: user).entries {
            print("history \(entry.version) \(entry.type): \(entry.summary)")
        }

        // Follow the log for half a second (a real back end would run this until it stops).
        let until = Date().addingTimeInterval(0.5)
        let followed = try Following.log(
            app.store, after: 0, follow: true,
            shouldStop: { Date() >= until },
            events: { batch in
                for event in batch { print("log \(event.position) \(event.streamID)@\(event.version) \(event.type)") }
            },
            reconnecting: { change in
                if case .lost(let error) = change { print("lost the store: \(error)") } else { print("the store is back") }
            })
        print("followed \(followed) events")
    }
}
