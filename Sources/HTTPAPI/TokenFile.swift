import EventLog
import Foundation

/// The bearer tokens a server accepts: one line per token, `ROLE SHA256-HEX [NAME]`, `#` for
/// comments. Only the SHA-256 of each token is stored; a token is shown once, when created.
package struct TokenFile: Sendable {
    /// One accepted token.
    package struct Entry: Sendable, Hashable {
        /// The token's role.
        package var role: Role
        /// SHA-256 of the token's text.
        package var digest: [UInt8]
        /// A name for people (which app or person holds it); may be empty.
        package var name: String
    }

    /// Why a token file cannot be used.
    package struct FileError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong, naming the file and line.
        package var description: String
        /// The system's error number when the file could not be opened, read or written; nil
        /// when the file is not a tokens file (its content or kind is refused).
        package var errorNumber: Int32?

        /// Makes the error.
        package init(description: String, errorNumber: Int32? = nil) {
            self.description = description
            self.errorNumber = errorNumber
        }
    }

    /// The tokens, in file order.
    package private(set) var entries: [Entry]

    /// Makes a token set from entries.
    package init(entries: [Entry]) { self.entries = entries }

    /// Parses a token file's text.
    /// - Throws: ``FileError`` naming the line that is not `ROLE SHA256-HEX [NAME]`.
    package init(parsing text: String, path: String) throws(FileError) {
        var entries: [Entry] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let fields = trimmed.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
            guard fields.count >= 2, let role = Role(rawValue: String(fields[0])) else {
                throw FileError(description: "\(path) line \(number + 1): expected 'ROLE SHA256-HEX [NAME]' with ROLE one of \(Role.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            guard let digest = Self.bytes(hexadecimal: String(fields[1])), digest.count == 32 else {
                throw FileError(description: "\(path) line \(number + 1): the token's SHA-256 must be 64 hex digits")
            }
            entries.append(Entry(role: role, digest: digest, name: fields.count > 2 ? String(fields[2]) : ""))
        }
        self.entries = entries
    }

    /// Reads a token file.
    /// - Throws: ``FileError`` when it cannot be read or a line is malformed.
    package static func load(path: String) throws(FileError) -> TokenFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FileError(description: "cannot read the tokens file '\(path)'")
        }
        return try TokenFile(parsing: String(decoding: data, as: UTF8.self), path: path)
    }

    /// The role of `token`, or nil when it is not one of the file's. Every stored digest is
    /// compared in full whatever matches, so the time taken does not tell which bytes matched.
    package func role(of token: String) -> Role? {
        var token = token
        let digest = token.withUTF8 { SHA256Hasher.digest(UnsafeRawBufferPointer($0)) }
        var found: Role?
        for entry in entries {
            var difference: UInt8 = 0
            for index in 0..<32 { difference |= entry.digest[index] ^ digest[index] }
            if difference == 0, found == nil { found = entry.role }
        }
        return found
    }

    /// A new random token: `evt_` and 64 hex digits (256 bits from the system's generator).
    package static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return "evt_" + hex(bytes)
    }

    /// The line that stores `token` with `role`.
    package static func line(for token: String, role: Role, name: String) -> String {
        let line = "\(role.rawValue) \(hex(SHA256Hasher.digest(Data(token.utf8))))"
        return name.isEmpty ? line : line + " " + name
    }

    /// The largest tokens file `append` reads to check (a million tokens' lines).
    static let maximumFileBytes = 128 * 1024 * 1024

    /// Appends a new token's line to the file at `path` (created with mode 0600). A file that
    /// exists must be a tokens file already (read and parsed first): a token line appended to a
    /// store or a key would damage it, and the server would refuse the file anyway.
    /// - Throws: ``FileError`` when the file is not a tokens file or cannot be written; then
    ///   nothing was added.
    package static func append(token: String, role: Role, name: String, to path: String) throws(FileError) {
        let descriptor = open(path, O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let number = errno
            if number == ELOOP { throw FileError(description: "cannot write the tokens file '\(path)': it is a symbolic link (give the file itself)") }
            throw FileError(description: "cannot write the tokens file '\(path)': \(String(cString: strerror(number)))", errorNumber: number)
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw FileError(description: "'\(path)' is not a plain file: a tokens file is one; nothing was added")
        }
        guard status.st_size <= maximumFileBytes else {
            throw FileError(description: "'\(path)' is \(status.st_size) bytes, larger than any tokens file evtool writes; nothing was added")
        }
        let size = Int(status.st_size)
        var existing = [UInt8](repeating: 0, count: size)
        var read = 0
        while read < size {
            let got = existing.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + read, size - read, off_t(read)) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { throw FileError(description: "cannot read the tokens file '\(path)': \(String(cString: strerror(errno)))", errorNumber: errno) }
            read += got
        }
        guard let text = String(validating: existing, as: UTF8.self) else {
            throw FileError(description: "'\(path)' is not a tokens file (it is not UTF-8 text); nothing was added")
        }
        do {
            _ = try TokenFile(parsing: text, path: path)
        } catch {
            throw FileError(description: "'\(path)' is not a tokens file (\(error.description)); nothing was added")
        }
        let separator = existing.isEmpty || existing.last == 0x0A ? "" : "\n"
        let bytes = Array((separator + line(for: token, role: role, name: name) + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count, fsync(descriptor) == 0 else {
            throw FileError(description: "cannot write the tokens file '\(path)': \(String(cString: strerror(errno)))", errorNumber: errno)
        }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes { text.append(digits[Int(byte >> 4)]); text.append(digits[Int(byte & 0xF)]) }
        return String(decoding: text, as: UTF8.self)
    }

    static func bytes(hexadecimal text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        func value(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        var result: [UInt8] = []
        var index = 0
        while index < utf8.count {
            guard let high = value(utf8[index]), let low = value(utf8[index + 1]) else { return nil }
            result.append(high << 4 | low)
            index += 2
        }
        return result
    }
}
