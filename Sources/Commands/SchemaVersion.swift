/// The `schemaVersion` member every event payload carries.
enum SchemaVersion {
    /// The JSON key.
    static let key = "schemaVersion"

    /// Reads the version from a payload's keyed container; a payload without one is version 1
    /// (the first release did not write it).
    /// - Throws: ``DomainEventError/newerSchema(type:found:supported:)`` above `current`, and
    ///   ``DomainEventError/malformed(type:reason:)`` below 1.
    static func read<Key: CodingKey>(from container: KeyedDecodingContainer<Key>, key: Key, type: String, current: Int) throws -> Int {
        let version = try container.decodeIfPresent(Int.self, forKey: key) ?? 1
        if version > current {
            throw DomainEventError.newerSchema(type: type, found: version, supported: current)
        }
        if version < 1 {
            throw DomainEventError.malformed(type: type, reason: "schemaVersion \(version) is below 1")
        }
        return version
    }
}
