import Foundation
import Testing
import TestSupport

/// `kill -9` of the server under load while clients retry with their idempotency keys
/// (Clients/kill_under_load.py): every acknowledged request is in the log exactly once, and
/// the views, caught up after the kills, equal a rebuild from the log.
@Suite(.serialized)
struct ServeKillTests {
    @Test func killedUnderLoadEveryAcknowledgedRequestOnce() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Self.killUnderLoad(store: "sqlite:\(directory.path)/kill.sqlite")
    }

    /// The same on PostgreSQL, where the server also group-commits and decides on its cached
    /// states: a restarted server starts with an empty cache, and retries still record once.
    @Test func killedUnderLoadEveryAcknowledgedRequestOnceOnPostgres() throws {
        let url = try TestStores.postgresURL()
        let schema = TestStores.freshSchema()
        defer { TestStores.dropPostgres(url: url, schema: schema) }
        try Self.killUnderLoad(store: url + (url.contains("?") ? "&" : "?") + "schema=" + schema)
    }

    static func killUnderLoad(store: String) throws {
        let client = try Processes.run(try HTTPClient.python(), [HTTPClient.script("kill_under_load.py")], environment: [
            "EVTOOL_BIN": Processes.evtool, "EVTOOL_STORE": store, "EVTOOL_PORT": String(try FreePort.find()),
        ])
        #expect(client.status == 0 && client.output.contains("passed, 0 failed"), "\(client)")

        // The views the server kept equal a rebuild from the log.
        var before: [String] = []
        for index in 0..<8 {
            let view = try Processes.run(Processes.evtool, ["favorites", "--user", "w\(index)", "--json", "--store", store])
            #expect(view.status == 0, "\(view)")
            before.append(view.output)
        }
        let rebuilt = try Processes.run(Processes.evtool, ["rebuild", "--store", store])
        #expect(rebuilt.status == 0, "\(rebuilt)")
        for index in 0..<8 {
            let view = try Processes.run(Processes.evtool, ["favorites", "--user", "w\(index)", "--json", "--store", store])
            #expect(view.output == before[index], "user w\(index): the view after the kills equals a rebuild")
        }
        let verified = try Processes.run(Processes.evtool, ["verify", "--store", store])
        #expect(verified.status == 0, "the hash chain is intact: \(verified)")
    }
}
