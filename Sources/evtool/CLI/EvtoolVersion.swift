import Commands
import EventLog
import JSONKit
import StorePostgres
import StoreSQLite
import Transfer

/// What `evtool --version` and `evtool version` report: this release, the commit it was built
/// from, the C libraries it runs on, the schema versions it writes, and the layouts a new
/// PostgreSQL store can have (`evtool stats` says which one a store has).
enum EvtoolVersion {
    static let number = Release.number

    /// The git commit of the build (``BuildCommit``, written by the BuildCommit plugin), or "unknown".
    static var commit: String { BuildCommit.hash }

    /// The payload schema version written for each event type, and for the metadata.
    static let eventSchemas: [(type: String, version: Int)] = [
        (Searched.typeName, Searched.schemaVersion), (Favorited.typeName, Favorited.schemaVersion),
        (Unfavorited.typeName, Unfavorited.schemaVersion), (DetailsViewed.typeName, DetailsViewed.schemaVersion),
        ("metadata", EventMetadata.schemaVersion),
    ]

    /// The report as lines for people.
    static var text: String {
        """
        evtool \(number)
        commit            \(commit)
        SQLite            \(SQLiteEventStore.libraryVersion)
        libpq             \(PostgresEventStore.libraryVersion)
        SQLite store      schema version \(SQLiteEventStore.schemaVersion)
        PostgreSQL store  schema version \(PostgresEventStore.supportedSchemaVersion)
        layouts           \(PostgresLayout.singleTable) (a new PostgreSQL store's default), partitioned by position (init --partition-size N)
        events            \(eventSchemas.map { "\($0.type) \($0.version)" }.joined(separator: ", "))
        """
    }

    /// The report as one JSON object.
    static var json: String {
        JSONOutput.object { writer in
            writer.key("version"); writer.string(number)
            writer.key("commit"); writer.string(commit)
            writer.key("libraries"); writer.beginObject()
            writer.key("sqlite"); writer.string(SQLiteEventStore.libraryVersion)
            writer.key("libpq"); writer.string(PostgresEventStore.libraryVersion)
            writer.endObject()
            writer.key("schemas"); writer.beginObject()
            writer.key("sqlite"); writer.number(SQLiteEventStore.schemaVersion)
            writer.key("postgres"); writer.number(PostgresEventStore.supportedSchemaVersion)
            writer.key("events"); writer.beginObject()
            for schema in eventSchemas { writer.key(escaping: schema.type); writer.number(schema.version) }
            writer.endObject()
            writer.endObject()
            writer.key("postgresLayouts"); writer.beginObject()
            writer.key("default"); writer.string(PostgresLayout.singleTable.name)
            writer.key("available"); writer.beginArray()
            writer.string(PostgresLayout.singleTable.name)
            writer.string(PostgresLayout.partitioned(partitions: 0, size: 0).name)
            writer.endArray()
            writer.endObject()
        }
    }
}

extension EvtoolVersion {
    /// A store error as the command line words it: a store written by a newer evtool names
    /// the store's schema version, this evtool's version and the schema version it supports.
    static func describe(_ error: EventStoreError) -> String { Release.describe(error) }
}
