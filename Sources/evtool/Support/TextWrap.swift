import Foundation

/// Help text folded to a width at spaces (a word longer than the width keeps its line).
enum TextWrap {
    /// `text` as lines of at most `width` characters: the first starts with `prefix`, the
    /// others with `indent` spaces.
    static func lines(_ text: String, prefix: String = "", indent: Int, width: Int) -> [String] {
        let words = text.split(separator: " ", omittingEmptySubsequences: true)
        var lines: [String] = []
        var line = prefix
        var lineHasWord = false
        let continuation = String(repeating: " ", count: indent)
        for word in words {
            if lineHasWord, line.count + 1 + word.count > width {
                lines.append(line)
                line = continuation
                lineHasWord = false
            }
            line += (lineHasWord ? " " : "") + word
            lineHasWord = true
        }
        lines.append(line)
        return lines
    }

    /// A label and its description in two columns: the description starts at `column` (on
    /// the label's line, or after two spaces when the label is longer) and wraps under itself.
    static func columns(_ label: String, _ text: String, column: Int, width: Int) -> String {
        lines(text, prefix: label.padded(to: column), indent: column, width: max(width, column + 20)).joined(separator: "\n")
    }

    /// Paragraphs separated by blank lines, each refolded to `width` (its line breaks become spaces).
    static func paragraphs(_ text: String, width: Int) -> String {
        text.components(separatedBy: "\n\n").map { paragraph in
            let joined = paragraph.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
            return lines(joined, indent: 0, width: width).joined(separator: "\n")
        }.joined(separator: "\n\n")
    }
}
