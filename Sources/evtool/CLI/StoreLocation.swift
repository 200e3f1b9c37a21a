import EventLog
import Foundation
import StorePostgres
import StoreSQLite

/// Which store a command works on, from `--store`, `$EVTOOL_STORE`, or the default file.
enum StoreLocation: Equatable, CustomStringConvertible {
    case sqlite(path: String)
    case postgres(url: String)

    /// The default when neither `--store` nor `$EVTOOL_STORE` is given.
    static let defaultLocation = StoreLocation.sqlite(path: "./evtool.sqlite")

    /// Parses `sqlite:PATH`, `postgres://…`/`postgresql://…`, or a bare file path.
    init(parsing text: String) throws {
        if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            self = .postgres(url: text)
        } else if text.hasPrefix("sqlite:") {
            let path = String(text.dropFirst("sqlite:".count))
            guard !path.isEmpty else { throw CLIError.usage("store 'sqlite:' needs a file path, e.g. sqlite:./evtool.sqlite", nil) }
            self = .sqlite(path: path)
        } else if text.isEmpty {
            throw CLIError.usage("the store is empty; give sqlite:PATH, a file path, or a postgres:// URL", nil)
        } else if Self.looksLikeKeyValueConnectionString(text) {
            // Taken as a file name, it would make an SQLite file named after the password.
            throw CLIError.usage("the store '\(text)' is a libpq key/value connection string; give a URL, postgresql://USER@HOST:PORT/DB?schema=NAME (the password in PGPASSWORD or ~/.pgpass), or sqlite:PATH for a file of that name", nil)
        } else if text.contains("://") {
            throw CLIError.usage("unknown store URL scheme in '\(text.prefix(while: { $0 != ":" }))://…'; use sqlite:PATH or postgres://", nil)
        } else {
            self = .sqlite(path: text)
        }
    }

    /// libpq's connection keywords (and evtool's `schema`), which start a key/value string.
    static let connectionKeywords: Set<String> = [
        "host", "hostaddr", "port", "dbname", "user", "password", "passfile", "require_auth", "channel_binding",
        "connect_timeout", "client_encoding", "options", "application_name", "fallback_application_name", "keepalives",
        "keepalives_idle", "keepalives_interval", "keepalives_count", "tcp_user_timeout", "replication", "gssencmode",
        "sslmode", "requiressl", "sslcompression", "sslcert", "sslkey", "sslpassword", "sslcertmode", "sslrootcert",
        "sslcrl", "sslcrldir", "sslsni", "requirepeer", "ssl_min_protocol_version", "ssl_max_protocol_version",
        "krbsrvname", "gsslib", "gssdelegation", "service", "target_session_attrs", "load_balance_hosts", "schema",
    ]

    /// Whether `text` starts as a libpq key/value string does: a connection keyword, optional
    /// spaces, `=`.
    static func looksLikeKeyValueConnectionString(_ text: String) -> Bool {
        let trimmed = text.drop(while: { $0 == " " || $0 == "\t" })
        let keyword = trimmed.prefix(while: { $0.isLetter || $0 == "_" })
        guard connectionKeywords.contains(keyword.lowercased()) else { return false }
        return trimmed.dropFirst(keyword.count).drop(while: { $0 == " " || $0 == "\t" }).first == "="
    }

    /// The store named by a command's `--store`, else `$EVTOOL_STORE`, else the default.
    static func resolve(_ arguments: ParsedArguments) throws -> StoreLocation {
        if let text = arguments.value("store") { return try StoreLocation(parsing: text) }
        if let text = ProcessInfo.processInfo.environment["EVTOOL_STORE"], !text.isEmpty {
            return try StoreLocation(parsing: text)
        }
        return defaultLocation
    }

    /// Where the store is, for messages, with every password masked (``Redaction``).
    var description: String {
        switch self {
        case .sqlite(let path): return Redaction.maskingPasswords(in: "sqlite:\(path)")
        case .postgres(let url): return Redaction.maskingPasswords(in: url)
        }
    }

    /// The connection URL without evtool's own `schema=NAME` query parameter (libpq would refuse
    /// it), and that schema (default `evtool`).
    static func splittingSchema(from url: String) throws -> (url: String, schema: String) {
        guard let question = url.firstIndex(of: "?") else { return (url, "evtool") }
        var schema = "evtool"
        var kept: [Substring] = []
        for parameter in url[url.index(after: question)...].split(separator: "&") {
            if parameter.hasPrefix("schema=") {
                schema = String(parameter.dropFirst("schema=".count)).removingPercentEncoding ?? ""
                guard !schema.isEmpty else { throw CLIError.usage("the store URL's 'schema=' is empty", nil) }
            } else {
                kept.append(parameter)
            }
        }
        let base = String(url[..<question])
        return (kept.isEmpty ? base : base + "?" + kept.joined(separator: "&"), schema)
    }

    /// The store's size on disk (the SQLite file with its WAL), when it is a file.
    var sizeInBytes: Int? {
        guard case .sqlite(let path) = self else { return nil }
        return ["", "-wal"].reduce(0) { total, suffix in
            total + ((try? FileManager.default.attributesOfItem(atPath: path + suffix)[.size] as? Int) ?? 0)
        }
    }

    /// Opens an existing store that also holds views and checkpoints (both stores do).
    func openForViews(create: Bool = false) throws -> any EventStore & ProjectionStore {
        guard let store = try open(create: create) as? any EventStore & ProjectionStore else {
            throw CLIError(message: "the store \(self) cannot hold views", code: .unavailable)
        }
        return store
    }

    /// Opens (creating if needed) a store that can append to several streams at once.
    func openForCopying() throws -> any MultiStreamAppending {
        guard let store = try open(create: true) as? any MultiStreamAppending else {
            throw CLIError(message: "the store \(self) cannot take copied logs", code: .unavailable)
        }
        return store
    }

    /// Opens the store. `create` makes a missing SQLite file or installs the store in a
    /// PostgreSQL schema that holds none; reading commands pass false, so a typo in a path or
    /// a schema name is an error (69), not a new empty store.
    func open(create: Bool) throws -> any EventStore {
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
