import Commands
import EventLog
import EvtoolKit
import Foundation
import Projections
import Simulation
import StoreLocations

/// `evtool demo`: realistic activity through the real command path, then a tour of the views.
enum DemoCommand {
    static let users = TypedOption.integer("users", help: "How many users act (default 50)", in: 1...1_000_000, default: 50)
    static let actions = TypedOption.integer("actions", help: "How many actions to record (default 2,000)", in: 1...100_000_000, default: 2_000)
    static let listings = TypedOption.integer("listings", help: "How many listings exist; popularity follows a Zipf law (default 500)", in: 1...10_000_000, default: 500)
    static let seed = TypedOption.integer("seed", value: "S", help: "The same seed records the same activity (default 1)", in: 0...Int.max, default: 1)
    static let days = TypedOption.integer("days", help: "Spread the actions' occurredAt over the last N days (default 7); the log records them now", in: 1...3_650, default: 7)
    static let spec = CommandSpec(
        name: "demo", summary: "Record realistic activity through the real command path, then tour the views",
        usage: "[--users N] [--actions N] [--listings N] [--days N] [--seed S] [--quiet] [--store STORE]",
        options: [
            users.declaration, actions.declaration, listings.declaration, days.declaration, seed.declaration, SharedOptions.quiet, CommandSpec.storeOption,
        ],
        discussion: """
            Each action is one command through the same path 'evtool search', 'view', 'favorite'
            and 'unfavorite' take. Their occurredAt (the client's time, as an app that syncs late
            sends it) spreads over the last --days days, rising with the actions' order; the store
            records every action when it takes it (the recorded time is the store's clock and is
            never set back). The audit pages chart activity by occurredAt, so a demo store's charts
            have a point a day. The same --seed records the same actions with the same offsets
            from the end of the span.
            """,
        examples: ["evtool demo", "evtool demo --days 30 --seed 7", "evtool demo --users 1000 --actions 100000 --store sqlite:/tmp/big.sqlite"],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 0)
            let users = try arguments.required(Self.users)
            let actions = try arguments.required(Self.actions)
            let listings = try arguments.required(Self.listings)
            let seed = UInt64(try arguments.required(Self.seed))
            let days = try arguments.required(Self.days)
            let location = try StoreLocation.resolve(arguments)
            let application = Application(store: try location.openForViews(create: true))
            var generator = ActivityGenerator(users: users, listings: listings, seed: seed)
            var recorded = 0, unchanged = 0
            var span = ActivitySpan(days: days, actions: actions, seed: seed, end: Date())
            var progress = Progress(label: "demo", total: Int64(actions), unit: "actions", console: console)
            let started = Date()
            for index in 0..<actions {
                let action = generator.next()
                let context = CommandContext(userID: action.userID, source: "evtool-demo", occurredAt: span.next(),
                                             requestID: "demo-\(seed)-\(index)")
                if try application.perform(action.command, context: context).isRecorded { recorded += 1 } else { unchanged += 1 }
                if index % 500 == 0 { progress.update(Int64(index), console: &console) }
            }
            progress.update(Int64(actions), console: &console, force: true)
            progress.finish(console: &console)
            let seconds = Date().timeIntervalSince(started)
            try console.output("recorded \(recorded.counted("event")) for \(users.counted("user")), occurred over the last \(days.counted("day")), in \(String(format: "%.1f", seconds)) s into \(location) (\(unchanged.counted("action")) changed nothing: repeated favorites, removals of non-favorites, or retried requests)")
            let head = try application.catchUpViews()
            try console.output("views up to date at position \(head)")
            // The tour: the first user who has favorites right now.
            var user = ActivityGenerator.userID(0)
            for index in 0..<min(users, 100) where try application.document(Views.favorites, key: ActivityGenerator.userID(index)) != nil {
                user = ActivityGenerator.userID(index)
                break
            }
            try console.output("")
            try console.output("== favorites of \(user) (evtool favorites --user \(user))")
            for item in try application.document(Views.favorites, key: user)?.items.prefix(5) ?? [] {
                try console.output("  \(item.listingID)  \(item.summary.name) at \(item.summary.venue), \(item.summary.localDateTime)")
            }
            try console.output("== recent searches of \(user) (evtool recent --user \(user))")
            for item in try application.document(Views.recentSearches, key: user)?.items.prefix(5) ?? [] {
                try console.output("  \"\(item.keyword)\" in \(item.category.rawValue), \(History.formatDistance(item.distance)) \(item.units.rawValue)")
            }
            try console.output("== recently viewed by \(user) (evtool viewed --user \(user))")
            for item in try application.document(Views.recentlyViewed, key: user)?.items.prefix(5) ?? [] {
                try console.output("  \(item.listingID)  \(item.name)")
            }
            let popular = ActivityGenerator.listingID(0)
            if let cached = try application.document(Views.cachedDetails, key: popular) {
                try console.output("== cached details of the most popular listing (evtool details --listing \(popular))")
                try console.output("  \((try? cached.decodedDetails())?.info.name ?? popular): viewed \(cached.views) times, last fetched by \(cached.fetchedBy)")
            }
            try console.output("== history of \(user), the last 3 of it (evtool history --user \(user)): position, time, action")
            var entries: [History.Entry] = []
            try application.forEachHistoryEntry(of: user) { entries.append($0) }
            for entry in entries.suffix(3) { try console.output("  \(entry.position)  \(Timestamp.format(entry.recordedAt))  \(entry.summary)") }
        })
}
