import Foundation

/// The process's arguments as the kernel gave them. Swift's `CommandLine.arguments` replaces
/// bytes that are not UTF-8 with U+FFFD, so `ad\xFFa` and `ad\xFEa` would both be `ad�a`: two
/// users in one stream, or a store path that names another file. evtool refuses such an
/// argument instead, naming it with its bytes escaped.
enum RawArguments {
    /// The arguments after the program's name, or the usage error for the first one that is
    /// not UTF-8.
    static func process() -> Result<[String], CLIError> {
        var arguments: [String] = []
        for index in stride(from: 1, to: Int(CommandLine.argc), by: 1) {   // argc may be 0 (execve with no argv)
            guard let pointer = CommandLine.unsafeArgv[index] else { break }
            guard let text = String(validatingCString: pointer) else {
                let bytes = Array(UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer)))
                return .failure(notUTF8(bytes, after: arguments.last))
            }
            arguments.append(text)
        }
        return .success(arguments)
    }

    /// The error for an argument whose `bytes` are not UTF-8; `previous` is the argument before
    /// it (its option, when it is one).
    static func notUTF8(_ bytes: [UInt8], after previous: String?) -> CLIError {
        let shown = escaped(bytes)
        let option: String
        if shown.hasPrefix("--"), let equals = shown.firstIndex(of: "=") {
            option = " (the value of '\(shown[..<equals])')"
        } else if let previous, previous.hasPrefix("-"), !previous.contains("=") {
            option = " (the value of '\(previous)')"
        } else {
            option = ""
        }
        return CLIError.usage("the argument '\(shown)'\(option) is not valid UTF-8; evtool takes its arguments as UTF-8 text (nothing was done)", nil)
    }

    /// Printable ASCII as it is, every other byte as `\xHH`, a backslash as `\\`.
    static func escaped(_ bytes: [UInt8]) -> String {
        var text = ""
        for byte in bytes {
            if byte == 0x5C { text += "\\\\" } else if (0x20..<0x7F).contains(byte) { text.append(Character(Unicode.Scalar(byte))) } else { text += String(format: "\\x%02X", byte) }
        }
        return text
    }
}
