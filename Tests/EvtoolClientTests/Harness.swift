import EvtoolClient
import Foundation
import Testing
import TestSupport

/// The stores the client's tests run `evtool serve` on.
enum StoreKind: String, CaseIterable, Sendable { case sqlite, postgres }

/// `evtool serve` with a tokens file (an app and an auditor token) on a fresh store, on a port
/// that stays the same across kills and restarts; and the clients of the tests.
final class Server {
    let directory: TemporaryDirectory
    let store: String
    let port: UInt16
    let tokens: String
    let appToken: String
    private var process: Processes.Running?
    private let dropSchema: () -> Void

    init(_ kind: StoreKind) throws {
        directory = try TemporaryDirectory()
        switch kind {
        case .sqlite:
            store = "sqlite:\(directory.path)/server.sqlite"
            dropSchema = {}
        case .postgres:
            let url = try TestStores.postgresURL()
            let schema = TestStores.freshSchema()
            store = url + (url.contains("?") ? "&" : "?") + "schema=" + schema
            dropSchema = { TestStores.dropPostgres(url: url, schema: schema) }
        }
        let initialized = try Processes.run(Processes.evtool, ["init", "--store", store])
        guard initialized.status == 0 else { throw LocalPort.Failure("evtool init failed: \(initialized)") }
        tokens = directory.path + "/tokens.txt"
        let made = try Processes.run(Processes.evtool, ["token", "create", "--role", "app", "--tokens", tokens, "--name", "phone"])
        appToken = made.output.trimmingCharacters(in: .whitespacesAndNewlines)
        port = try LocalPort.free()
    }

    deinit {
        stop()
        dropSchema()
        directory.remove()
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Starts the server (the heartbeat every second, so a stream notices quiet quickly).
    func start() throws {
        let server = try Processes.start(Processes.evtool, ["serve", "--tokens", tokens, "--heartbeat", "1", "--listen", "127.0.0.1:\(port)", "--store", store])
        try LocalPort.waitUntilListening(port, process: server, seconds: 30)
        process = server
    }

    /// Kills the server with SIGKILL.
    func kill() {
        guard let process else { return }
        process.send(SIGKILL)
        _ = try? process.finish()
        self.process = nil
    }

    /// Stops the server (SIGKILL: the tests check the store, not the shutdown).
    func stop() { kill() }

    /// A client of `user` on a new file in the test's folder (or `file`).
    func client(_ user: String = "ada", file: String? = nil, token: String? = nil, attempts: Int = 3) throws -> EvtoolClient {
        try EvtoolClient(.init(server: url, token: token ?? appToken, user: user, databasePath: file ?? "\(directory.path)/client-\(UUID().uuidString).sqlite",
                               retry: .init(attempts: attempts, initialDelay: 0.05, maximumDelay: 0.3), requestTimeout: 5))
    }

    /// The user's events in the store, in order, as `evtool history --json` gives them: (type, listing or keyword, request id).
    func history(_ user: String = "ada") throws -> [(type: String, subject: String, requestID: String)] {
        let result = try Processes.run(Processes.evtool, ["history", "--user", user, "--json", "--store", store])
        guard result.status == 0 || result.output.isEmpty else { throw LocalPort.Failure("history failed: \(result)") }
        return result.output.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            let data = object["data"] as? [String: Any] ?? [:]
            let metadata = object["metadata"] as? [String: Any] ?? [:]
            return (object["type"] as? String ?? "", (data["listingID"] ?? data["keyword"]) as? String ?? "", metadata["requestID"] as? String ?? "")
        }
    }

    /// The store's head position, read with the command line (works with the server down too).
    func head() -> Int {
        guard let result = try? Processes.run(Processes.evtool, ["stats", "--json", "--store", store]),
              let object = try? JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any] else { return -1 }
        return (object["events"] as? Int) ?? -1
    }

    /// The head position as the running server's `/readyz` gives it (-1 when it does not answer): quicker than ``head()``.
    func servedHead() -> Int {
        guard let result = try? Processes.run("/usr/bin/curl", ["-s", "--max-time", "2", url.absoluteString + "/readyz"]),
              let object = try? JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any] else { return -1 }
        return (object["head"] as? Int) ?? -1
    }

    /// Records a favorite with the command line (the server may be down).
    func favoriteWithCLI(_ user: String, _ listing: String) throws {
        let result = try Processes.run(Processes.evtool, ["favorite", "--user", user, "--listing", listing, "--name", "N", "--venue", "V",
                                                          "--date", "2026-12-05 19:30:00", "--category", "Music", "--store", store])
        guard result.status == 0 else { throw LocalPort.Failure("evtool favorite failed: \(result)") }
    }
}

/// Waits up to `seconds` for `condition`.
func eventually(_ seconds: Double = 15, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: 0.05)
    }
    return try condition()
}

/// A summary for favorites in tests.
func summary(_ name: String) -> ListingSummary {
    ListingSummary(name: name, venue: "Pantages Theatre", localDateTime: "2026-12-05 19:30:00", category: "Arts & Theatre")
}
