import EventLog
import EvtoolKit
import StoreLocations
import StorePostgres

extension ReadStore {
    /// The application a reading command reads through: over the store (`--store`, opened
    /// without creating anything), with the read store of `--read-store` or
    /// `$EVTOOL_READ_STORE` when one is named (``EvtoolKit/ReadStore``).
    ///
    /// A read store that is malformed, an SQLite file, for an SQLite store, in another schema,
    /// or another store (cluster, database or schema) is refused (exit 64, naming what is
    /// wrong); one that cannot be reached or opened now is left out with one line on standard
    /// error, and the store answers (it is always current).
    static func application(_ arguments: ParsedArguments, console: inout Console) throws -> (application: Application, location: StoreLocation) {
        let location = try StoreLocation.resolve(arguments)
        _ = try arguments.value(SharedOptions.readStore)   // checked when parsed; resolved again with the schema
        let readLocation = try resolve(arguments.value("read-store"), for: location, schema: arguments.value("schema"))
        let store = try location.openForViews()
        guard let readLocation, let primary = store as? PostgresEventStore else { return (Application(store: store), location) }
        do {
            let replica = try open(readLocation, for: primary, storeDescription: location.description)
            return (Application(store: primary, readStore: replica), location)
        } catch StoreLocationError.unsupported(let reason) {
            console.message("evtool: \(reason); reading from the store \(location)")
            return (Application(store: store), location)
        }
    }
}
