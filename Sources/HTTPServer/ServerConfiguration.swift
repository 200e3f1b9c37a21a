import Foundation

/// How the HTTP server listens and what it accepts. Every limit has a default here and an
/// option on `evtool serve`.
package struct ServerConfiguration: Sendable {
    /// The IPv4 or IPv6 address to listen on (default 127.0.0.1).
    package var host = "127.0.0.1"
    /// The port (default 8080; 0 picks a free one).
    package var port: UInt16 = 8080
    /// Threads in the pool that serves connections (default 4).
    package var threads = 4
    /// Threads for the write requests (POST, PUT, DELETE) that must wait (default 64): those
    /// that read the user's stream before they are decided, admin operations, retries after a
    /// lost race. A write waiting for its group commit holds no thread at all (the committing
    /// thread answers it). 0 runs every write on the connection threads, each waiting there.
    package var writeThreads = 64
    /// The most connections open at once (default 1,000; more are refused at accept).
    package var connectionLimit = 1_000
    /// Seconds a connection may stay idle, and that a request's line, then its headers and
    /// body, may take to arrive (default 30); past either, the connection is closed
    /// (``ConnectionClocks``).
    package var connectionTimeoutSeconds = 30
    /// Bytes of memory per connection for the request line and headers (default 32 KiB):
    /// larger headers get 431 from libmicrohttpd.
    package var headerMemoryBytes = 32 * 1_024
    /// The largest request body (default 1 MiB): larger gets 413.
    package var maximumBodyBytes = 1 << 20
    /// Seconds SIGTERM or Ctrl-C waits for requests in flight before the server stops anyway (default 10).
    package var shutdownGraceSeconds = 10.0
    /// PEM certificate and key for TLS; nil for plain HTTP.
    package var tls: (certificate: String, key: String)?
    /// One log line per request as JSON instead of text.
    package var jsonLog = false

    /// The defaults.
    package init() {}

    /// Whether `host` is an address the server can listen on: IPv4 dotted or IPv6 (without
    /// brackets). A name is not: the server binds one address, resolved by no one.
    package static func isListenAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}
