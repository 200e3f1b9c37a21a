import Commands
import EventLog
import Foundation

/// The bearer tokens a server accepts: one line per token, `ROLE SHA256-HEX [NAME]`, `#` for
/// comments; a `user` token's ROLE is `user:` and the user id it is bound to, percent-encoded
/// (`user:jos%C3%A9%20m SHA256-HEX [NAME]`), so that any id (spaces, `:`, non-ASCII) fits in
/// one field. Only the SHA-256 of each token is stored; a token is shown once, when created.
package struct TokenFile: Sendable {
    /// One accepted token.
    package struct Entry: Sendable, Hashable {
        /// The token's role.
        package var role: Role
        /// SHA-256 of the token's text.
        package var digest: [UInt8]
        /// A name for people (which app or person holds it); may be empty.
        package var name: String
        /// The user a `user` token acts for, as recorded (``TokenFile/userID(_:)``: in NFC);
        /// nil for the other roles.
        package var user: String?

        /// Makes an entry; `user` is the bound user of a `user` token (nil for the others).
        package init(role: Role, digest: [UInt8], name: String, user: String? = nil) {
            self.role = role
            self.digest = digest
            self.name = name
            self.user = user
        }
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
    package private(set) var entries: [Entry] {
        didSet { index = Self.index(entries) }
    }
    /// Each entry's position in ``entries`` by its digest (the first of equal ones), so that a
    /// request finds its token in constant time however many tokens there are (one per user).
    private var index: [[UInt8]: Int]

    /// Makes a token set from entries.
    package init(entries: [Entry]) {
        self.entries = entries
        self.index = Self.index(entries)
    }

    private static func index(_ entries: [Entry]) -> [[UInt8]: Int] {
        var index: [[UInt8]: Int] = [:]
        for (position, entry) in entries.enumerated() where index[entry.digest] == nil { index[entry.digest] = position }
        return index
    }

    /// The entry whose digest is `digest`, or nil. Found by the SHA-256 of the token a client
    /// sent, so how long the lookup takes depends on that digest, never on how many of the
    /// token's bytes are right: it tells an attacker nothing that helps find a token.
    package func entry(digest: [UInt8]) -> Entry? { index[digest].map { entries[$0] } }

    /// Parses a token file's text.
    /// - Throws: ``FileError`` naming the line that is not `ROLE SHA256-HEX [NAME]` (or
    ///   `user:USER-ID SHA256-HEX [NAME]`).
    package init(parsing text: String, path: String) throws(FileError) {
        var entries: [Entry] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let fields = trimmed.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
            let place = "\(path) line \(number + 1)"
            let (roleText, userText) = Self.roleField(fields[0])
            guard fields.count >= 2, let role = Role(rawValue: roleText), (role == .user) == (userText != nil) else {
                if Role(rawValue: roleText) == .user {
                    throw FileError(description: "\(place): a user token's line is 'user:USER-ID SHA256-HEX [NAME]', the user id percent-encoded")
                }
                throw FileError(description: "\(place): expected 'ROLE SHA256-HEX [NAME]' with ROLE one of \(Self.roleNames)")
            }
            guard let digest = Self.bytes(hexadecimal: String(fields[1])), digest.count == 32 else {
                throw FileError(description: "\(place): the token's SHA-256 must be 64 hex digits")
            }
            var user: String?
            if let userText {
                guard let bytes = try? PathSegments.percentDecoded(Array(userText.utf8), what: "user id"),
                      let decoded = String(validating: bytes, as: UTF8.self) else {
                    throw FileError(description: "\(place): the user id after 'user:' must be percent-encoded UTF-8 ('%' and two hex digits for each byte but letters, digits and '-._~')")
                }
                do throws(FileError) {
                    user = try Self.userID(decoded)
                } catch {
                    throw FileError(description: "\(place): \(error.description)")
                }
            }
            entries.append(Entry(role: role, digest: digest, name: fields.count > 2 ? String(fields[2]) : "", user: user))
        }
        self.entries = entries
        self.index = Self.index(entries)
    }

    /// The roles' names, for the messages that list them.
    static var roleNames: String {
        Role.allCases.filter { $0 != .user }.map(\.rawValue).joined(separator: ", ") + " or user:USER-ID (the user id percent-encoded)"
    }

    /// A line's first field split at its first `:`: the role's name and, when there is a
    /// `:`, the (still percent-encoded) user id after it.
    static func roleField(_ field: Substring) -> (role: String, user: String?) {
        guard let colon = field.firstIndex(of: ":") else { return (String(field), nil) }
        return (String(field[..<colon]), String(field[field.index(after: colon)...]))
    }

    /// The user id a `user` token is bound to, for a user id as typed (a `--user` argument, a
    /// tokens file's line): checked and in NFC by the rule that names a user's stream for the
    /// API's routes (``Commands/Rules/userID(_:)``), so the token's user and a path's `{user}`
    /// compare equal however either was typed.
    /// - Throws: ``FileError`` naming the rule the id breaks (empty, too long, an invisible
    ///   or control character, one of evtool's own stream ids such as `$erasures`).
    package static func userID(_ typed: String) throws(FileError) -> String {
        do {
            return try Rules.userID(typed)
        } catch let error as CommandError {
            throw FileError(description: "\(error)")
        } catch {
            throw FileError(description: "the user id is refused: \(error)")
        }
    }

    /// Reads a token file.
    /// - Throws: ``FileError`` when it cannot be read or a line is malformed.
    package static func load(path: String) throws(FileError) -> TokenFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FileError(description: "cannot read the tokens file '\(path)'")
        }
        return try TokenFile(parsing: String(decoding: data, as: UTF8.self), path: path)
    }

    /// The role of `token`, or nil when it is not one of the file's (``entry(of:)``).
    package func role(of token: String) -> Role? { entry(of: token)?.role }

    /// A new random token: `evt_` and 64 hex digits (256 bits from the system's generator).
    package static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return "evt_" + hex(bytes)
    }

    /// The line that stores `token` with `role`; a `user` token's line names `user` (as
    /// recorded: ``userID(_:)``), percent-encoded, which only a `user` token has.
    package static func line(for token: String, role: Role, user: String? = nil, name: String) -> String {
        precondition((role == .user) == (user != nil), "a user token's line names its user, and only a user token's")
        let field = user.map { role.rawValue + ":" + PathSegments.encoded($0) } ?? role.rawValue
        let line = "\(field) \(hex(SHA256Hasher.digest(Data(token.utf8))))"
        return name.isEmpty ? line : line + " " + name
    }

    /// The largest tokens file `append` reads to check (a million tokens' lines).
    static let maximumFileBytes = 128 * 1024 * 1024

    /// Appends a new token's line to the file at `path` (created with mode 0600). A file that
    /// exists must be a tokens file already (read and parsed first): a token line appended to a
    /// store or a key would damage it, and the server would refuse the file anyway. A `user`
    /// token (`user` given, and only for it) is bound to that user, as recorded (``userID(_:)``).
    /// - Throws: ``FileError`` when the file is not a tokens file or cannot be written, or the
    ///   user id is refused; then nothing was added.
    package static func append(token: String, role: Role, user: String? = nil, name: String, to path: String) throws(FileError) {
        guard (role == .user) == (user != nil) else {
            throw FileError(description: role == .user ? "a user token needs the user it acts for" : "only a user token is bound to a user")
        }
        let user = try user.map { (typed) throws(FileError) in try userID(typed) }
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
        let bytes = Array((separator + line(for: token, role: role, user: user, name: name) + "\n").utf8)
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
