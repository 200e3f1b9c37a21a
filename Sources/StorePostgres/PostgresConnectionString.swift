import CLibPQ
import Foundation

/// Checks connection strings the way libpq reads them, before any connection is tried.
public enum PostgresConnectionString {
    /// libpq's own reason why it cannot parse `conninfo` (a URL or a `key=value` string: an
    /// unknown parameter, a bad percent-escape, an unterminated quote), or nil when it can.
    ///
    /// Without this check such a string reaches `PQconnectStart`, whose error then reads as if
    /// the default server (`localhost:5432`) could not be reached.
    public static func problem(in conninfo: String) -> String? {
        var message: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(conninfo, &message) else {
            defer { if let message { PQfreemem(message) } }
            guard let message else { return "libpq cannot parse it (out of memory)" }
            return String(cString: message).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        PQconninfoFree(options)
        return nil
    }
}
