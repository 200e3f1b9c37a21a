import Foundation
import TestSupport
import Testing

@Suite("evtool: a whole session on SQLite files")
struct SessionTests {
    @Test("record, query, audit, export, import, migrate: every view identical at the end")
    func fullSession() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let cli = CLI(store: "sqlite:\(directory.path)/main.sqlite", directory: directory.path)

        // Record.
        var result = try cli.run("search", "--user", "ada", "--keyword", "Hamilton", "--category", "Arts & Theatre",
                                 "--location", "Los Angeles", "--request-id", "r-1", "--source", "ios-app/4.2")
        #expect(result.status == 0 && result.output == "recorded Searched for ada: version 1, position 1\n", "\(result)")
        result = try cli.run("search", "--user", "ada", "--keyword", "Hamilton", "--category", "Arts & Theatre",
                             "--location", "Los Angeles", "--request-id", "r-1", "--source", "ios-app/4.2")
        #expect(result.status == 0 && result.output == "recorded Searched for ada: version 1, position 1 (request 'r-1' was recorded already: its first outcome, nothing recorded again)\n", "\(result)")
        let detailsFile = try cli.file("details.json", Samples.details)
        result = try cli.run("view", "--user", "ada", "--listing", "L7", "--details", detailsFile)
        #expect(result.status == 0, "\(result)")
        result = try cli.run("favorite", "--user", "ada", "--listing", "L7", "--name", "Hamilton", "--venue", "Pantages Theatre",
                             "--date", "2026-12-05 19:30:00", "--category", "Arts & Theatre", "--json")
        #expect(result.status == 0 && result.output.hasPrefix(#"{"outcome":"recorded","user":"ada","type":"Favorited","version":3,"position":3,"#), "\(result)")
        result = try cli.run("favorite", "--user", "ada", "--listing", "L8", "--summary", "-",
                             input: #"{"name":"Lakers vs Celtics","venue":"Crypto.com Arena","localDateTime":"2026-12-09 19:00:00","category":"Sports"}"#)
        #expect(result.status == 0, "\(result)")
        result = try cli.run("favorite", "--user", "ada", "--listing", "L7", "--name", "Hamilton", "--venue", "Pantages Theatre",
                             "--date", "2026-12-05 19:30:00", "--category", "Arts & Theatre")
        #expect(result.status == 0 && result.output == "listing 'L7' is already a favorite; nothing recorded\n")
        result = try cli.run("unfavorite", "--user", "ada", "--listing", "L7")
        #expect(result.status == 0 && result.output == "recorded Unfavorited for ada: version 5, position 5\n")
        result = try cli.run("unfavorite", "--user", "ada", "--listing", "L7")
        #expect(result.status == 0 && result.output == "listing 'L7' is not a favorite; nothing recorded\n")
        result = try cli.run("search", "--user", "bob", "--keyword", "jazz", "--here", "34.0224,-118.2851", "--distance", "25", "--units", "km")
        #expect(result.status == 0)

        // Query.
        result = try cli.run("favorites", "--user", "ada")
        #expect(result.status == 0)
        let lines = result.output.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("LISTING  NAME               VENUE             DATE                 CATEGORY  ADDED") == true)
        #expect(lines.last?.hasPrefix("L8       Lakers vs Celtics  Crypto.com Arena  2026-12-09 19:00:00  Sports    ") == true)
        #expect(try cli.run("favorites", "--user", "bob").output == "No favorites\n")
        #expect(try cli.run("favorites", "--user", "ada", "--as-of", "3", "--json").output.contains(#""listingID":"L7""#))
        #expect(try cli.run("favorites", "--user", "ada", "--as-of", "2").output == "No favorites\n")
        result = try cli.run("recent", "--user", "bob", "--json")
        #expect(result.output.contains(#""keyword":"jazz""#) && result.output.contains(#""units":"km""#))
        result = try cli.run("viewed", "--user", "ada")
        #expect(result.output.contains("L7       Hamilton"))
        result = try cli.run("details", "--listing", "L7")
        #expect(result.output.contains("Name           Hamilton\n") && result.output.contains("Views          1\n"))
        #expect(try cli.run("details", "--listing", "nope").output == "No cached details for listing nope\n")
        result = try cli.run("history", "--user", "ada", "--type", "Favorited", "--json")
        #expect(result.output.split(separator: "\n").count == 2)
        result = try cli.run("history", "--user", "ada")
        #expect(result.output.contains("searched \"Hamilton\" in Arts & Theatre within 10 miles near \"Los Angeles\"  ios-app/4.2  r-1"))
        #expect(try cli.run("history", "--user", "ada", "--until", "2000-01-01").output == "No history for user ada\n")

        // Stats.
        result = try cli.run("stats", "--json")
        #expect(result.output.contains(#""events":6,"streams":2"#), "\(result)")

        // Export, import into a fresh store (twice: the second adds nothing), and CloudEvents.
        let exported = try cli.run("export")
        #expect(exported.status == 0 && exported.errors == "exported 6 events\n")
        let exportFile = try cli.file("export.jsonl", exported.output)
        let copy = CLI(store: "sqlite:\(directory.path)/copy.sqlite", directory: directory.path)
        result = try copy.run("import", exportFile)
        #expect(result.status == 0 && result.output.hasPrefix("imported 6 events, skipped 0 already present"), "\(result)")
        result = try copy.run("import", exportFile)
        #expect(result.status == 0 && result.output.hasPrefix("imported 0 events, skipped 6 already present"), "\(result)")
        #expect(try copy.run("export").output == exported.output)

        let cloud = try cli.run("export", "--format", "cloudevents")
        let firstCloudEvent = try JSONSerialization.jsonObject(with: Data(cloud.output.split(separator: "\n")[0].utf8)) as? [String: Any]
        #expect(firstCloudEvent?["specversion"] as? String == "1.0")
        #expect(firstCloudEvent?["subject"] as? String == "ada")
        #expect(firstCloudEvent?["evtoolposition"] as? Int == 1)
        #expect(firstCloudEvent?["datacontenttype"] as? String == "application/json")
        let fromCloud = CLI(store: "sqlite:\(directory.path)/cloud.sqlite", directory: directory.path)
        #expect(try fromCloud.run("import", "-", input: cloud.output).status == 0)
        #expect(try fromCloud.run("export").output == exported.output)

        // Migrate to another store; the views there equal the original's.
        let target = "sqlite:\(directory.path)/migrated.sqlite"
        result = try CLI.bare("migrate", "--from", cli.store, "--to", target)
        #expect(result.status == 0 && result.output.hasPrefix("migrated 6 events from"), "\(result)")
        let migrated = CLI(store: target, directory: directory.path)
        for user in ["ada", "bob"] {
            for view in ["favorites", "recent", "viewed", "history"] {
                #expect(try migrated.run(view, "--user", user, "--json").output == (try cli.run(view, "--user", user, "--json")).output, "\(view) of \(user)")
            }
        }
        #expect(try migrated.run("details", "--listing", "L7", "--json").output == (try cli.run("details", "--listing", "L7", "--json")).output)
        // Migrating again finds everything there.
        result = try CLI.bare("migrate", "--from", cli.store, "--to", target)
        #expect(result.status == 0 && result.output.contains("(copied 0, already there 6)"), "\(result)")
    }

    @Test("rebuild and project report what they did; stats shows the checkpoints")
    func rebuildAndProject() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let cli = CLI(store: "sqlite:\(directory.path)/demo.sqlite", directory: directory.path)
        var result = try cli.run("demo", "--users", "10", "--actions", "300", "--seed", "7")
        #expect(result.status == 0 && result.output.contains("== favorites of "), "\(result)")
        result = try cli.run("rebuild", "favorites", "recently-viewed")
        #expect(result.status == 0 && result.output.hasPrefix("rebuilt favorites, recently-viewed through position "), "\(result)")
        #expect(result.errors.contains("rebuild: 100%"))
        result = try cli.run("project")
        #expect(result.status == 0 && result.output.hasPrefix("views are up to date at position "))
        result = try cli.run("stats")
        #expect(result.output.contains("favorites        2           2        "), "\(result)")
        result = try cli.run("rebuild", "favorites", "favorites")
        #expect(result.status == 0 && result.output.hasPrefix("rebuilt favorites through position "), "a view named twice is rebuilt once: \(result)")
        result = try cli.run("stats")
        #expect(result.output.contains("favorites        3           2        "), "one new generation: \(result)")
        result = try cli.run("rebuild", "nonsense")
        #expect(result.status == 64 && result.errors.hasPrefix("Error: no view named 'nonsense'; views: favorites, recent-searches, recently-viewed, cached-details\n"))
    }
}
