/// The categories a search can be narrowed to; the raw values are the words the apps show.
public enum SearchCategory: String, Sendable, Hashable, Codable, CaseIterable {
    case all = "All"
    case music = "Music"
    case sports = "Sports"
    case artsAndTheatre = "Arts & Theatre"
    case film = "Film"
    case miscellaneous = "Miscellaneous"

    /// Parses the word a client sent.
    /// - Throws: ``CommandError/rejected(field:rule:)`` when it is not one of the list.
    public init(validating text: String) throws {
        guard let category = SearchCategory(rawValue: text) else {
            let words = SearchCategory.allCases.map(\.rawValue).joined(separator: ", ")
            throw CommandError.rejected(field: "category", rule: "must be one of \(words)")
        }
        self = category
    }
}
