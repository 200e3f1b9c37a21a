/// What a shell offers when completing an option's value (``CompletionScript``).
enum OptionCompletion: Sendable, Equatable {
    /// Nothing in particular (an id, a number, free text).
    case none
    /// File names.
    case file
    /// Folder names.
    case directory
    /// One of these words.
    case values([String])

    /// A guess from the placeholder: `FILE`, `PATH`, `STORE`, `KEY` and `*.pem` complete file
    /// names, `DIR` folders, and a lower-case list such as `on|off` its words.
    static func guess(placeholder: String?) -> OptionCompletion {
        guard let placeholder else { return .none }
        if ["FILE", "PATH", "STORE", "KEY", "CHECKPOINT"].contains(placeholder) || placeholder.hasSuffix(".pem") { return .file }
        if placeholder == "DIR" { return .directory }
        if placeholder.contains("|"), placeholder == placeholder.lowercased() {
            return .values(placeholder.split(separator: "|").map(String.init))
        }
        return .none
    }
}
