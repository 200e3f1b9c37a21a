import Foundation
@testable import evtool_bench
import TestSupport
import Testing

/// The postgres suite's connections that do not wait for the flush, on the test server.
@Suite("evtool-bench: postgres without the flush wait")
struct PostgresBenchmarkTests {
    /// What the server says of `setting` on a connection made from `conninfo`.
    static func show(_ setting: String, on conninfo: String) throws -> String {
        let result = try Processes.run(Processes.psql, ["-X", "-At", "-d", conninfo, "-c", "SHOW \(setting)"])
        #expect(result.status == 0, "\(result)")
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("every connection made from it has synchronous_commit off; the URL's own settings and options are kept")
    func synchronousCommitOff() throws {
        let url = try TestStores.postgresURL()
        #expect(try Self.show("synchronous_commit", on: url) == "on", "the test server commits durably")
        let unflushed = try PostgresBenchmark(url: url).withoutFlushWait()
        #expect(try Self.show("synchronous_commit", on: unflushed.url) == "off")
        #expect(try Self.show("application_name", on: unflushed.url) == "psql", "nothing else set")

        let withOptions = url + (url.contains("?") ? "&" : "?") + "options=-c%20work_mem%3D4242kB&application_name=it%27s"
        let kept = try PostgresBenchmark(url: withOptions).withoutFlushWait()
        #expect(try Self.show("work_mem", on: kept.url) == "4242kB")
        #expect(try Self.show("synchronous_commit", on: kept.url) == "off")
        #expect(try Self.show("application_name", on: kept.url) == "it's", "a quote in a value survives")
    }

    @Test("an unreadable URL is a usage error naming libpq's complaint")
    func unreadable() throws {
        #expect(throws: CLIError.self) { try PostgresBenchmark(url: "postgresql://host/db?nonsense=1").withoutFlushWait() }
    }
}
