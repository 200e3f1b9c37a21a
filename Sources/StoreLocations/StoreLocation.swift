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

    /// Parses `sqlite:PATH`, `postgres://…`/`postgresql://…`, a libpq key/value connection
    /// string (`host=db dbname=app`, `service=evtool`), or a bare file path. A PostgreSQL
    /// location is checked with libpq's own parser (evtool's `schema=` taken out first).
    /// - Throws: ``StoreLocationError/invalidLocation(_:)`` for an empty text, an empty
    ///   `sqlite:` path, an unknown URL scheme, or a connection string libpq cannot parse
    ///   (with libpq's reason).
    public init(parsing text: String) throws {
        if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") || Self.looksLikeKeyValueConnectionString(text) {
            let (connection, _) = try Self.splittingSchema(from: text)
            if let problem = PostgresConnectionString.problem(in: connection) {
                throw StoreLocationError.invalidLocation("the store '\(text)' is not a connection string libpq accepts: \(problem)")
            }
            self = .postgres(url: text)
        } else if text.hasPrefix("sqlite:") {
            let path = String(text.dropFirst("sqlite:".count))
            guard !path.isEmpty else { throw StoreLocationError.invalidLocation("store 'sqlite:' needs a file path, e.g. sqlite:./evtool.sqlite") }
            self = .sqlite(path: path)
        } else if text.isEmpty {
            throw StoreLocationError.invalidLocation("the store is empty; give sqlite:PATH, a file path, or a postgres:// URL")
        } else if text.contains("://") {
            throw StoreLocationError.invalidLocation("unknown store URL scheme in '\(text.prefix(while: { $0 != ":" }))://…'; use sqlite:PATH or postgres://")
        } else {
            self = .sqlite(path: text)
        }
    }

    /// Whether two locations name one store however they are written: for SQLite the same
    /// file (paths resolved, symlinks followed; device and inode compared when both exist),
    /// for PostgreSQL the same server, database and schema
    /// (``PostgresConnectionString/server(of:)``, the schema as ``splittingSchema(from:)`` reads it).
    public func isSameStore(as other: StoreLocation) -> Bool {
        switch (self, other) {
        case (.sqlite(let one), .sqlite(let two)):
            var first = stat(), second = stat()
            if stat(one, &first) == 0, stat(two, &second) == 0 { return first.st_dev == second.st_dev && first.st_ino == second.st_ino }
            return Self.resolvedPath(one) == Self.resolvedPath(two)
        case (.postgres(let one), .postgres(let two)):
            guard let first = try? Self.splittingSchema(from: one), let second = try? Self.splittingSchema(from: two) else { return one == two }
            guard first.schema == second.schema else { return false }
            guard let a = PostgresConnectionString.server(of: first.url), let b = PostgresConnectionString.server(of: second.url) else { return one == two }
            return a == b
        default:
            return false
        }
    }

    /// `path` absolute, with its directory's symlinks resolved (the file itself may not exist yet).
    private static func resolvedPath(_ path: String) -> String {
        let absolute = URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath + "/"))
        let directory = absolute.deletingLastPathComponent().resolvingSymlinksInPath().standardizedFileURL.path
        return (directory as NSString).appendingPathComponent(absolute.lastPathComponent)
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
    /// `environment` (when set and not empty), else ``defaultLocation``; for PostgreSQL, in
    /// the schema `schema` (a command's `--schema`), else the location's own `schema=`, else
    /// `$EVTOOL_SCHEMA`, else `evtool`.
    /// - Throws: ``StoreLocationError/invalidLocation(_:)`` for a malformed location, a
    ///   `schema` given for an SQLite file, or a `schema` that differs from the location's own.
    public static func resolve(_ text: String?, schema: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> StoreLocation {
        let location: StoreLocation
        if let text {
            location = try StoreLocation(parsing: text)
        } else if let text = environment["EVTOOL_STORE"], !text.isEmpty {
            location = try StoreLocation(parsing: text)
        } else {
            location = defaultLocation
        }
        let fallback = environment["EVTOOL_SCHEMA"].flatMap { $0.isEmpty ? nil : $0 }
        return try location.inSchema(schema, otherwise: fallback)
    }

    /// The location as given, in `$EVTOOL_SCHEMA` (from `environment`) when it is a
    /// PostgreSQL location that names no `schema=`: the rule ``resolve(_:schema:environment:)``
    /// applies to `--store`, for a location given by another option (`migrate`'s `--from` and
    /// `--to`).
    public func inDefaultSchema(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> StoreLocation {
        try inSchema(nil, otherwise: environment["EVTOOL_SCHEMA"].flatMap { $0.isEmpty ? nil : $0 })
    }

    /// The location in the schema `explicit` (it must agree with a `schema=` the location
    /// names), or, when neither names one, in `fallback`.
    package func inSchema(_ explicit: String?, otherwise fallback: String?) throws -> StoreLocation {
        switch self {
        case .sqlite:
            if let explicit {
                throw StoreLocationError.invalidLocation("--schema '\(explicit)' names a PostgreSQL schema, but the store \(self) is an SQLite file")
            }
            return self
        case .postgres(let url):
            let named = try Self.schemaParameter(in: url).schema
            if let explicit {
                guard !explicit.isEmpty else { throw StoreLocationError.invalidLocation("--schema is empty") }
                if let named, named != explicit {
                    throw StoreLocationError.invalidLocation("--schema '\(explicit)' and the store's 'schema=\(named)' name different schemas; give one")
                }
                return named == nil ? .postgres(url: Self.adding(schema: explicit, to: url)) : self
            }
            if named == nil, let fallback { return .postgres(url: Self.adding(schema: fallback, to: url)) }
            return self
        }
    }

    /// `url` with evtool's `schema=NAME` added (a query parameter of a URL, a keyword of a
    /// key/value string).
    static func adding(schema: String, to url: String) -> String {
        if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") {
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            let value = schema.addingPercentEncoding(withAllowedCharacters: allowed) ?? schema
            return url + (url.contains("?") ? "&" : "?") + "schema=" + value
        }
        let quoted = schema.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
        return url + " schema='" + quoted + "'"
    }

    /// Where the store is, for messages, with every password masked (``Redaction``).
    public var description: String {
        switch self {
        case .sqlite(let path): return Redaction.maskingPasswords(in: "sqlite:\(path)")
        case .postgres(let url): return Redaction.maskingPasswords(in: url)
        }
    }

    /// The connection string without evtool's own `schema=NAME` (a URL's query parameter or
    /// a key/value string's keyword; libpq would refuse it), and that schema (default `evtool`).
    public static func splittingSchema(from url: String) throws -> (url: String, schema: String) {
        let (connection, schema) = try schemaParameter(in: url)
        return (connection, schema ?? "evtool")
    }

    /// The connection string without `schema=NAME`, and the schema it named (nil when none).
    static func schemaParameter(in url: String) throws -> (url: String, schema: String?) {
        if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") {
            guard let question = url.firstIndex(of: "?") else { return (url, nil) }
            var schema: String?
            var kept: [Substring] = []
            for parameter in url[url.index(after: question)...].split(separator: "&") {
                if parameter.hasPrefix("schema=") {
                    schema = String(parameter.dropFirst("schema=".count)).removingPercentEncoding ?? ""
                    guard schema?.isEmpty == false else { throw StoreLocationError.invalidLocation("the store URL's 'schema=' is empty") }
                } else {
                    kept.append(parameter)
                }
            }
            let base = String(url[..<question])
            return (kept.isEmpty ? base : base + "?" + kept.joined(separator: "&"), schema)
        }
        var schema: String?
        var kept: [String] = []
        for (keyword, value, text) in KeyValueConnectionString.pairs(in: url) {
            if keyword == "schema" {
                guard !value.isEmpty else { throw StoreLocationError.invalidLocation("the store's 'schema=' is empty") }
                schema = value
            } else {
                kept.append(text)
            }
        }
        return (schema == nil ? url : kept.joined(separator: " "), schema)
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
        try open(create: create, partitionSize: nil)
    }

    /// Opens the store, making a new PostgreSQL store with the partitioned layout when
    /// `partitionSize` is given (partitions of that many positions; ``PostgresLayout``).
    /// - Throws: as ``open(create:)``; ``StoreLocationError/invalidLocation(_:)`` for a size and
    ///   a SQLite store (which has no partitions); ``EventStoreError/invalidInput(_:)`` for a
    ///   size and a PostgreSQL store that exists with the single-table layout.
    public func open(create: Bool, partitionSize: Int64?) throws -> any EventStore {
        switch self {
        case .sqlite where partitionSize != nil:
            throw StoreLocationError.invalidLocation("the store \(self) is SQLite, one table with no partitions: --partition-size is for a PostgreSQL store")
        case .sqlite(let path):
            var options = SQLiteEventStore.Options()
            options.createIfMissing = create
            options.pageCache = try Self.sqlitePageCache(path: path)
            return try SQLiteEventStore(path: path, options: options)
        case .postgres(let url):
            // The store installs (when `create`) or upgrades its schema on open.
            let (connection, schema) = try Self.splittingSchema(from: url)
            return try PostgresEventStore(url: connection, schema: schema, createIfMissing: create, partitionSize: partitionSize)
        }
    }
}
