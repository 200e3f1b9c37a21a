import EventLog

/// This release of evtool, as every face names it (`evtool --version`, error messages).
public enum Release {
    /// The release number.
    public static let number = "0.1.0"

    /// A store error as evtool words it for a user: a store written by a newer evtool names
    /// its schema version, this release and the schema version it supports.
    public static func describe(_ error: EventStoreError) -> String {
        guard case let .newerSchema(found, supported) = error else { return error.description }
        return "the store was written by a newer evtool: it has schema version \(found), and this evtool (\(number)) supports up to schema version \(supported); upgrade evtool"
    }
}
