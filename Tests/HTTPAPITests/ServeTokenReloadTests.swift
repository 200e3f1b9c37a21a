import Foundation
import Testing
import TestSupport

/// `evtool serve` reads its tokens file again on SIGHUP (docs/reference/http.md, "Tokens"): a
/// token made after the server started is accepted from then on, one removed is refused, and a
/// file that cannot be read leaves the tokens read before in force.
@Suite(.serialized)
struct ServeTokenReloadTests {
    static func token(_ arguments: [String], tokens: String) throws -> String {
        let made = try Processes.run(Processes.evtool, ["token", "create"] + arguments + ["--tokens", tokens])
        #expect(made.status == 0, "\(made)")
        return made.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The status of `GET /v1/users/ada/favorites` with `token`.
    static func status(port: UInt16, token: String) throws -> Int {
        let answer = try RawHTTP.exchange(port: port, Array("GET /v1/users/ada/favorites HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nConnection: close\r\n\r\n".utf8))
        return answer.statuses.first ?? -1
    }

    /// Waits up to 5 s for `token` to get `expected` (the server reads the file on its signal
    /// thread, a moment after the signal).
    static func waitFor(_ expected: Int, port: UInt16, token: String) throws -> Int {
        let deadline = Date().addingTimeInterval(5)
        var last = -1
        while Date() < deadline {
            last = try status(port: port, token: token)
            if last == expected { return last }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return last
    }

    @Test("SIGHUP reads the tokens file again: new tokens are accepted, removed ones refused, an unreadable file changes nothing")
    func reloadOnHangUp() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let tokens = directory.path + "/tokens.txt"
        let backend = try Self.token(["--role", "app", "--name", "backend"], tokens: tokens)
        let port = try LocalPort.free()
        let server = try Processes.start(Processes.evtool, ["serve", "--tokens", tokens, "--listen", "127.0.0.1:\(port)", "--store", "sqlite:\(directory.path)/s.sqlite"])
        try LocalPort.waitUntilListening(port, process: server)
        defer { server.killIfRunning() }

        // Made at sign-in, after the server started: refused until the server reads the file.
        let ada = try Self.token(["--role", "user", "--user", "ada", "--name", "ada-phone"], tokens: tokens)
        #expect(try Self.status(port: port, token: ada) == 401)
        server.send(SIGHUP)
        #expect(try Self.waitFor(200, port: port, token: ada) == 200)
        #expect(try Self.status(port: port, token: backend) == 200)

        // A file that is not a tokens file: the tokens read before stay.
        let good = try #require(FileManager.default.contents(atPath: tokens))
        try Data("not a tokens line\n".utf8).write(to: URL(fileURLWithPath: tokens))
        server.send(SIGHUP)
        Thread.sleep(forTimeInterval: 0.5)
        #expect(try Self.status(port: port, token: ada) == 200)

        // The backend's line removed: refused after the next SIGHUP.
        let kept = String(decoding: good, as: UTF8.self).split(separator: "\n").filter { !$0.hasSuffix(" backend") }.joined(separator: "\n") + "\n"
        try Data(kept.utf8).write(to: URL(fileURLWithPath: tokens))
        server.send(SIGHUP)
        #expect(try Self.waitFor(401, port: port, token: backend) == 401)
        #expect(try Self.status(port: port, token: ada) == 200)

        #expect(server.isRunning, "SIGHUP does not stop the server")
        server.send(SIGTERM)
        let ended = try server.finish()
        #expect(ended.status == 0, "\(ended.errors.suffix(1_000))")
        #expect(ended.errors.contains("serve: SIGHUP: 2 tokens from \(tokens)"), "\(ended.errors.suffix(1_000))")
        #expect(ended.errors.contains("serve: SIGHUP: kept the tokens read before: \(tokens) line 1:"), "\(ended.errors.suffix(1_000))")
        #expect(ended.errors.contains("serve: SIGHUP: 1 token from \(tokens)"), "\(ended.errors.suffix(1_000))")
    }

    @Test("a server started on an empty tokens file says so, and accepts a token added after SIGHUP")
    func emptyFileWarned() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let tokens = directory.path + "/tokens.txt"
        try Data().write(to: URL(fileURLWithPath: tokens))
        let port = try LocalPort.free()
        let server = try Processes.start(Processes.evtool, ["serve", "--tokens", tokens, "--listen", "127.0.0.1:\(port)", "--store", "sqlite:\(directory.path)/s.sqlite"])
        try LocalPort.waitUntilListening(port, process: server)
        defer { server.killIfRunning() }
        let app = try Self.token(["--role", "app"], tokens: tokens)
        #expect(try Self.status(port: port, token: app) == 401)
        server.send(SIGHUP)
        #expect(try Self.waitFor(200, port: port, token: app) == 200)
        server.send(SIGTERM)
        let ended = try server.finish()
        #expect(ended.status == 0)
        #expect(ended.errors.contains("serve: the tokens file '\(tokens)' holds no token: every route but /healthz, /readyz and the documents answers 401"), "\(ended.errors.suffix(1_000))")
    }
}
