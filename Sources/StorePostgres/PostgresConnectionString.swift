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

    /// The server and database `conninfo` names, as libpq would connect: each of host (or
    /// socket directory), port and database from the string, else from libpq's environment
    /// variables and defaults (`PGHOST`, `PGPORT`, `PGDATABASE`, the user's name); loopback
    /// hosts (`localhost`, `127.0.0.1`, `::1`) and an empty host (the local socket) read alike.
    /// Nil when libpq cannot parse the string.
    public static func server(of conninfo: String) -> (host: String, port: String, database: String)? {
        func values(_ options: UnsafeMutablePointer<PQconninfoOption>) -> [String: String] {
            var found: [String: String] = [:]
            var option = options
            while let keyword = option.pointee.keyword {
                if let value = option.pointee.val, value.pointee != 0 { found[String(cString: keyword)] = String(cString: value) }
                option += 1
            }
            return found
        }
        guard let parsed = PQconninfoParse(conninfo, nil) else { return nil }
        defer { PQconninfoFree(parsed) }
        let given = values(parsed)
        var defaults: [String: String] = [:]
        if let fallback = PQconndefaults() {
            defaults = values(fallback)
            PQconninfoFree(fallback)
        }
        func value(_ keyword: String) -> String? { given[keyword] ?? defaults[keyword] }
        let loopback: Set<String> = ["", "localhost", "127.0.0.1", "::1", "/var/run/postgresql", "/run/postgresql", "/tmp"]
        var host = (given["hostaddr"] ?? value("host") ?? "").lowercased()
        if loopback.contains(host) { host = "localhost" }
        let user = value("user") ?? ProcessInfo.processInfo.environment["USER"] ?? ""
        return (host, value("port") ?? "5432", value("dbname") ?? user)
    }
}
