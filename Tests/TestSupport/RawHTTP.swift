import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Bytes sent to a server over a plain socket, exactly as given (no client library that would
/// normalise a request), and what came back: for tests of HTTP framing.
public enum RawHTTP {
    /// What the server sent back on one connection.
    public struct Exchange: CustomStringConvertible {
        /// Every byte received until the server closed the connection or the wait ended.
        public var received: [UInt8]
        /// Whether the server closed the connection (rather than the wait running out).
        public var closed: Bool

        /// The received bytes as text (invalid UTF-8 repaired).
        public var text: String { String(decoding: received, as: UTF8.self) }

        /// The status codes of the responses received, in order: one per status line at the
        /// start of a response (a status line quoted inside a body is not counted).
        public var statuses: [Int] {
            var found: [Int] = []
            var rest = text[...]
            while rest.hasPrefix("HTTP/1.") {
                let line = rest.prefix { $0 != "\r" }
                found.append(Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1)
                guard let headEnd = rest.range(of: "\r\n\r\n") else { break }
                let head = rest[..<headEnd.lowerBound]
                let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                rest = rest[headEnd.upperBound...]
                rest = rest.utf8.count >= length ? Substring(String(decoding: Array(rest.utf8.dropFirst(length)), as: UTF8.self)) : ""
            }
            return found
        }

        public var description: String { "closed: \(closed), received: \(text.prefix(600).debugDescription)" }
    }

    /// Connects to 127.0.0.1:`port`, sends `bytes`, and reads until the server closes the
    /// connection or `seconds` pass without it doing so.
    public static func exchange(port: UInt16, _ bytes: [UInt8], seconds: Double = 3) throws -> Exchange {
        guard let descriptor = LocalPort.connected(to: port) else { throw LocalPort.Failure("cannot connect to port \(port)") }
        defer { close(descriptor) }
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { break }   // the server may close before it has read everything
            sent += count
        }
        var received: [UInt8] = []
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { return Exchange(received: received, closed: false) }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(left * 1_000))
            if ready <= 0 { return Exchange(received: received, closed: false) }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return Exchange(received: received, closed: true) }
            received.append(contentsOf: buffer[..<count])
        }
    }
}
