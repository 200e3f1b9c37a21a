import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Local TCP ports for servers the tests start (`evtool serve`).
public enum LocalPort {
    /// What went wrong finding a port or waiting for a server.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    /// A port nothing listens on now (bound to 0 and released).
    public static func free() throws -> UInt16 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure("socket() failed") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard bound else { throw Failure("bind() failed") }
        return UInt16(bigEndian: address.sin_port)
    }

    /// Waits (up to `seconds`) until something accepts connections on `port`; kills `process`
    /// and fails when it does not, or when the process exits first.
    public static func waitUntilListening(_ port: UInt16, process: Processes.Running, seconds: TimeInterval = 30) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            guard process.isRunning else { throw Failure("the server exited before listening: \(try process.finish())") }
            if let descriptor = connected(to: port) {
                close(descriptor)
                return
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        process.send(SIGKILL)
        throw Failure("the server did not listen on port \(port) within \(Int(seconds)) s: \(try process.finish())")
    }

    /// A socket connected to 127.0.0.1:`port` (the caller closes it), or nil when nothing accepts.
    public static func connected(to port: UInt16) -> Int32? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        if connected { return descriptor }
        close(descriptor)
        return nil
    }
}
