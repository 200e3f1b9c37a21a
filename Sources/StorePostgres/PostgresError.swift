import CLibPQ
import Foundation

/// A PostgreSQL error code (SQLSTATE), so callers can `catch` a specific one.
public struct SQLState: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The five-character code, e.g. `23505`.
    public var rawValue: String

    /// Makes a code from its five characters.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A unique constraint was violated.
    public static let uniqueViolation = SQLState(rawValue: "23505")
    /// The role lacks a privilege on the object (`permission denied for table …`, `must be owner of …`).
    public static let insufficientPrivilege = SQLState(rawValue: "42501")
    /// The object (schema, table, function) does not exist.
    public static let undefinedTable = SQLState(rawValue: "42P01")
    /// The server is shutting down this connection (fast shutdown, `pg_terminate_backend`).
    public static let adminShutdown = SQLState(rawValue: "57P01")
    /// The server crashed and is terminating every connection.
    public static let crashShutdown = SQLState(rawValue: "57P02")
    /// The server is starting up or shutting down and refuses connections.
    public static let cannotConnectNow = SQLState(rawValue: "57P03")
    /// evtool's append function: a writer of the same stream that reserved later positions
    /// committed first; nothing was written, and calling again appends.
    public static let appendRetry = SQLState(rawValue: "EV001")
    /// A lock was not granted within `lock_timeout` (the append function sets 2 s).
    public static let lockNotAvailable = SQLState(rawValue: "55P03")
    /// A statement was prepared under an older table definition.
    public static let featureNotSupported = SQLState(rawValue: "0A000")

    /// Whether the code says the connection is gone (class 08, or a server shutdown).
    public var meansConnectionLost: Bool {
        rawValue.hasPrefix("08") || self == .adminShutdown || self == .crashShutdown || self == .cannotConnectNow
    }

    public var description: String { rawValue }
}

/// A failure reported by libpq or the server.
///
/// The description names the SQLSTATE, the server's message and the SQL text, never the
/// values bound to the statement (they can be personal data) nor a password.
public struct PostgresError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// What went wrong, broadly.
    public enum Kind: Sendable, Hashable {
        /// The connection could not be opened.
        case connectionFailed
        /// The connection broke while a statement ran (its outcome may be unknown).
        case connectionLost
        /// The server refused the statement; see ``PostgresError/sqlState``.
        case statementFailed
        /// A row did not have the shape the caller expected.
        case unexpectedResult
    }

    /// What went wrong, broadly.
    public var kind: Kind
    /// The server's error code, when it sent one.
    public var sqlState: SQLState?
    /// The server's or libpq's message (first line, trimmed).
    public var message: String
    /// The constraint the server named, for constraint violations.
    public var constraint: String?
    /// The SQL text that failed, if any (never its bound values).
    public var sql: String?
    /// The server as `host:port`, for connection errors.
    public var server: String?

    /// The server, its message and code, never the SQL text: whatever prints the error shows
    /// a user no statement (evtool's, not theirs).
    public var description: String { summary }

    /// ``description`` and the statement that failed (its first 200 characters), for tests
    /// and debugging.
    public var debugDescription: String {
        guard let sql else { return summary }
        return summary + " in: \(sql.count > 200 ? String(sql.prefix(200)) + "…" : sql)"
    }

    /// The server, its message and code, without the SQL text.
    public var summary: String {
        var text = ""
        if let server { text += "\(server): " }
        text += message
        if let sqlState { text += " (SQLSTATE \(sqlState))" }
        return text
    }
}

extension PostgresError {
    /// Builds an error from a failed result (or none), reading the diagnostic fields.
    static func from(result: OpaquePointer?, connection: OpaquePointer?, sql: String?) -> PostgresError {
        var state: SQLState?
        var message = ""
        var constraint: String?
        if let result {
            if let code = PQresultErrorField(result, evtool_pg_diag_sqlstate()) {
                state = SQLState(rawValue: String(cString: code))
            }
            if let primary = PQresultErrorField(result, evtool_pg_diag_message_primary()) {
                message = String(cString: primary)
            } else if let text = PQresultErrorMessage(result) {
                message = String(cString: text)
            }
            if let name = PQresultErrorField(result, evtool_pg_diag_constraint_name()) {
                constraint = String(cString: name)
            }
        }
        if message.isEmpty, let connection, let text = PQerrorMessage(connection) {
            message = String(cString: text)
        }
        message = PostgresError.firstLine(of: message)
        if message.isEmpty { message = "unknown error" }
        let lost = (connection.map { PQstatus($0) == CONNECTION_BAD } ?? true) || (state?.meansConnectionLost ?? false)
        return PostgresError(
            kind: lost ? .connectionLost : .statementFailed, sqlState: state, message: message,
            constraint: constraint, sql: sql, server: nil)
    }

    /// The first non-empty line of a libpq message, trimmed.
    static func firstLine(of text: String) -> String {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        return lines.first(where: { !$0.isEmpty }) ?? ""
    }
}
