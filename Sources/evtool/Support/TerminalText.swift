import EventLog

/// Text from users or from the log as it may be printed for people: every character that
/// could drive a terminal or hide itself is shown as a visible escape.
enum TerminalText {
    /// `text` with line breaks and tabs as `\n`, `\r`, `\t`, and every other control, format
    /// (zero-width, byte-order mark, bidirectional controls), line or paragraph separator
    /// character as `\u{202E}` (``Identifier/isInvisible(_:)``; a zero width joiner between two
    /// emoji stays), so that what a table or an error line shows is what is stored, and no
    /// stored text can reorder, hide or recolour what follows it.
    /// Cost: O(characters); text without such characters comes back as it is.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: Identifier.isInvisible) else { return text }
        let scalars = Array(text.unicodeScalars)
        var line = ""
        for (index, scalar) in scalars.enumerated() {
            switch scalar {
            case "\n": line += "\\n"
            case "\r": line += "\\r"
            case "\t": line += "\\t"
            case Identifier.joiner where index > 0 && index + 1 < scalars.count
                && Identifier.isEmoji(scalars[index - 1]) && Identifier.isEmoji(scalars[index + 1]):
                line.unicodeScalars.append(scalar)
            case _ where Identifier.isInvisible(scalar):
                line += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: line.unicodeScalars.append(scalar)
            }
        }
        return line
    }
}
