import Foundation
import TestSupport
import Testing

@Suite("evtool: PostgreSQL stores")
struct PostgresSessionTests {
    @Test("record, query, export and import on PostgreSQL")
    func sessionOnPostgres() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let postgres = try TestStores.freshPostgresStore(); defer { postgres.drop() }
        let cli = CLI(store: postgres.url, directory: directory.path)
        #expect(try cli.run("init").output.hasPrefix("store postgresql://"))
        var result = try cli.run("favorite", "--user", "ada", "--listing", "L7", "--name", "Hamilton", "--venue", "Pantages",
                                 "--date", "2026-12-05 19:30:00", "--category", "Arts & Theatre", "--request-id", "r-1")
        #expect(result.status == 0 && result.output.hasPrefix("recorded Favorited for ada: version 1, position "), "\(result)")
        result = try cli.run("favorite", "--user", "ada", "--listing", "L7", "--name", "Hamilton", "--venue", "Pantages",
                             "--date", "2026-12-05 19:30:00", "--category", "Arts & Theatre", "--request-id", "r-1")
        #expect(result.output == "recorded Favorited for ada: version 1, position 1 (request 'r-1' was recorded already: its first outcome, nothing recorded again)\n")
        #expect(try cli.run("search", "--user", "ada", "--keyword", "   ", "--here", "1,2").status == 65)
        #expect(try cli.run("search", "--user", "ada", "--keyword", "opera", "--here", "1,2").status == 0)
        #expect(try cli.run("favorites", "--user", "ada").output.contains("L7       Hamilton  Pantages"))
        #expect(try cli.run("history", "--user", "ada", "--json").output.split(separator: "\n").count == 2)
        let exported = try cli.run("export").output
        let copy = try TestStores.freshPostgresStore(); defer { copy.drop() }
        let target = CLI(store: copy.url, directory: directory.path)
        #expect(try target.run("import", "-", input: exported).output.hasPrefix("imported 2 events, skipped 0"))
        #expect(try target.run("import", "-", input: exported).output.hasPrefix("imported 0 events, skipped 2"))
        // Positions are the store's own; everything else is the same.
        func withoutPositions(_ text: String) -> String { text.replacing(/"position":\d+,/, with: "") }
        #expect(withoutPositions(try target.run("export").output) == withoutPositions(exported))
        // The same through CloudEvents.
        let cloud = try cli.run("export", "--format", "cloudevents")
        #expect(cloud.status == 0 && cloud.output.contains(#""specversion":"1.0""#))
        let fromCloud = try TestStores.freshPostgresStore(); defer { fromCloud.drop() }
        let cloudTarget = CLI(store: fromCloud.url, directory: directory.path)
        #expect(try cloudTarget.run("import", "-", input: cloud.output).status == 0)
        #expect(withoutPositions(try cloudTarget.run("export").output) == withoutPositions(exported))
    }

    @Test("the remaining commands on PostgreSQL: view, unfavorite, details, viewed, rebuild, project, log, append, stats")
    func everyOtherCommand() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let postgres = try TestStores.freshPostgresStore(); defer { postgres.drop() }
        let cli = CLI(store: postgres.url, directory: directory.path)
        let details = try cli.file("details.json", Samples.details)
        #expect(try cli.run("view", "--user", "bo", "--listing", "L7", "--details", details).status == 0)
        #expect(try cli.run("favorite", "--user", "bo", "--listing", "L7", "--summary", "-",
                            input: #"{"name":"Hamilton","venue":"Pantages","localDateTime":"2026-12-05 19:30:00","category":"Arts & Theatre"}"#).status == 0)
        #expect(try cli.run("unfavorite", "--user", "bo", "--listing", "L7").output == "recorded Unfavorited for bo: version 3, position 3\n")
        #expect(try cli.run("unfavorite", "--user", "bo", "--listing", "L7").output == "listing 'L7' is not a favorite; nothing recorded\n")
        #expect(try cli.run("favorites", "--user", "bo").output == "No favorites\n")
        #expect(try cli.run("viewed", "--user", "bo").output.contains("L7       Hamilton"))
        #expect(try cli.run("details", "--listing", "L7").output.contains("Views          1\n"))
        var result = try cli.run("rebuild")
        #expect(result.status == 0 && result.output.hasPrefix("rebuilt favorites, recent-searches, recently-viewed, cached-details through position 3"), "\(result)")
        #expect(try cli.run("project").output == "views are up to date at position 3\n")
        result = try cli.run("append", "--stream", "ops", "--type", "Note", "--data", #"{"text":"raw"}"#, "--expected-version", "no-stream")
        #expect(result.output == "appended Note to ops: version 1, position 4\n", "\(result)")
        result = try cli.run("append", "--stream", "ops", "--type", "Note", "--data", "{}", "--expected-version", "no-stream")
        #expect(result.status == 75 && result.errors == "Error: stream 'ops' is at version 1, but the append expected no stream\n")
        result = try cli.run("log", "--json")
        #expect(result.output.split(separator: "\n").count == 4)
        #expect(result.output.contains(#""stream":"ops","version":1"#))
        #expect(try cli.run("log", "--from", "3").output.hasPrefix("4\t"))
        #expect(try cli.run("stats", "--json").output.contains(#""events":4,"streams":2"#))
    }

    @Test("migrate a SQLite deployment to PostgreSQL: verified, views rebuilt and identical")
    func migrateToPostgres() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let sqlite = CLI(store: "sqlite:\(directory.path)/app.sqlite", directory: directory.path)
        #expect(try sqlite.run("demo", "--users", "12", "--actions", "400", "--seed", "3").status == 0)
        let postgres = try TestStores.freshPostgresStore(); defer { postgres.drop() }
        let result = try CLI.bare("migrate", "--from", sqlite.store, "--to", postgres.url)
        #expect(result.status == 0, "\(result)")
        #expect(result.output.contains("both logs hold the same events in the same order (SHA-256 "))
        let target = CLI(store: postgres.url, directory: directory.path)
        for index in 1...12 {
            let user = "user-" + String(index).leftPadded(5)
            for view in ["favorites", "recent", "viewed", "history"] {
                #expect(try target.run(view, "--user", user, "--json").output == (try sqlite.run(view, "--user", user, "--json")).output, "\(view) of \(user)")
            }
        }
        #expect(try target.run("details", "--listing", "L000001", "--json").output == (try sqlite.run("details", "--listing", "L000001", "--json")).output)
    }

    @Test("log --follow prints an event recorded by another process, and stops on Ctrl-C")
    func followTheLog() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let postgres = try TestStores.freshPostgresStore(); defer { postgres.drop() }
        let cli = CLI(store: postgres.url, directory: directory.path)
        #expect(try cli.run("init").status == 0)
        let follower = try Processes.start(Processes.evtool, ["log", "--follow", "--json", "--store", postgres.url])
        Thread.sleep(forTimeInterval: 0.8)
        #expect(try cli.run("search", "--user", "ada", "--keyword", "followed", "--here", "1,2").status == 0)
        Thread.sleep(forTimeInterval: 1.0)
        follower.process.interrupt()
        let result = try follower.finish()
        #expect(result.status == 0, "\(result)")
        #expect(result.output.contains(#""keyword":"followed""#), "\(result)")
    }

    @Test("a server that is not there: one line naming it, exit 69")
    func serverDown() throws {
        let result = try CLI.bare("favorites", "--user", "ada", "--store", "postgresql://app:secret@127.0.0.1:1/evtool")
        #expect(result.status == 69)
        #expect(result.errors == "Error: the store is unavailable: cannot connect to 127.0.0.1:1: Connection refused\n")
        #expect(!result.errors.contains("secret"))
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}

@Suite("evtool: projectors on PostgreSQL")
struct ProjectorFollowTests {
    @Test("two followers: one advances the views, the other takes over when it is killed")
    func leasesHandOver() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let postgres = try TestStores.freshPostgresStore(); defer { postgres.drop() }
        let cli = CLI(store: postgres.url, directory: directory.path)
        #expect(try cli.run("demo", "--users", "5", "--actions", "50").status == 0)
        let first = try Processes.start(Processes.evtool, ["project", "--follow", "--store", postgres.url])
        Thread.sleep(forTimeInterval: 1.5)
        let second = try Processes.start(Processes.evtool, ["project", "--follow", "--store", postgres.url])
        Thread.sleep(forTimeInterval: 1.5)
        kill(first.process.processIdentifier, SIGKILL)
        _ = try first.finish()
        // Recorded after the first projector died: only the second can bring the views there.
        #expect(try cli.run("search", "--user", "late", "--keyword", "after the handover", "--here", "1,2").status == 0)
        var lag = -1
        for _ in 0..<40 where lag != 0 {
            Thread.sleep(forTimeInterval: 0.25)
            let stats = try cli.run("stats", "--json").output
            let lags = stats.matches(of: /"lag":(\d+)/).map { Int($0.1)! }
            lag = lags.count == 4 ? lags.max()! : -1
        }
        second.process.interrupt()
        let result = try second.finish()
        #expect(lag == 0, "the second projector did not take over: \(result)")
        #expect(result.errors.contains("another projector advances every view; waiting to take over"), "\(result)")
        #expect(result.errors.contains("advancing cached-details, favorites, recent-searches, recently-viewed")
                || result.errors.contains("advancing favorites"), "\(result)")
        #expect(result.status == 0)
    }
}
