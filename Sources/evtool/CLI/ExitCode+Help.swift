import Foundation

extension ExitCode {
    /// ``documentation`` folded to `width`: each code's text refolded under its column.
    static func documentation(width: Int) -> String {
        var entries: [(code: String, text: String)] = []
        var heading = ""
        for line in documentation.split(separator: "\n") {
            let trimmed = line.drop(while: { $0 == " " })
            let indent = line.count - trimmed.count
            if indent == 0 {
                heading = String(line)
            } else if indent == 2, let code = trimmed.split(separator: " ").first {
                entries.append((String(code), trimmed.dropFirst(code.count).trimmingCharacters(in: .whitespaces)))
            } else if !entries.isEmpty {
                entries[entries.count - 1].text += " " + trimmed
            }
        }
        return ([heading] + entries.map { TextWrap.columns("  " + $0.code, $0.text, column: 6, width: width) }).joined(separator: "\n")
    }
}
