import EventLog
import Foundation
import StoreLocations
import StorePostgres

/// A read store: a PostgreSQL hot standby of the store that reads may go to (`--read-store`,
/// `$EVTOOL_READ_STORE`, `evtool serve --read-store`), found and opened the same way by every
/// face of evtool. A read store must be a copy of the store itself: PostgreSQL, the same
/// cluster (its system identifier, which a standby made with `pg_basebackup` shares with its
/// primary), the same database and the same schema. Reads through it stay read-your-writes
/// (``ReplicaReads``).
public enum ReadStore {
    /// The read store named by `text` (a command's `--read-store`), else by
    /// `$EVTOOL_READ_STORE` in `environment` (when set and not empty); nil when neither.
    /// It is put in the store's schema unless it names one (or `schema`, a command's
    /// `--schema`, names it).
    /// - Throws: ``StoreLocationError/invalidLocation(_:)`` for a malformed location, a read
    ///   store that is an SQLite file, a store that is not PostgreSQL, or a read store in
    ///   another schema than the store.
    public static func resolve(_ text: String?, for store: StoreLocation, schema: String? = nil,
                               environment: [String: String] = ProcessInfo.processInfo.environment) throws -> StoreLocation? {
        let named: String
        if let text {
            named = text
        } else if let text = environment["EVTOOL_READ_STORE"], !text.isEmpty {
            named = text
        } else {
            return nil
        }
        let option = text == nil ? "$EVTOOL_READ_STORE" : "--read-store"
        let location = try StoreLocation(parsing: named)
        guard case .postgres = location else {
            throw StoreLocationError.invalidLocation("\(option) \(location) is an SQLite file; a read store is a PostgreSQL hot standby of the store (a postgres:// URL)")
        }
        guard case .postgres(let storeURL) = store else {
            throw StoreLocationError.invalidLocation("\(option) needs a PostgreSQL store, and the store \(store) is an SQLite file (an SQLite file has no standbys; leave \(option) out)")
        }
        let storeSchema = try StoreLocation.splittingSchema(from: storeURL).schema
        let placed = try location.inSchema(schema, otherwise: storeSchema)
        guard case .postgres(let readURL) = placed else { return placed }
        let readSchema = try StoreLocation.splittingSchema(from: readURL).schema
        guard readSchema == storeSchema else {
            throw StoreLocationError.invalidLocation("\(option) \(placed) names schema '\(readSchema)', and the store is in schema '\(storeSchema)'; a read store is a standby of the same store, in the same schema")
        }
        return placed
    }

    /// Opens the read store at `location` (creating nothing) and checks that it holds the same
    /// store as `primary`: the same cluster (system identifier), database and schema.
    /// - Parameter storeDescription: how messages name the store (``StoreLocation/description``).
    /// - Throws: ``StoreLocationError/invalidLocation(_:)`` naming what differs when it is
    ///   another store; ``StoreLocationError/unsupported(_:)`` when it cannot be opened
    ///   (unreachable, no store in the schema yet, an older schema version than this release
    ///   uses), saying it is the read store; ``EventStoreError`` when the store itself cannot
    ///   be reached.
    public static func open(_ location: StoreLocation, for primary: PostgresEventStore, storeDescription: String) throws -> PostgresEventStore {
        guard case .postgres(let url) = location else {
            throw StoreLocationError.invalidLocation("the read store \(location) is an SQLite file; a read store is a PostgreSQL hot standby of the store")
        }
        let replica: PostgresEventStore
        let theirs: PostgresStoreIdentity
        do {
            let (connection, schema) = try StoreLocation.splittingSchema(from: url)
            replica = try PostgresEventStore(url: connection, schema: schema, maximumIdleConnections: 4, notifiesFollowers: false, createIfMissing: false)
            theirs = try replica.identity()
        } catch let error as EventStoreError {
            let reason: String
            if case .unavailable(let text) = error { reason = text } else { reason = error.description }
            throw StoreLocationError.unsupported("the read store \(location) cannot be used: \(reason)")
        }
        let ours = try primary.identity()
        try check(theirs, of: location.description, against: ours, of: storeDescription)
        return replica
    }

    /// Refuses a read store whose identity is not the store's, naming what differs.
    static func check(_ theirs: PostgresStoreIdentity, of readDescription: String, against ours: PostgresStoreIdentity, of storeDescription: String) throws {
        let start = "the read store \(readDescription) is not a copy of the store \(storeDescription):"
        if theirs.systemIdentifier != ours.systemIdentifier {
            throw StoreLocationError.invalidLocation("\(start) its PostgreSQL system identifier is \(theirs.systemIdentifier) and the store's is \(ours.systemIdentifier) (another cluster; a hot standby made with pg_basebackup from the store's server has the same)")
        }
        if theirs.database != ours.database {
            throw StoreLocationError.invalidLocation("\(start) it is database '\(theirs.database)' and the store is database '\(ours.database)'")
        }
        if theirs.schema != ours.schema {
            throw StoreLocationError.invalidLocation("\(start) it is schema '\(theirs.schema)' and the store is schema '\(ours.schema)'")
        }
    }
}
