import Foundation
import StorePostgres
import Testing
import TestSupport

/// `evtool serve` as a process on each store, driven by a real HTTP client (Python httpx, in the
/// venv scripts/python-env.sh makes): every status code, the role matrix, ETag/If-Match,
/// idempotency keys, read-your-writes, the event stream, hostile clients, and a SIGTERM with a
/// request in flight (Clients/serve_e2e.py holds the checks).
@Suite(.serialized)
struct ServeEndToEndTests {
    @Test func everyResourceOnSQLite() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try ServeScenario(store: "sqlite:\(directory.path)/serve.sqlite", directory: directory.path).run()
    }

    @Test func everyResourceOnPostgres() throws {
        let url = try TestStores.postgresURL()
        let schema = TestStores.freshSchema()
        defer { TestStores.dropPostgres(url: url, schema: schema) }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try ServeScenario(store: url + (url.contains("?") ? "&" : "?") + "schema=" + schema, directory: directory.path).run()
    }
}

/// Starts a server, runs the client's checks against it, and checks how the server ended.
struct ServeScenario {
    let store: String
    let directory: String

    func run() throws {
        let tokensFile = directory + "/tokens.txt"
        var tokens: [String: String] = [:]
        for role in ["app", "auditor", "admin"] {
            let made = try Processes.run(Processes.evtool, ["token", "create", "--role", role, "--tokens", tokensFile, "--name", "e2e-\(role)"])
            #expect(made.status == 0, "\(made)")
            tokens[role] = made.output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let stored = try String(contentsOfFile: tokensFile, encoding: .utf8)
        for token in tokens.values { #expect(!stored.contains(token), "the tokens file keeps only hashes") }

        let port = try FreePort.find()
        let maximumBody = 65_536
        let server = try Processes.start(Processes.evtool, [
            "serve", "--tokens", tokensFile, "--listen", "127.0.0.1:\(port)", "--store", store,
            "--max-body", String(maximumBody), "--heartbeat", "1", "--threads", "4",
        ])
        try FreePort.waitUntilListening(port, process: server)
        let run = String(UUID().uuidString.prefix(8)).lowercased()
        let client = try Processes.run(try HTTPClient.python(), [HTTPClient.script("serve_e2e.py")], environment: [
            "EVTOOL_BASE": "http://127.0.0.1:\(port)",
            "EVTOOL_TOKENS": "{" + tokens.map { "\"\($0.key)\":\"\($0.value)\"" }.joined(separator: ",") + "}",
            "EVTOOL_PID": String(server.pid), "EVTOOL_MAX_BODY": String(maximumBody), "EVTOOL_RUN": run,
            "EVTOOL_AUDIT_PAGE": directory + "/audit-page.json",
        ])
        if server.isRunning, client.status != 0 { server.send(SIGKILL) }
        let ended = try server.finish()
        #expect(client.status == 0, "\(client)\nserver: \(ended.errors.suffix(3_000))")
        #expect(client.output.contains("passed, 0 failed"), "\(client.output)")
        #expect(ended.status == 0 && !ended.wasSignaled, "SIGTERM ends the server with exit 0: \(ended)")
        #expect(ended.errors.contains("serve: stopped\n"), "\(ended.errors.suffix(2_000))")
        #expect(ended.errors.contains("PUT /v1/users/last-\(run)/favorites/Z1 201 "), "the request in flight was answered and logged")
        for token in tokens.values { #expect(!ended.errors.contains(token), "no token in the log") }
        #expect(!ended.errors.contains("Pantages"), "no body in the log")
        #expect(ended.errors.contains("admin 'e2e-admin' seal: sealed: seal "), "the seal's audit line: \(ended.errors.suffix(3_000))")
        #expect(ended.errors.contains("admin 'e2e-admin' forget user 'forget-\(run)' by 'e2e-admin': erased 1 event"), "the erasure's audit line")
        #expect(ended.errors.contains("admin 'e2e-admin' rebuild nope: refused 422 no view named 'nope'"), "a refused admin operation's audit line")
        #expect(!ended.errors.contains("e2e ticket"), "no reason (a body) in the log")

        // The served audit page is the one `evtool report` makes for the same user and point
        // (apart from the time it was made and the head, which moved on since).
        let saved = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory + "/audit-page.json"))) as? [String: Any]
        let served = try #require(saved?["page"] as? String)
        let user = try #require(saved?["user"] as? String), asOf = try #require(saved?["asOf"] as? NSNumber)
        let made = try Processes.run(Processes.evtool, ["report", "--user", user, "--as-of", asOf.stringValue, "--store", store])
        #expect(made.status == 0, "\(made)")
        #expect(Self.comparable(served) == Self.comparable(made.output), "the served page differs from evtool report's")
        #expect(Self.comparable(served).contains("id=\"timeline\""))

        // The request that was in flight at SIGTERM is in the store, once.
        let favorites = try Processes.run(Processes.evtool, ["history", "--user", "last-\(run)", "--store", store])
        #expect(favorites.status == 0 && favorites.output.components(separatedBy: "Favorited").count == 2, "\(favorites)")
    }
}

extension ServeScenario {
    /// A report page without what differs between two makings of it: the time it was made
    /// and the head position then, and the link to the store overview that only a served
    /// page has (a saved page links within itself alone).
    static func comparable(_ page: String) -> String {
        var text = page.replacingOccurrences(of: #" <a id="overview-link" href="../../audit">The store overview</a>."#, with: "")
        text = text.replacingOccurrences(of: #"Made by evtool at [^ ]+ from"#, with: "Made by evtool at TIME from", options: .regularExpression)
        text = text.replacingOccurrences(of: #"head was \d+"#, with: "head was HEAD", options: .regularExpression)
        return text.replacingOccurrences(of: #"id="head">\d+<"#, with: #"id="head">HEAD<"#, options: .regularExpression)
    }
}

/// The Python that has httpx (made by scripts/python-env.sh, or `$EVTOOL_TEST_PYTHON`).
enum HTTPClient {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func python() throws -> String {
        if let python = ProcessInfo.processInfo.environment["EVTOOL_TEST_PYTHON"], !python.isEmpty { return python }
        let made = try Processes.run("/bin/bash", [root.appendingPathComponent("scripts/python-env.sh").path])
        guard made.status == 0 else { throw ScenarioError("scripts/python-env.sh failed: \(made)") }
        return made.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func script(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/" + name).path
    }
}

struct ScenarioError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Ports for test servers (TestSupport's ``LocalPort``).
enum FreePort {
    static func find() throws -> UInt16 { try LocalPort.free() }
    static func waitUntilListening(_ port: UInt16, process: Processes.Running) throws {
        try LocalPort.waitUntilListening(port, process: process, seconds: 20)
    }
}
