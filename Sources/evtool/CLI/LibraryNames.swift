import StoreLocations
import Transfer

// The library types every subcommand uses, visible to each file of the command line without
// its own `import EvtoolKit` (a subcommand calls `StoreLocation.resolve(arguments).open(create:)`,
// reads export lines with `LogRecord.parse`).

/// The library's ``StoreLocations/StoreLocation``.
typealias StoreLocation = StoreLocations.StoreLocation
/// The library's ``Transfer/LogRecord``.
typealias LogRecord = Transfer.LogRecord
