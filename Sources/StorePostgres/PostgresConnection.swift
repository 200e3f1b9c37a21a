import CLibPQ
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One libpq connection (a `PGconn`), closed when the object goes away.
///
/// Not thread-safe: one thread uses it at a time. ``PostgresEventStore`` hands connections
/// out of its pool to one caller at a time.
final class PostgresConnection {
    private let handle: OpaquePointer
    /// Statement names by SQL text, for statements prepared on this connection.
    private var prepared: [String: String] = [:]
    /// Statements sent with ``send(_:types:binds:)`` whose results are still to be read.
    private var pendingResults = 0

    /// The server as `host:port` (a socket directory for Unix sockets), for messages.
    let server: String

    /// Opens a connection.
    ///
    /// - Parameter conninfo: a `postgres://` / `postgresql://` URL or `key=value` string;
    ///   empty uses libpq's environment variables (PGHOST, PGPORT, PGUSER, PGPASSWORD …).
    /// - Throws: ``PostgresError`` of kind `connectionFailed`, naming the server and the
    ///   cause (never the password).
    init(conninfo: String) throws {
        guard let handle = PQconnectStart(conninfo) else {
            throw PostgresError(kind: .connectionFailed, sqlState: nil, message: "out of memory", constraint: nil, sql: nil, server: nil)
        }
        // Silenced before the first message can arrive: libpq's default processor prints the
        // server's notices and warnings (a shutdown warning, a role's debug messages) raw to
        // standard error, which would break the one-line error contract.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        // A connection refused before any server was tried (a service name that
        // pg_service.conf does not define) names no server: libpq's default host would
        // read as if localhost:5432 had been tried.
        let refusedAtOnce = PQstatus(handle) == CONNECTION_BAD
            && (PQerrorMessage(handle).map { String(cString: $0) } ?? "").hasPrefix("definition of service")
        let timedOut = PostgresConnection.finishConnecting(handle)
        self.handle = handle
        self.server = refusedAtOnce ? "the server" : PostgresConnection.serverName(of: handle)
        guard PQstatus(handle) == CONNECTION_OK, !timedOut else {
            let text = timedOut ? "timeout expired" : PQerrorMessage(handle).map { String(cString: $0) } ?? ""
            throw PostgresError(
                kind: .connectionFailed, sqlState: nil, message: PostgresConnection.cause(from: text),
                constraint: nil, sql: nil, server: server)
        }
        guard PQsetClientEncoding(handle, "UTF8") == 0 else {
            throw PostgresError(kind: .connectionFailed, sqlState: nil, message: "cannot set the client encoding to UTF8",
                                constraint: nil, sql: nil, server: server)
        }
        // The append function's version check must see commits made while it waited for the
        // stream's lock, which needs a fresh snapshot per statement: READ COMMITTED, even if
        // the database or role defaults to a stricter level.
        try execute("SET default_transaction_isolation TO 'read committed'")
    }

    deinit { PQfinish(handle) }

    // MARK: - Connecting

    /// Drives a connection started with `PQconnectStart` until it is made or has failed
    /// (libpq's `PQconnectPoll` protocol), honouring `connect_timeout` as `PQconnectdb` does:
    /// per server tried, at least 2 s, none when unset or 0. Returns whether it gave up on
    /// that timeout.
    private static func finishConnecting(_ handle: OpaquePointer) -> Bool {
        guard PQstatus(handle) != CONNECTION_BAD else { return false }
        let timeout = connectTimeout(of: handle)
        var socket = PQsocket(handle)
        var deadline = timeout.map { ContinuousClock.now + .seconds($0) }
        var polling = PGRES_POLLING_WRITING
        while true {
            switch polling {
            case PGRES_POLLING_OK, PGRES_POLLING_FAILED:
                return false
            case PGRES_POLLING_READING, PGRES_POLLING_WRITING:
                let current = PQsocket(handle)
                if current != socket {   // libpq moved on to the next server or address
                    socket = current
                    deadline = timeout.map { ContinuousClock.now + .seconds($0) }
                }
                guard current >= 0 else { return false }
                var descriptor = pollfd(fd: current, events: Int16(polling == PGRES_POLLING_READING ? POLLIN : POLLOUT), revents: 0)
                var wait: Int32 = -1
                if let deadline {
                    let left = ContinuousClock.now.duration(to: deadline)
                    guard left > .zero else { return true }   // as PQconnectdb does when a server does not answer in time
                    wait = Int32(max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
                }
                let ready = poll(&descriptor, 1, wait)
                if ready < 0, errno == EINTR { continue }
                if ready == 0 { continue }   // the deadline check above ends the wait
            default:
                break
            }
            polling = PQconnectPoll(handle)
        }
    }

    /// The `connect_timeout` in force for a connection being made, in seconds; nil for none.
    private static func connectTimeout(of handle: OpaquePointer) -> Int64? {
        guard let options = PQconninfo(handle) else { return nil }
        defer { PQconninfoFree(options) }
        var option = options
        while let keyword = option.pointee.keyword {
            if String(cString: keyword) == "connect_timeout" {
                guard let value = option.pointee.val, let seconds = Int64(String(cString: value)), seconds > 0 else { return nil }
                return max(2, seconds)
            }
            option += 1
        }
        return nil
    }

    // MARK: - Messages

    /// `host:port` of a connection, successful or not.
    private static func serverName(of handle: OpaquePointer) -> String {
        let host = PQhost(handle).map { String(cString: $0) } ?? ""
        let port = PQport(handle).map { String(cString: $0) } ?? ""
        return "\(host.isEmpty ? "localhost" : host):\(port.isEmpty ? "5432" : port)"
    }

    /// The cause in libpq's connection error: the text after the last "failed: ", without
    /// the severity prefix, e.g. `Connection refused` or `password authentication failed for user "x"`.
    static func cause(from message: String) -> String {
        var causes: [String] = []
        for line in message.split(whereSeparator: \.isNewline) {
            var text = String(line).trimmingCharacters(in: .whitespaces)
            if let range = text.range(of: "failed: ", options: .backwards) {
                text = String(text[range.upperBound...])
            } else if !causes.isEmpty || text.hasPrefix("Is the server") {
                continue   // libpq's hint lines ("Is the server running …") add nothing here
            }
            for prefix in ["FATAL:  ", "ERROR:  ", "FATAL: ", "ERROR: "] where text.hasPrefix(prefix) {
                text = String(text.dropFirst(prefix.count))
            }
            if !text.isEmpty { causes.append(text) }
        }
        return causes.last ?? "unknown error"
    }

    // MARK: - Health

    /// Whether the connection is still usable: reads whatever the server sent while it was
    /// idle (a shutdown notice, EOF) without blocking.
    var isHealthy: Bool {
        guard PQstatus(handle) == CONNECTION_OK else { return false }
        let socket = PQsocket(handle)
        guard socket >= 0 else { return false }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, 0)
        if ready > 0 {
            if PQconsumeInput(handle) == 0 { return false }
        }
        return PQstatus(handle) == CONNECTION_OK
    }

    // MARK: - Statements

    /// Runs SQL text with no parameters (several statements allowed), for schema changes
    /// and session settings.
    @discardableResult
    func execute(_ sql: String) throws -> PostgresResult {
        try drainPending()
        let raw = PQexec(handle, sql)
        return try check(raw, sql: sql)
    }

    /// Runs a statement with bound parameters, preparing it once per connection.
    ///
    /// - Parameters:
    ///   - sql: the statement, with `$1`, `$2` … placeholders.
    ///   - types: the parameter type OIDs.
    ///   - binds: the values, in binary format.
    /// - Returns: the rows, in binary format.
    func query(_ sql: String, types: [UInt32], binds: PostgresBinds) throws -> PostgresResult {
        try drainPending()
        let name = try statementName(for: sql, types: types)
        let raw: OpaquePointer? = binds.buffer.withUnsafeBufferPointer { buffer in
            // The buffer is never empty (it starts with a padding byte), so it has a base address.
            let base = UnsafeRawPointer(buffer.baseAddress!)
            let values: [UnsafePointer<CChar>?] = binds.offsets.enumerated().map { index, offset in
                binds.isNull[index] ? nil : (base + offset).assumingMemoryBound(to: CChar.self)
            }
            return PQexecPrepared(handle, name, Int32(binds.count), values, binds.lengths, binds.formats, 1)
        }
        return try check(raw, sql: sql)
    }

    /// Sends a statement with bound parameters without waiting for its result, which is
    /// read (and discarded) before the connection's next statement. For statements whose
    /// outcome does not matter to the caller (a NOTIFY after an append): the server runs it
    /// while the caller goes on.
    func send(_ sql: String, types: [UInt32], binds: PostgresBinds) throws {
        try drainPending()
        let name = try statementName(for: sql, types: types)
        let sent = binds.buffer.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!)
            let values: [UnsafePointer<CChar>?] = binds.offsets.enumerated().map { index, offset in
                binds.isNull[index] ? nil : (base + offset).assumingMemoryBound(to: CChar.self)
            }
            return PQsendQueryPrepared(handle, name, Int32(binds.count), values, binds.lengths, binds.formats, 1)
        }
        guard sent == 1 else {
            var error = PostgresError.from(result: nil, connection: handle, sql: sql)
            error.server = server
            throw error
        }
        pendingResults += 1
    }

    /// Reads the results of statements sent with ``send(_:types:binds:)``; their errors are
    /// ignored, a broken connection is not.
    func drainPending() throws {
        while pendingResults > 0 {
            while let raw = PQgetResult(handle) { PQclear(raw) }
            pendingResults -= 1
            if PQstatus(handle) != CONNECTION_OK {
                var error = PostgresError.from(result: nil, connection: handle, sql: nil)
                error.server = server
                throw error
            }
        }
    }

    /// The name of the prepared statement for `sql`, preparing it on first use.
    private func statementName(for sql: String, types: [UInt32]) throws -> String {
        if let name = prepared[sql] { return name }
        let name = "evtool_\(prepared.count + 1)"
        let raw = types.map { Oid($0) }.withUnsafeBufferPointer { PQprepare(handle, name, sql, Int32(types.count), $0.baseAddress) }
        try check(raw, sql: sql)
        prepared[sql] = name
        return name
    }

    /// Turns a libpq result into a ``PostgresResult`` or throws its error.
    @discardableResult
    private func check(_ raw: OpaquePointer?, sql: String) throws -> PostgresResult {
        guard let raw else {
            var error = PostgresError.from(result: nil, connection: handle, sql: sql)
            error.server = server
            throw error
        }
        let result = PostgresResult(handle: raw)
        switch PQresultStatus(raw) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
            return result
        default:
            var error = PostgresError.from(result: raw, connection: handle, sql: sql)
            error.server = server
            throw error
        }
    }

    // MARK: - Notifications

    /// Whether the server is a hot standby (in recovery, read-only), as it reports in the
    /// `in_hot_standby` parameter (PostgreSQL 14 and later) at connection start and again when
    /// it is promoted. A standby takes no LISTEN and receives no notifications: waiting on it
    /// polls instead.
    var isHotStandby: Bool {
        guard let value = PQparameterStatus(handle, "in_hot_standby") else { return false }
        return String(cString: value) == "on"
    }

    /// The file descriptor of the connection's socket, for `poll`.
    var socket: Int32 { PQsocket(handle) }

    /// Reads whatever the server has sent and returns the notifications received so far.
    /// - Throws: ``PostgresError`` of kind `connectionLost` when the connection broke.
    func consumeNotifications() throws -> [(channel: String, payload: String)] {
        if PQconsumeInput(handle) == 0 || PQstatus(handle) != CONNECTION_OK {
            throw PostgresError.from(result: nil, connection: handle, sql: nil)
        }
        var received: [(channel: String, payload: String)] = []
        while let notify = PQnotifies(handle) {
            received.append((String(cString: notify.pointee.relname), String(cString: notify.pointee.extra)))
            PQfreemem(notify)
        }
        return received
    }
}

@available(*, unavailable)
extension PostgresConnection: Sendable {}
