/// Counts as people read them, for every face's messages (the command line, the server's
/// answers and audit lines, the benchmark's tables): one wording wherever a count is shown.
extension BinaryInteger {
    /// `1 event`, `2 events`, `1,902 events`: a count and its noun, singular for exactly one,
    /// its thousands grouped as everywhere a person reads a count (`grouped: false` for a
    /// count that is also an identifier, such as a line number).
    public func counted(_ singular: String, plural: String? = nil, grouped: Bool = true) -> String {
        let number = grouped ? String(self).groupedThousands : String(self)
        return "\(number) \(self == 1 ? singular : plural ?? singular + "s")"
    }
}

extension String {
    /// "1234567" → "1,234,567".
    public var groupedThousands: String {
        let digits = Array(self)
        var result = ""
        for (index, character) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0, character != "-" { result.append(",") }
            result.append(character)
        }
        return result
    }
}
