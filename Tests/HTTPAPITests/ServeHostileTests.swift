import Foundation
import Testing
import TestSupport

/// Clients that trickle, idle and flood (Clients/hostile.py): the server keeps serving others,
/// closes idle connections after `--timeout`, and serves again after a flood beyond
/// `--max-connections` (2,000 idle connections against 1,000), on both stores; the store is unchanged.
@Suite(.serialized)
struct ServeHostileTests {
    @Test func slowIdleAndFloodingClientsOnSQLite() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try run(store: "sqlite:\(directory.path)/hostile.sqlite")
    }

    @Test func slowIdleAndFloodingClientsOnPostgres() throws {
        let url = try TestStores.postgresURL()
        let schema = TestStores.freshSchema()
        defer { TestStores.dropPostgres(url: url, schema: schema) }
        let store = url + (url.contains("?") ? "&" : "?") + "schema=" + schema
        #expect(try Processes.run(Processes.evtool, ["init", "--store", store]).status == 0)
        try run(store: store)
    }

    /// Thousands of idle connections: twice the server's `--max-connections` of 1,000.
    func run(store: String) throws {
        let port = try FreePort.find()
        let server = try Processes.start(Processes.evtool, ["serve", "--no-auth", "--listen", "127.0.0.1:\(port)", "--store", store,
                                                            "--timeout", "2", "--max-connections", "1000"])
        try FreePort.waitUntilListening(port, process: server)
        let client = try Processes.run(try HTTPClient.python(), [HTTPClient.script("hostile.py")],
                                       environment: ["EVTOOL_BASE": "http://127.0.0.1:\(port)", "EVTOOL_FLOOD": "2000", "EVTOOL_MAX_CONNECTIONS": "1000"])
        let stillUp = server.isRunning
        server.send(SIGTERM)
        let ended = try server.finish()
        #expect(client.status == 0 && client.output.contains("passed, 0 failed"), "\(client)")
        #expect(stillUp && ended.status == 0, "the server stayed up and stopped cleanly: \(ended.errors.suffix(2_000))")
        let log = try Processes.run(Processes.evtool, ["stats", "--json", "--store", store])
        #expect(log.status == 0 && log.output.contains(#""events":0"#), "the store is unchanged: \(log)")
    }
}
