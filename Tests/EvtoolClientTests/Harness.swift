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

    /// Kills the server with SIGKILL and waits for it; throws when it ended some other way
    /// (it had already exited, so what the test killed was not a running server).
    func kill() throws {
        guard let process else { return }
        self.process = nil
        process.send(SIGKILL)
        let ended = try process.finish()
        guard ended.wasSignaled else { throw LocalPort.Failure("the server had ended before the kill: \(ended)") }
    }

    /// Stops the server at the end of a test (SIGKILL: the tests check the store, not the
    /// shutdown); how it ended is not the test's question there.
    func stop() {
        guard let process else { return }
        self.process = nil
        process.send(SIGKILL)
        _ = try? process.finish()
    }

    /// A client of `user` on a new file in the test's folder (or `file`).
    func client(_ user: String = "ada", file: String? = nil, token: String? = nil, attempts: Int = 3) throws -> EvtoolClient {
        try EvtoolClient(.init(server: url, token: token ?? appToken, user: user, databasePath: file ?? "\(directory.path)/client-\(UUID().uuidString).sqlite",
                               retry: .init(attempts: attempts, initialDelay: 0.05, maximumDelay: 0.3), requestTimeout: 5))
    }

    /// The user's events in the store, in order, as `evtool history --json` gives them: (type, listing or keyword, request id).
    func history(_ user: String = "ada") throws -> [(type: String, subject: String, requestID: String)] {
        let result = try Processes.run(Processes.evtool, ["history", "--user", user, "--json", "--store", store])
        // A user with no events is refused (exit 65): none recorded. Any other failure is the test's.
        if result.status == 65, result.errors.contains("has no events") { return [] }
        guard result.status == 0 else { throw LocalPort.Failure("history failed: \(result)") }
        return try result.output.split(separator: "\n").map { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw LocalPort.Failure("history printed a line that is not a JSON object: \(line)")
            }
            let data = object["data"] as? [String: Any] ?? [:]
            let metadata = object["metadata"] as? [String: Any] ?? [:]
            return (object["type"] as? String ?? "", (data["listingID"] ?? data["keyword"]) as? String ?? "", metadata["requestID"] as? String ?? "")
        }
    }

    /// The store's head position, read with the command line (works with the server down too).
    func head() throws -> Int {
        let result = try Processes.run(Processes.evtool, ["stats", "--json", "--store", store])
        guard result.status == 0, let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any],
              let events = object["events"] as? Int else { throw LocalPort.Failure("stats gave no event count: \(result)") }
        return events
    }

    /// The head position as the running server's `/readyz` gives it (-1 when it does not answer): quicker than ``head()``.
    func servedHead() throws -> Int {
        let result = try Processes.run("/usr/bin/curl", ["-s", "--max-time", "2", url.absoluteString + "/readyz"])
        guard result.status == 0 else { return -1 }   // not answering (yet): the callers wait
        guard let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any],
              let head = object["head"] as? Int else { throw LocalPort.Failure("/readyz answered without a head: \(result.output)") }
        return head
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
