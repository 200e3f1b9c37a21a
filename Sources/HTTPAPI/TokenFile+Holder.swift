import EventLog
import Foundation

extension TokenFile {
    /// The entry whose hash is the token's (its role, the holder's name, a `user` token's
    /// user), found by the token's SHA-256 (``entry(digest:)``); nil for a token not in the file.
    package func entry(of token: String) -> Entry? {
        var token = token
        return entry(digest: token.withUTF8 { SHA256Hasher.digest(UnsafeRawBufferPointer($0)) })
    }
}
