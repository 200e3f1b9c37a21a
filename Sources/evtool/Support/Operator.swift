/// Who runs an audit command (`forget --by`), as recorded in the log: never made up.
enum Operator {
    /// `--by` when given, else `$USER`; a usage error when neither names anyone (an empty or
    /// blank name included), so that the log never records "unknown".
    static func named(_ given: String?, environment: [String: String], command: CommandSpec) throws -> String {
        if let given {
            guard !given.allSatisfy(\.isWhitespace) else { throw CLIError.usage("'--by' must name who erases", command) }
            return given
        }
        if let user = environment["USER"], !user.allSatisfy(\.isWhitespace) { return user }
        throw CLIError.usage("say who erases with '--by OPERATOR' ($USER is not set)", command)
    }
}
