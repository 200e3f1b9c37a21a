extension BinaryInteger {
    /// `1 event`, `2 events`, `1,000 events` (with `grouped`): a count and its noun, singular
    /// for exactly one.
    func counted(_ singular: String, plural: String? = nil, grouped: Bool = false) -> String {
        let number = grouped ? String(self).groupedThousands : String(self)
        return "\(number) \(self == 1 ? singular : plural ?? singular + "s")"
    }
}
