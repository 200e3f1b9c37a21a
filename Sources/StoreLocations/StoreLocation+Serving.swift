import EventLog
import StorePostgres

extension StoreLocation {
    /// Opens the store for a server (as ``openForViews(create:)``) whose threads use it at
    /// once: a PostgreSQL store keeps up to `connections` connections open between calls, so
    /// that each concurrent request finds an idle one instead of opening its own.
    public func openForServing(create: Bool, connections: Int) throws -> any EventStore & ProjectionStore {
        guard case .postgres(let url) = self else { return try openForViews(create: create) }
        let (connection, schema) = try Self.splittingSchema(from: url)
        return try PostgresEventStore(url: connection, schema: schema, maximumIdleConnections: max(1, connections), createIfMissing: create)
    }
}
