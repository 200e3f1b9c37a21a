extension String {
    /// "1234567" → "1,234,567".
    var groupedThousands: String {
        let digits = Array(self)
        var result = ""
        for (index, character) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0, character != "-" { result.append(",") }
            result.append(character)
        }
        return result
    }
}
