import Foundation
import Projections
import StoreLocations

/// The options many commands share, declared once: the store, the user, `--as-of`, times,
/// `--json`, `--quiet`.
enum SharedOptions {
    /// `--store STORE`, parsed as a ``StoreLocations/StoreLocation`` (absent: `$EVTOOL_STORE`, else
    /// ./evtool.sqlite, through ``StoreLocations/StoreLocation/resolve(_:)``).
    static let store = storeLocation(
        "store", help: "sqlite:PATH, a file path, or a postgres:// URL (default: $EVTOOL_STORE, else ./evtool.sqlite)")

    /// `--schema NAME`: the PostgreSQL schema that holds the store, so a location pastes into
    /// `psql` unchanged (else the location's `schema=`, else `$EVTOOL_SCHEMA`, else `evtool`).
    /// Every command that takes `--store` takes it (``CommandSpec/allOptions``).
    static let schema = CommandSpec.Option(
        name: "schema", value: "NAME", help: "The PostgreSQL schema of the store (default: the location's schema=, else $EVTOOL_SCHEMA, else evtool)")

    /// `--read-store STORE`: a PostgreSQL hot standby of the store that a reading command (and
    /// `evtool serve`) reads from, read-your-writes (absent: `$EVTOOL_READ_STORE`, else none;
    /// ``ReadStore/resolve(_:for:schema:environment:)``).
    static let readStore = TypedOption<StoreLocation>(
        name: "read-store", value: "URL", help: "Read from this PostgreSQL hot standby of the store, read-your-writes: a read the standby cannot answer as of what the store acknowledged within 0.5 s goes to the store (default: $EVTOOL_READ_STORE)",
        completion: OptionCompletion.none, parse: { text in
            do {
                return try StoreLocation(parsing: text)
            } catch let error as StoreLocationError {
                throw OptionValueError(message: "--read-store: " + error.description, code: CLIError(error).code)
            }
        })

    /// A store-location option (`--store`, and `migrate`'s `--from` and `--to`).
    static func storeLocation(_ name: String, help: String) -> TypedOption<StoreLocation> {
        TypedOption(name: name, value: "STORE", help: help, completion: .file, parse: { text in
            do {
                return try StoreLocation(parsing: text)
            } catch let error as StoreLocationError {
                throw OptionValueError(message: error.description, code: CLIError(error).code)
            }
        })
    }

    /// `--user ID`: whose stream a command acts on or reads (`help` says which).
    static func user(help: String) -> TypedOption<String> { .text("user", value: "ID", help: help) }

    /// `--as-of POSITION|TIME`: a view as it was at a log position or a time.
    static let asOf = TypedOption<AsOf>(
        name: "as-of", value: "POSITION|TIME", help: "Show the view as it was at a log position or a time (e.g. 2026-03-01)",
        parse: { text in try TimeArgument.parseAsOf(text) })

    /// A time option such as `--since TIME`.
    static func time(_ name: String, help: String) -> TypedOption<Date> {
        TypedOption(name: name, value: "TIME", help: help, parse: { text in try TimeArgument.parseTime(text, option: name) })
    }

    /// `--json`: print JSON instead of a table.
    static let json = CommandSpec.Option(name: "json", value: nil, help: "Print JSON instead of a table")

    /// `-q`, `--quiet`: no progress and no messages on standard error other than errors.
    static let quiet = CommandSpec.Option(name: "quiet", short: "q", value: nil, help: "Print no progress and no messages, only errors and the result")
}
