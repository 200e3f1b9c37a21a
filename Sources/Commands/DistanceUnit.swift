/// The unit of a search distance.
public enum DistanceUnit: String, Sendable, Hashable, Codable, CaseIterable {
    case miles
    case km

    /// Parses the word a client sent.
    /// - Throws: ``CommandError/rejected(field:rule:)`` when it is neither `miles` nor `km`.
    public init(validating text: String) throws {
        guard let unit = DistanceUnit(rawValue: text) else {
            throw CommandError.rejected(field: "units", rule: "must be one of miles, km")
        }
        self = unit
    }
}
