import EventLog
import Foundation
import StorePostgres
import StoreSQLite

/// Which store to work on: an SQLite file or a PostgreSQL database (and schema), parsed from
/// a location string or URL (`sqlite:PATH`, a bare path, `postgres://…`), or taken from
/// `$EVTOOL_STORE`; and how to open it.
///
/// Every face of evtool (the command line's `--store`, `evtool serve`, an app back end) opens
/// its store through this type, so a location means the same everywhere. Its errors are
/// ``StoreLocationError``s with messages fit to show a user (passwords masked).
public enum StoreLocation: Equatable, Sendable, CustomStringConvertible {
    /// An SQLite file at `path`.
    case sqlite(path: String)
    /// A PostgreSQL connection URL, optionally with evtool's `schema=NAME` query parameter.
    case postgres(url: String)

    /// The default when neither `--store` nor `$EVTOOL_STORE` is given.
    public static let defaultLocation = StoreLocation.sqlite(path: "./evtool.sqlite")

    /// Parses `sqlite:PATH`, `postgres://…`/`postgresql://…`, or a bare file path.
    /// - Throws: ``StoreLocationError/invalidLocation(_:)`` for an empty text, an empty
    ///   `sqlite:` path, a libpq key/value string or an unknown URL scheme.
    public init(parsing text: String) throws {
        if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            self = .postgres(url: text)
        } else if text.hasPrefix("sqlite:") {
            let path = String(text.dropFirst("sqlite:".count))
            guard !path.isEmpty else { throw StoreLocationError.invalidLocation("store 'sqlite:' needs a file path, e.g. sqlite:./evtool.sqlite") }
            self = .sqlite(path: path)
        } else if text.isEmpty {
            throw StoreLocationError.invalidLocation("the store is empty; give sqlite:PATH, a file path, or a postgres:// URL")
        } else if Self.looksLikeKeyValueConnectionString(text) {
            // Taken as a file name, it would make an SQLite file named after the password.
            throw StoreLocationError.invalidLocation("the store '\(text)' is a libpq key/value connection string; give a URL, postgresql://USER@HOST:PORT/DB?schema=NAME (the password in PGPASSWORD or ~/.pgpass), or sqlite:PATH for a file of that name")
        } else if text.contains("://") {
            throw StoreLocationError.invalidLocation("unknown store URL scheme in '\(text.prefix(while: { $0 != ":" }))://…'; use sqlite:PATH or postgres://")
        } else {
            self = .sqlite(path: text)
        }
    }

    /// libpq's connection keywords (and evtool's `schema`), which start a key/value string.
    public static let connectionKeywords: Set<String> = [
        "host", "hostaddr", "port", "dbname", "user", "password", "passfile", "require_auth", "channel_binding",
        "connect_timeout", "client_encoding", "options", "application_name", "fallback_application_name", "keepalives",
        "keepalives_idle", "keepalives_interval", "keepalives_count", "tcp_user_timeout", "replication", "gssencmode",
        "sslmode", "requiressl", "sslcompression", "sslcert", "sslkey", "sslpassword", "sslcertmode", "sslrootcert",
        "sslcrl", "sslcrldir", "sslsni", "requirepeer", "ssl_min_protocol_version", "ssl_max_protocol_version",
        "krbsrvname", "gsslib", "gssdelegation", "service", "target_session_attrs", "load_balance_hosts", "schema",
    ]

    /// Whether `text` starts as a libpq key/value string does: a connection keyword, optional
    /// spaces, `=`.
    public static func looksLikeKeyValueConnectionString(_ text: String) -> Bool {
        let trimmed = text.drop(while: { $0 == " " || $0 == "\t" })
        let keyword = trimmed.prefix(while: { $0.isLetter || $0 == "_" })
        guard connectionKeywords.contains(keyword.lowercased()) else { return false }
        return trimmed.dropFirst(keyword.count).drop(while: { $0 == " " || $0 == "\t" }).first == "="
    }

    /// The store named by `text` (a command's `--store`), else by `$EVTOOL_STORE` in
    /// `environment` (when set and not empty), else ``defaultLocation``.
    public static func resolve(_ text: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> StoreLocation {
        if let text { return try StoreLocation(parsing: text) }
        if let text = environment["EVTOOL_STORE"], !text.isEmpty {
            return try StoreLocation(parsing: text)
        }
        return defaultLocation
    }

    /// Where the store is, for messages, with every password masked (``Redaction``).
    public var description: String {
        switch self {
        case .sqlite(let path): return Redaction.maskingPasswords(in: "sqlite:\(path)")
        case .postgres(let url): return Redaction.maskingPasswords(in: url)
        }
    }

    /// The connection URL without evtool's own `schema=NAME` query parameter (libpq would refuse
    /// it), and that schema (default `evtool`).
    public static func splittingSchema(from url: String) throws -> (url: String, schema: String) {
        guard let question = url.firstIndex(of: "?") else { return (url, "evtool") }
        var schema = "evtool"
        var kept: [Substring] = []
        for parameter in url[url.index(after: question)...].split(separator: "&") {
            if parameter.hasPrefix("schema=") {
                schema = String(parameter.dropFirst("schema=".count)).removingPercentEncoding ?? ""
                guard !schema.isEmpty else { throw StoreLocationError.invalidLocation("the store URL's 'schema=' is empty") }
            } else {
                kept.append(parameter)
            }
        }
        let base = String(url[..<question])
        return (kept.isEmpty ? base : base + "?" + kept.joined(separator: "&"), schema)
    }

    /// The store's size on disk (the SQLite file with its WAL), when it is a file.
    public var sizeInBytes: Int? {
        guard case .sqlite(let path) = self else { return nil }
        return ["", "-wal"].reduce(0) { total, suffix in
            total + ((try? FileManager.default.attributesOfItem(atPath: path + suffix)[.size] as? Int) ?? 0)
        }
    }

    /// Opens an existing store that also holds views and checkpoints (both stores do).
    public func openForViews(create: Bool = false) throws -> any EventStore & ProjectionStore {
        guard let store = try open(create: create) as? any EventStore & ProjectionStore else {
            throw StoreLocationError.unsupported("the store \(self) cannot hold views")
        }
        return store
    }

    /// Opens (creating if needed) a store that can append to several streams at once.
    public func openForCopying() throws -> any MultiStreamAppending {
        guard let store = try open(create: true) as? any MultiStreamAppending else {
            throw StoreLocationError.unsupported("the store \(self) cannot take copied logs")
        }
        return store
    }

    /// Opens the store. `create` makes a missing SQLite file or installs the store in a
    /// PostgreSQL schema that holds none; reading commands pass false, so a typo in a path or
    /// a schema name is an error (69), not a new empty store.
    /// - Throws: ``EventStoreError`` when the store cannot be opened (``EventStoreError/unavailable(_:)``
    ///   for a missing one when not `create`), ``StoreLocationError`` for an empty `schema=`.
    public func open(create: Bool) throws -> any EventStore {
        switch self {
        case .sqlite(let path):
            var options = SQLiteEventStore.Options()
            options.createIfMissing = create
            return try SQLiteEventStore(path: path, options: options)
        case .postgres(let url):
            // The store installs (when `create`) or upgrades its schema on open.
            let (connection, schema) = try Self.splittingSchema(from: url)
            return try PostgresEventStore(url: connection, schema: schema, createIfMissing: create)
        }
    }
}
