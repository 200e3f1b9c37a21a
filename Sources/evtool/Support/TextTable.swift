/// An aligned text table for people (data for scripts comes with --json).
struct TextTable {
    var headers: [String]
    var rows: [[String]] = []

    init(_ headers: String...) { self.headers = headers }

    /// Adds a row; each cell is shown escaped (``TerminalText/escaped(_:)``): cells hold what
    /// users typed, and a control, zero-width or bidirectional character must not reach the
    /// terminal raw.
    mutating func add(_ cells: String...) { rows.append(cells.map(TerminalText.escaped)) }

    /// The table's lines: a header, then one line per row, columns padded to the widest cell.
    var lines: [String] {
        var widths = headers.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count { widths[index] = max(widths[index], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            var text = ""
            for (index, cell) in cells.enumerated() {
                text += index == cells.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count + 2)
            }
            return text
        }
        return [line(headers)] + rows.map(line)
    }
}
