import Foundation
import HTTPAPI
import Testing

/// The tokens file's `user:USER-ID` lines: any user id round-trips (stored in NFC,
/// percent-encoded), the files of the other roles read as they always did, and a malformed
/// user line is an error naming the file and its line.
@Suite("Token file")
struct TokenFileTests {
    static let digest = String(repeating: "ab", count: 32)

    @Test("a user token's line round-trips any user id, in NFC", arguments: [
        "ada", "a b", "x:y:z", "100%", "%41", "jos\u{E9}", "jose\u{301}", "日本語 ユーザー", "+plus&amp;", "#not-a-comment", "tab\u{A0}nbsp", "🙂", "a/b",
        String(repeating: "é", count: 100),
    ])
    func roundTrip(user: String) throws {
        let token = TokenFile.newToken()
        let stored = try TokenFile.userID(user)
        #expect(Array(stored.utf8) == Array(user.precomposedStringWithCanonicalMapping.utf8), "NFC")
        let line = TokenFile.line(for: token, role: .user, user: stored, name: "the phone of \(user)")
        #expect(line.hasPrefix("user:") && !line.dropFirst(5).prefix { $0 != " " }.contains(":"), "the id is one field: \(line)")
        let file = try TokenFile(parsing: "# tokens\n" + line + "\n", path: "tokens.txt")
        let entry = try #require(file.entry(of: token))
        let bound = try #require(entry.user)
        #expect(entry.role == .user && Array(bound.utf8) == Array(stored.utf8) && entry.name == "the phone of \(user)")
        #expect(file.role(of: token) == .user && file.entry(of: token + "x") == nil)
    }

    @Test("a hand-written line in NFD is read in NFC; the other roles' lines are read as before, with no user")
    func handWritten() throws {
        let text = """
            app \(Self.digest) ios back end
            user:jose%CC%81 \(Self.digest.uppercased())
            auditor \(Self.digest)
            user:ada \(Self.digest) ada's phone
            admin \(Self.digest) ops
            """
        let file = try TokenFile(parsing: text, path: "tokens.txt")
        #expect(file.entries.map(\.role) == [.app, .user, .auditor, .user, .admin])
        #expect(file.entries.map { $0.user.map { Array($0.utf8) } } == [nil, Array("jos\u{E9}".utf8), nil, Array("ada".utf8), nil])
        #expect(file.entries.map(\.name) == ["ios back end", "", "", "ada's phone", "ops"])
    }

    @Test("a malformed user line is refused, naming the file and line", arguments: [
        ("user \(digest)", "a user token's line is 'user:USER-ID SHA256-HEX [NAME]'"),
        ("user: \(digest)", "user id must not be empty"),
        ("user:%ZZ \(digest)", "must be percent-encoded UTF-8"),
        ("user:%4 \(digest)", "must be percent-encoded UTF-8"),
        ("user:%FF%FE \(digest)", "must be percent-encoded UTF-8"),
        ("user:a%00b \(digest)", "user id must not contain control characters"),
        ("user:a%E2%80%8Bb \(digest)", "user id must not contain"),
        ("user:\(String(repeating: "x", count: 201)) \(digest)", "user id must be at most 200 bytes"),
        ("user:ada", "a user token's line is 'user:USER-ID SHA256-HEX [NAME]'"),
        ("user:ada 00", "the token's SHA-256 must be 64 hex digits"),
        ("app:ada \(digest)", "expected 'ROLE SHA256-HEX [NAME]' with ROLE one of app, auditor, admin or user:USER-ID"),
        ("users:ada \(digest)", "expected 'ROLE SHA256-HEX [NAME]'"),
    ])
    func malformed(line: String, message: String) throws {
        let text = "# ours\napp \(Self.digest) backend\n\(line)\n"
        let error = try #require(throws: TokenFile.FileError.self) { try TokenFile(parsing: text, path: "/etc/evtool/tokens.txt") }
        #expect(error.description.hasPrefix("/etc/evtool/tokens.txt line 3: ") && error.description.contains(message), "\(error.description)")
    }

    @Test("append binds a user token to its user in NFC, and refuses a user for the other roles or none for role user")
    func appending() throws {
        let directory = NSTemporaryDirectory() + "evtool-tokens-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/tokens.txt"
        let token = TokenFile.newToken()
        try TokenFile.append(token: token, role: .user, user: "Zoe\u{308} M", name: "zoë's phone", to: path)
        #expect(throws: TokenFile.FileError.self) { try TokenFile.append(token: TokenFile.newToken(), role: .app, user: "ada", name: "", to: path) }
        #expect(throws: TokenFile.FileError.self) { try TokenFile.append(token: TokenFile.newToken(), role: .user, user: nil, name: "", to: path) }
        #expect(throws: TokenFile.FileError.self) { try TokenFile.append(token: TokenFile.newToken(), role: .user, user: "", name: "", to: path) }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix("user:Zo%C3%AB%20M ") && text.hasSuffix(" zoë's phone\n") && text.split(separator: "\n").count == 1, "\(text)")
        let entry = try #require(try TokenFile.load(path: path).entry(of: token))
        #expect(entry.role == .user && entry.user.map { Array($0.utf8) } == Array("Zo\u{EB} M".utf8))
    }
}
