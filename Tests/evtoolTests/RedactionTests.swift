@testable import evtool
import Foundation
import StoreLocations
import TestSupport
import Testing

/// Passwords in every form libpq takes them never reach a printed line: the one masking
/// function, tested form by form, and the commands that print a location or an error.
@Suite("evtool: passwords are never printed")
struct RedactionTests {
    @Test("the masking function: userinfo, query parameters (percent-encoded too), key/value strings with quotes and spaces")
    func maskingFunction() {
        let cases: [(String, String)] = [
            ("postgres://app:s3cret@db:5432/evtool", "postgres://app:***@db:5432/evtool"),
            ("postgresql://app:s3cret@db/evtool?schema=x", "postgresql://app:***@db/evtool?schema=x"),
            ("postgresql://app:p@ss@db/evtool", "postgresql://app:***@db/evtool"),
            ("postgresql://app:%40s3cret@h1:5432,h2:5433/evtool", "postgresql://app:***@h1:5432,h2:5433/evtool"),
            ("postgresql://app@db/evtool", "postgresql://app@db/evtool"),
            ("postgresql://app:@db/evtool", "postgresql://app:***@db/evtool"),
            ("postgresql://db/evtool?password=s3cret", "postgresql://db/evtool?password=***"),
            ("postgresql://db/evtool?user=app&password=s3cret&schema=x", "postgresql://db/evtool?user=app&password=***&schema=x"),
            ("postgresql://db/evtool?%70assword=s3cret", "postgresql://db/evtool?%70assword=***"),
            ("postgresql://db/evtool?PASSWORD=s3cret", "postgresql://db/evtool?PASSWORD=***"),
            ("postgresql://db/evtool?sslpassword=s3cret&sslmode=require", "postgresql://db/evtool?sslpassword=***&sslmode=require"),
            ("postgresql://a:b@db/evtool?password=c", "postgresql://a:***@db/evtool?password=***"),
            ("host=db password=s3cret dbname=evtool", "host=db password=*** dbname=evtool"),
            ("host=db password = s3cret dbname=evtool", "host=db password = *** dbname=evtool"),
            ("password=s3cret", "password=***"),
            (#"host=db password='it\'s s3cret' user=app"#, "host=db password=*** user=app"),
            (#"host=db password='a\\' user=app"#, "host=db password=*** user=app"),
            ("host=db\tpassword=s3cret\nuser=app", "host=db\tpassword=***\nuser=app"),
            ("host=db sslpassword=s3cret", "host=db sslpassword=***"),
            ("no store at 'host=db password=s3cret' (the file does not exist)", "no store at 'host=db password=*** (the file does not exist)"),
            ("cannot connect to 'postgresql://app:s3cret@db/x': refused", "cannot connect to 'postgresql://app:***@db/x': refused"),
            ("sqlite:./evtool.sqlite", "sqlite:./evtool.sqlite"),
            ("passwords=none here, mypassword=x is another keyword", "passwords=none here, mypassword=x is another keyword"),
        ]
        for (text, expected) in cases {
            let masked = Redaction.maskingPasswords(in: text)
            #expect(masked == expected, "\(text)")
            #expect(!masked.contains("s3cret"), "\(text)")
        }
    }

    /// A URL to the test server carrying `secret` in every URL form (the server trusts local
    /// logins, so the passwords are sent and not needed).
    static func urlWithPasswords(schema: String, secret: String) throws -> String {
        let url = try TestStores.postgresURL()
        guard var components = URLComponents(string: url) else { throw CLIError(message: "bad test URL \(url)", code: .failure) }
        components.password = secret + "1"
        var items = components.queryItems ?? []
        items.append(URLQueryItem(name: "password", value: secret + "2"))
        items.append(URLQueryItem(name: "schema", value: schema))
        components.queryItems = items
        guard let text = components.string else { throw CLIError(message: "cannot build a URL from \(url)", code: .failure) }
        return text
    }

    @Test("stats, init, import, migrate and their progress lines show the location with every password masked")
    func printedLocations() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let url = try TestStores.postgresURL()
        let schema = TestStores.freshSchema(); defer { TestStores.dropPostgres(url: url, schema: schema) }
        let secret = "Hunter\(UInt32.random(in: 1_000...9_999))"
        let store = try Self.urlWithPasswords(schema: schema, secret: secret)
        let sqlite = "sqlite:\(directory.path)/source.sqlite"
        #expect(try CLI.bare("demo", "--users", "3", "--actions", "40", "--store", sqlite).status == 0)
        var results = [try CLI.bare("init", "--store", store)]
        results.append(try CLI.bare("migrate", "--from", sqlite, "--to", store))
        results.append(try CLI.bare("stats", "--store", store))
        results.append(try CLI.bare("stats", "--json", "--store", store))
        let exported = try CLI.bare("export", "--store", sqlite).output
        results.append(try CLI.bare("import", "-", "--store", store, input: exported))
        results.append(try CLI.bare("verify", "--store", store))
        for result in results {
            #expect(result.status == 0, "\(result)")
            #expect(!result.output.contains(secret) && !result.errors.contains(secret), "\(result)")
        }
        #expect(results[2].output.contains("store      postgresql://") && results[2].output.contains(":***@"), "\(results[2])")
        #expect(results[2].output.contains("password=***"), "\(results[2])")
        #expect(results[1].output.contains("to postgresql://") && results[1].output.contains("password=***"), "\(results[1])")
    }

    @Test("errors: an unreachable server, a key/value string, a quoted password: masked in every Error line; no file is made")
    func errorLines() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let secret = "Hunter\(UInt32.random(in: 1_000...9_999))"
        let stores = [
            "postgresql://app:\(secret)@127.0.0.1:1/evtool",
            "postgresql://app@127.0.0.1:1/evtool?password=\(secret)",
            "postgresql://127.0.0.1:1/evtool?user=app&%70assword=\(secret)&schema=x",
            "postgresql://app:\(secret)@127.0.0.1:1/evtool?schema=pg_catalog",
            "host=127.0.0.1 port=1 password=\(secret)",
            "host=127.0.0.1 password = '\(secret) with spaces'",
            "sqlite:/no/such/folder/password=\(secret)",
        ]
        for store in stores {
            for command in [["stats"], ["append", "--stream", "s", "--type", "T", "--data", "{}"], ["verify"]] {
                let result = try Processes.run("/bin/sh", ["-c", "cd \"$0\" && exec \"$@\"", directory.path, Processes.evtool] + command + ["--store", store])
                #expect(result.status != 0 && result.errors.hasPrefix("Error: "), "\(store) \(command): \(result)")
                #expect(!result.errors.contains(secret) && !result.output.contains(secret), "\(store) \(command): \(result)")
            }
            let migrate = try Processes.run(Processes.evtool, ["migrate", "--from", store, "--to", "sqlite:/nonexistent/x.sqlite"])
            #expect(!migrate.errors.contains(secret), "\(store): \(migrate)")
        }
        // A key/value string is a PostgreSQL location (libpq's form), never taken as a file name.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [], "a file was created")
        let keyValue = try Processes.run(Processes.evtool, ["stats", "--store", "host=127.0.0.1 port=1 password=\(secret) connect_timeout=2"])
        #expect(keyValue.status == 69, "\(keyValue)")
        #expect(keyValue.errors.hasPrefix("Error: the store is unavailable: cannot connect to 127.0.0.1:1"), "\(keyValue)")
        // One libpq cannot parse is a usage error with libpq's reason, the password masked.
        let unparsable = try Processes.run(Processes.evtool, ["stats", "--store", "host=db password=\(secret) flavour=mint"])
        #expect(unparsable.status == 64, "\(unparsable)")
        #expect(unparsable.errors.hasPrefix("Error: the store 'host=db password=*** flavour=mint' is not a connection string libpq accepts: invalid connection option \"flavour\""), "\(unparsable)")
        #expect(!unparsable.errors.contains(secret), "\(unparsable)")
    }
}
