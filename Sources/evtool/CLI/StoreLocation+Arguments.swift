import StoreLocations

extension StoreLocations.StoreLocation {
    /// The store named by a command's `--store`, else `$EVTOOL_STORE`, else the default, in
    /// the schema of `--schema` (``StoreLocations/StoreLocation/resolve(_:schema:environment:)``).
    static func resolve(_ arguments: ParsedArguments) throws -> StoreLocation {
        _ = try arguments.value(SharedOptions.store)   // checked when parsed; the text is resolved again with the schema
        return try resolve(arguments.value("store"), schema: arguments.value("schema"))
    }
}
