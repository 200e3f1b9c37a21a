import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `--timeout` for each part of a request (docs/reference/http.md, "Limits"): a client that
/// sends its head or body a byte at a time (a slow loris) is closed once its request line, or
/// its headers and body, are not whole within the timeout, however often it sends a byte;
/// clients that send whole requests, pause between them, or read an event stream are not.
/// Raw sockets against `evtool serve` on SQLite.
@Suite(.serialized)
struct ServeDeadlineTests {
    /// A connection a test writes to byte by byte.
    final class Trickle {
        let descriptor: Int32
        init(port: UInt16, _ start: String) throws {
            guard let descriptor = LocalPort.connected(to: port) else { throw LocalPort.Failure("cannot connect to port \(port)") }
            self.descriptor = descriptor
            _ = send(start)
        }
        deinit { close(descriptor) }

        /// Sends `text`; false when the server has closed the connection.
        func send(_ text: String) -> Bool {
            let bytes = Array(text.utf8)
            return bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
        }

        /// Whether the server has closed the connection (read to its end, without waiting).
        var isClosed: Bool {
            var buffer = [UInt8](repeating: 0, count: 4_096)
            while true {
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 0) > 0 else { return false }
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                if count <= 0 { return true }
            }
        }

        /// Reads one response head and its body (by its Content-Length), waiting up to 3 s.
        func response() -> String {
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4_096)
            let deadline = Date().addingTimeInterval(3)
            while deadline.timeIntervalSinceNow > 0 {
                let text = String(decoding: received, as: UTF8.self)
                if let end = text.range(of: "\r\n\r\n") {
                    let length = text[..<end.lowerBound].split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                        .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                    if text[end.upperBound...].utf8.count >= length { return text }
                }
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 100) > 0 else { continue }
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                if count <= 0 { break }
                received.append(contentsOf: buffer[..<count])
            }
            return String(decoding: received, as: UTF8.self)
        }
    }

    @Test("slow heads and bodies are closed after --timeout and the server serves others; whole requests with pauses and event streams are kept")
    func slowClientsClosed() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let port = try LocalPort.free()
        let server = try Processes.start(Processes.evtool, ["serve", "--no-auth", "--listen", "127.0.0.1:\(port)", "--timeout", "1",
                                                            "--max-connections", "6", "--store", "sqlite:\(directory.path)/deadline.sqlite"])
        try LocalPort.waitUntilListening(port, process: server)
        defer { server.killIfRunning() }

        let stream = try Trickle(port: port, "GET /v1/log/stream HTTP/1.1\r\nHost: x\r\n\r\n")
        let slow = [
            try Trickle(port: port, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: "),
            try Trickle(port: port, "GET /healthz HTTP/1.1\r\nHost: x\r\n"),
            try Trickle(port: port, "GET /heal"),
            try Trickle(port: port, "PUT /v1/users/ada/favorites/L1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"),
        ]
        let keptAlive = try Trickle(port: port, "")
        // A byte every 200 ms keeps libmicrohttpd's idle timer from ever running out; the
        // connection that sends whole requests 600 ms apart is under the timeout each time.
        var closedAfter: [Double?] = Array(repeating: nil, count: slow.count)
        var keptAnswers: [String] = []
        let started = Date()
        var tick = 0
        while Date().timeIntervalSince(started) < 6, closedAfter.contains(where: { $0 == nil }) {
            for (index, connection) in slow.enumerated() where closedAfter[index] == nil {
                if connection.isClosed || !connection.send("a") { closedAfter[index] = Date().timeIntervalSince(started) }
            }
            if tick % 3 == 0, keptAnswers.count < 4 {
                #expect(keptAlive.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"))
                keptAnswers.append(keptAlive.response())
            }
            tick += 1
            Thread.sleep(forTimeInterval: 0.2)
        }
        for (index, after) in closedAfter.enumerated() {
            let seconds = try #require(after, "slow connection \(index) was still open after 6 s")
            #expect(seconds >= 0.9, "slow connection \(index) closed after \(seconds) s, before its timeout")
        }
        #expect(keptAnswers.count >= 3 && keptAnswers.allSatisfy { $0.hasPrefix("HTTP/1.1 200") }, "\(keptAnswers)")
        #expect(!keptAlive.isClosed, "a connection sending whole requests is kept")
        #expect(!stream.isClosed, "an event stream is kept past the timeout")

        // The slow clients held the connections; once closed, others are served.
        let answer = try RawHTTP.exchange(port: port, Array("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        #expect(answer.statuses == [200] && answer.closed, "\(answer)")

        server.send(SIGTERM)
        let ended = try server.finish()
        #expect(ended.status == 0, "\(ended.errors.suffix(1_000))")
        #expect(ended.errors.contains("whose request was not whole within 1 s (--timeout)"), "the closings are logged: \(ended.errors.suffix(1_000))")
    }

    @Test("requests libmicrohttpd refuses before evtool sees them leave nothing in flight")
    func refusedBeforeTheHandlerLeaveNothingInFlight() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let port = try LocalPort.free()
        let server = try Processes.start(Processes.evtool, ["serve", "--no-auth", "--listen", "127.0.0.1:\(port)", "--timeout", "1",
                                                            "--store", "sqlite:\(directory.path)/refused.sqlite"])
        try LocalPort.waitUntilListening(port, process: server)
        defer { server.killIfRunning() }
        let parameters = (0..<600).map { "a\($0)=1" }.joined(separator: "&")
        for _ in 0..<3 {
            let sign = try RawHTTP.exchange(port: port, Array("PUT /v1/users/u/favorites/L1 HTTP/1.1\r\nHost: x\r\nContent-Length: +5\r\n\r\nhello".utf8))
            #expect(sign.received.starts(with: Array("HTTP/1.1 400".utf8)) && sign.closed, "\(sign)")
            let many = try RawHTTP.exchange(port: port, Array("GET /v1/users/u/favorites?\(parameters) HTTP/1.1\r\nHost: x\r\n\r\n".utf8), seconds: 4)
            #expect(many.closed, "\(many)")
        }
        server.send(SIGTERM)
        let ended = try server.finish()
        #expect(ended.status == 0, "\(ended.errors.suffix(1_000))")
        #expect(ended.errors.contains("finishing 0 requests in flight"), "\(ended.errors.suffix(1_000))")
        #expect(!ended.errors.contains("unfinished"), "\(ended.errors.suffix(1_000))")
    }
}
