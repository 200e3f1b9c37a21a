import Foundation

/// How the HTTP server listens and what it accepts. Every limit has a default here and an
/// option on `evtool serve`.
public struct ServerConfiguration: Sendable {
    /// The IPv4 or IPv6 address to listen on (default 127.0.0.1).
    public var host = "127.0.0.1"
    /// The port (default 8080; 0 picks a free one).
    public var port: UInt16 = 8080
    /// Threads in the pool that serves connections (default 4).
    public var threads = 4
    /// Threads that run write requests (POST, PUT, DELETE) off the connection threads (default
    /// 64): a write waiting for its commit then holds no connection thread, and concurrent
    /// writes can share a group commit. 0 runs writes on the connection threads.
    public var writeThreads = 64
    /// The most connections open at once (default 1,000; more are refused at accept).
    public var connectionLimit = 1_000
    /// Seconds a connection may stay idle or trickle before it is closed (default 30).
    public var connectionTimeoutSeconds = 30
    /// Bytes of memory per connection for the request line and headers (default 32 KiB):
    /// larger headers get 431 from libmicrohttpd.
    public var headerMemoryBytes = 32 * 1_024
    /// The largest request body (default 1 MiB): larger gets 413.
    public var maximumBodyBytes = 1 << 20
    /// Seconds SIGTERM or Ctrl-C waits for requests in flight before the server stops anyway (default 10).
    public var shutdownGraceSeconds = 10.0
    /// PEM certificate and key for TLS; nil for plain HTTP.
    public var tls: (certificate: String, key: String)?
    /// One log line per request as JSON instead of text.
    public var jsonLog = false

    /// The defaults.
    public init() {}
}
