import Foundation
import StorePostgres
import TestSupport
import Testing

/// `--read-store URL` (and `$EVTOOL_READ_STORE`) on the reading commands: answers through a
/// real hot standby equal to the primary's right after each write, refusals that name what is
/// wrong, and a standby that is gone (the store answers). A primary and a standby of the
/// test's own, removed even when a test fails.
@Suite("evtool: reading commands through a PostgreSQL standby (--read-store)", .serialized)
struct ReadStoreCommandTests {
    static func evtool(_ arguments: [String], environment: [String: String]? = nil) throws -> Processes.Result {
        try Processes.run(Processes.evtool, arguments, environment: environment)
    }

    /// The reading commands, each as it is asked of the primary and of the standby.
    static func reads(head: Int64) -> [[String]] {
        [
            ["favorites", "--user", "ada"], ["favorites", "--user", "ada", "--json"], ["recent", "--user", "ada"],
            ["viewed", "--user", "ada"], ["details", "--listing", "L7", "--json"], ["history", "--user", "ada"],
            ["history", "--user", "ada", "--type", "Favorited", "--json"], ["log", "--json"], ["stats"],
            ["favorites", "--user", "ada", "--as-of", String(max(1, head - 1))], ["recent", "--user", "ada", "--as-of", "1"],
        ]
    }

    @Test("favorites, recent, viewed, details, history, log, stats and --as-of through a standby answer as the primary does, right after each write")
    func readsThroughAStandby() throws {
        let pair = try ReplicaPair.start()
        defer { pair.remove() }
        let store = pair.primary.url, standby = pair.standby.url
        let made = try Self.evtool(["init", "--store", store])
        #expect(made.status == 0, "\(made)")
        try pair.waitForStandbyStore()
        let details = Samples.details.replacingOccurrences(of: "\n", with: "")
        let before = try pair.standbyTransactions()
        for round in 0..<4 {
            let writes: [[String]] = [
                ["favorite", "--user", "ada", "--listing", "L\(round)", "--name", "Show \(round)", "--venue", "Hall", "--date", "2026-12-05 19:30:00", "--category", "Music"],
                ["search", "--user", "ada", "--keyword", "jazz \(round)", "--category", "Music", "--location", "Los Angeles"],
                ["view", "--user", "ada", "--listing", "L7", "--details", "-"],
            ] + (round == 2 ? [["unfavorite", "--user", "ada", "--listing", "L0"]] : [])
            for write in writes {
                let recorded = try Processes.run(Processes.evtool, write + ["--store", store], input: details)
                #expect(recorded.status == 0, "\(write): \(recorded)")
            }
            let head = Int64(try ReplicaPair.psql(pair.primary, "SELECT max(position) FROM evtool.events")) ?? 1
            for read in Self.reads(head: head) {
                // Through the standby first: it has had no time to replay the writes.
                let through = try Self.evtool(read + ["--store", store, "--read-store", standby])
                let direct = try Self.evtool(read + ["--store", store])
                #expect(through.status == 0 && direct.status == 0, "\(read): \(through) \(direct)")
                #expect(through.output == direct.output, "round \(round) \(read):\nstandby: \(through.output)\nprimary: \(direct.output)")
                #expect(through.errors == direct.errors, "\(read): \(through.errors)")
            }
        }
        let favorites = try Self.evtool(["favorites", "--user", "ada", "--store", store], environment: ["EVTOOL_READ_STORE": standby])
        #expect(favorites.status == 0 && favorites.output.contains("L3") && !favorites.output.contains("L0 "), "\(favorites)")
        #expect(favorites.output == (try Self.evtool(["favorites", "--user", "ada", "--store", store])).output)
        // The standby did the reading: 4 rounds of 11 reads and one more, each several queries.
        let after = try pair.standbyTransactions()
        #expect(after - before >= 45, "transactions on the standby: \(before) → \(after)")
    }

    @Test("a read store that is an SQLite file, for an SQLite store, in another schema or another cluster is refused, naming what is wrong (64)")
    func refusals() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = "sqlite:\(directory.path)/store.sqlite"
        #expect(try Self.evtool(["init", "--store", file]).status == 0)
        let shared = try TestStores.postgresURL()
        let schema = TestStores.freshSchema()
        defer { TestStores.dropPostgres(url: shared, schema: schema) }
        let other = ReplicaPair.url(shared, schema: schema)
        #expect(try Self.evtool(["init", "--store", other]).status == 0)

        var result = try Self.evtool(["favorites", "--user", "ada", "--store", file, "--read-store", other])
        #expect(result.status == 64)
        #expect(result.errors.hasPrefix("Error: --read-store needs a PostgreSQL store, and the store sqlite:\(directory.path)/store.sqlite is an SQLite file"), "\(result.errors)")
        result = try Self.evtool(["serve", "--no-auth", "--listen", "127.0.0.1:0", "--store", file, "--read-store", other])
        #expect(result.status == 64 && result.errors.contains("--read-store needs a PostgreSQL store"), "\(result)")
        result = try Self.evtool(["history", "--user", "ada", "--store", other, "--read-store", file])
        #expect(result.status == 64)
        #expect(result.errors.hasPrefix("Error: --read-store sqlite:\(directory.path)/store.sqlite is an SQLite file; a read store is a PostgreSQL hot standby"), "\(result.errors)")
        result = try Self.evtool(["log", "--store", other], environment: ["EVTOOL_READ_STORE": ReplicaPair.url(shared, schema: "elsewhere")])
        #expect(result.status == 64)
        #expect(result.errors.contains("$EVTOOL_READ_STORE") && result.errors.contains("names schema 'elsewhere', and the store is in schema '\(schema)'"), "\(result.errors)")

        // Another cluster with a store in the same schema: not a standby of this one.
        let primary = try PrivatePostgres.start()
        defer { primary.remove() }
        let mine = ReplicaPair.url(primary.url, schema: schema)
        #expect(try Self.evtool(["init", "--store", mine]).status == 0)
        for command in [["favorites", "--user", "ada"], ["log"], ["stats"], ["serve", "--no-auth", "--listen", "127.0.0.1:0"]] {
            result = try Self.evtool(command + ["--store", mine, "--read-store", other])
            #expect(result.status == 64, "\(command): \(result)")
            #expect(result.errors.contains("is not a copy of the store") && result.errors.contains("its PostgreSQL system identifier is "), "\(command): \(result.errors)")
        }
    }

    @Test("a standby that is gone: the command says so on standard error and the store answers, with every write")
    func goneStandby() throws {
        let pair = try ReplicaPair.start()
        defer { pair.remove() }
        let store = pair.primary.url, standby = pair.standby.url
        #expect(try Self.evtool(["init", "--store", store]).status == 0)
        try pair.waitForStandbyStore()
        try pair.standby.crash()
        let recorded = try Self.evtool(["favorite", "--user", "ada", "--listing", "L1", "--name", "One", "--venue", "Hall", "--date", "2026-12-05 19:30:00", "--category", "Music", "--store", store])
        #expect(recorded.status == 0, "\(recorded)")
        let read = try Self.evtool(["favorites", "--user", "ada", "--store", store, "--read-store", standby])
        #expect(read.status == 0, "\(read)")
        #expect(read.output.contains("L1"), "\(read)")
        #expect(read.errors.hasPrefix("evtool: the read store \(standby)?schema=evtool cannot be used: cannot connect to "), "\(read.errors)")
        #expect(read.errors.hasSuffix("; reading from the store \(store)\n"), "\(read.errors)")
        let serve = try Self.evtool(["serve", "--no-auth", "--listen", "127.0.0.1:0", "--store", store, "--read-store", standby])
        #expect(serve.status == 69 && serve.errors.hasPrefix("Error: the read store \(standby)?schema=evtool cannot be used: cannot connect to "), "a server does not start without its read store: \(serve)")
    }
}
