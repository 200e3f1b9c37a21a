import Foundation
import TestSupport
import Testing

/// `evtool stats` counts users apart from the streams evtool keeps for itself.
@Suite("evtool stats: users and system streams")
struct StatsUsersTests {
    @Test("after an erasure, the $erasures stream is a stream but not a user, in the table and in --json")
    func usersApartFromSystemStreams() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let cli = CLI(store: "sqlite:\(directory.path)/s.sqlite", directory: directory.path)
        for user in ["ada", "bob", "cy"] {
            let recorded = try cli.run("search", "--user", user, "--keyword", "jazz", "--here", "34.02,-118.28")
            #expect(recorded.status == 0, "\(recorded)")
        }
        var result = try cli.run("stats")
        #expect(result.output.contains("users      3\nstreams    3 (one per user)\n"), "\(result)")
        result = try cli.run("forget", "--user", "bob", "--reason", "request 17", "--by", "dpo")
        #expect(result.status == 0, "\(result)")
        result = try cli.run("stats")
        #expect(result.output.contains("users      3\nstreams    4 (one per user, and 1 of evtool's own)\n"), "\(result)")
        result = try cli.run("stats", "--json")
        #expect(result.output.contains(#""streams":4,"users":3,"systemStreams":1,"#), "\(result)")
    }
}
