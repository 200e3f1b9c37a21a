import EvtoolKit

extension EvtoolKit.StoreLocation {
    /// The store named by a command's `--store`, else `$EVTOOL_STORE`, else the default
    /// (``EvtoolKit/StoreLocation/resolve(_:environment:)``).
    static func resolve(_ arguments: ParsedArguments) throws -> StoreLocation {
        if let given = try arguments.value(SharedOptions.store) { return given }
        return try resolve(nil)
    }
}
