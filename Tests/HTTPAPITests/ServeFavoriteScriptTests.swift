import Foundation
import Testing
import TestSupport

/// scripts/serve-favorite.lua, the write load of `evtool-bench serve` and of the profiles in
/// docs/reference/http.md, run by wrk against a real `evtool serve`: it must PUT new favorites in every
/// run, also in a run after another on the same store (a warm-up, a second profile).
@Suite(.serialized)
struct ServeFavoriteScriptTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("two wrk runs of serve-favorite.lua on one server: every PUT is a new favorite (201), none answered 200 unchanged")
    func everyRunRecordsNewFavorites() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let port = try FreePort.find()
        let log = directory.path + "/serve.log"
        // The request log goes to a file: a pipe nobody reads would stall the server.
        let server = try Processes.start("/bin/sh", ["-c", #"exec "$0" "$@" 2>"$EVTOOL_LOG""#, Processes.evtool,
                                                     "serve", "--no-auth", "--listen", "127.0.0.1:\(port)", "--threads", "2",
                                                     "--store", "sqlite:\(directory.path)/serve.sqlite"],
                                         environment: ["EVTOOL_LOG": log])
        try FreePort.waitUntilListening(port, process: server)
        var created = 0
        for run in 1...2 {
            let result = try Processes.run("/usr/bin/wrk", ["-t2", "-c8", "-d1s", "-s", Self.root.appendingPathComponent("scripts/serve-favorite.lua").path,
                                                            "http://127.0.0.1:\(port)"], environment: ["EVTOOL_USERS": "20"])
            #expect(result.status == 0, "run \(run): \(result)")
            #expect(result.output.contains("\nanswers other than 201 Created: 0\n"), "run \(run): \(result.output)")
            created += result.output.split(separator: "\n").first { $0.contains(" requests in ") }
                .flatMap { Int($0.split(separator: " ").first ?? "") } ?? 0
        }
        // wrk exits with requests still in the server's socket buffers; the server answers them
        // after wrk has gone. Wait until the log stops growing, so that a request read only after
        // SIGTERM (answered 503 "shutting down", as documented) is told apart from the runs' own.
        func putLines() throws -> [Substring] {
            try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("PUT /v1/users/u") }
        }
        var settled = try putLines().count
        for _ in 0..<50 {
            Thread.sleep(forTimeInterval: 0.2)
            let now = try putLines().count
            if now == settled { break }
            settled = now
        }
        server.send(SIGTERM)
        let ended = try server.finish()
        #expect(ended.status == 0, "\(ended)")
        let all = try putLines()
        let lines = all.prefix(settled)
        #expect(created > 0 && lines.count >= created, "every answered PUT is logged: \(lines.count) lines, \(created) requests")
        let unchanged = lines.filter { $0.split(separator: " ").dropFirst(2).first != "201" }
        #expect(unchanged.isEmpty, "\(unchanged.count) PUTs were not answered 201, e.g. \(unchanged.prefix(3))")
        let late = all.dropFirst(settled).filter { $0.split(separator: " ").dropFirst(2).first != "503" }
        #expect(late.isEmpty, "a PUT read after SIGTERM is answered 503 (shutting down): \(late.prefix(3))")
    }

    /// One user's PUTs over 16 connections at once (a phone sending its outbox, a script):
    /// the server takes them in turn, so each is decided on the state the one before left and
    /// none loses a race to the same server, however long its commits take (answered 409
    /// after ten lost tries, before).
    @Test("one user's PUTs over 16 connections at once: every one is 201 Created, none 409", arguments: GroupCommitTests.Kind.allCases)
    func oneUsersConcurrentPutsAreAllRecorded(kind: GroupCommitTests.Kind) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (store, dropSchema) = try TestStores.storeURL(postgres: kind == .postgres, in: directory.path)
        defer { dropSchema() }
        let port = try FreePort.find()
        let log = directory.path + "/serve.log"
        let server = try Processes.start("/bin/sh", ["-c", #"exec "$0" "$@" 2>"$EVTOOL_LOG""#, Processes.evtool,
                                                     "serve", "--no-auth", "--listen", "127.0.0.1:\(port)", "--threads", "2", "--store", store],
                                         environment: ["EVTOOL_LOG": log])
        try FreePort.waitUntilListening(port, process: server)
        let wrk = ["-t2", "-c16", "-s", Self.root.appendingPathComponent("scripts/serve-favorite.lua").path, "http://127.0.0.1:\(port)"]
        let result = try Processes.run("/usr/bin/wrk", ["-d2s"] + wrk, environment: ["EVTOOL_USERS": "1"])
        #expect(result.status == 0, "\(result)")
        #expect(result.output.contains(" requests in "), "\(result.output)")
        #expect(result.output.contains("\nanswers other than 201 Created: 0\n"), "\(result.output)")

        // Stopped while the user's writes wait their turns: each is answered, recorded (201)
        // or refused as the server shuts down (503), and the server ends cleanly.
        let stopped = try Processes.start("/usr/bin/wrk", ["-d3s"] + wrk, environment: ["EVTOOL_USERS": "1"])
        Thread.sleep(forTimeInterval: 1)
        server.send(SIGTERM)
        let ended = try server.finish()
        _ = try stopped.finish()
        #expect(ended.status == 0, "the server ends cleanly with writes waiting: \(ended)")
        let puts = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("PUT /v1/users/u1/") }
        let others = puts.filter { !["201", "503"].contains($0.split(separator: " ").dropFirst(2).first ?? "") }
        #expect(puts.count > 0 && others.isEmpty, "every PUT answered 201, or 503 while shutting down: \(others.prefix(3))")
    }
}
