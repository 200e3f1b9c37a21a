import EventLog
import Foundation

extension TokenFile {
    /// The entry whose hash is the token's (its role and the holder's name), compared in
    /// constant time like ``role(of:)``; nil for a token not in the file.
    package func entry(of token: String) -> Entry? {
        let digest = SHA256Hasher.digest(Data(token.utf8))
        var found: Entry?
        for entry in entries {
            var difference: UInt8 = 0
            for index in 0..<32 { difference |= entry.digest[index] ^ digest[index] }
            if difference == 0, found == nil { found = entry }
        }
        return found
    }
}
