import EventLog
import Foundation
import StoreLocations
import TestSupport
import Testing

/// The library's store locations, as every face parses and opens them.
@Suite("EvtoolKit: store locations")
struct StoreLocationTests {
    @Test("parsing: sqlite:PATH, a bare path, postgres URLs; the option wins over $EVTOOL_STORE, which wins over the default")
    func parsing() throws {
        #expect(try StoreLocation(parsing: "sqlite:/tmp/a.sqlite") == .sqlite(path: "/tmp/a.sqlite"))
        #expect(try StoreLocation(parsing: "/tmp/a.sqlite") == .sqlite(path: "/tmp/a.sqlite"))
        #expect(try StoreLocation(parsing: "postgresql://app@db/evtool") == .postgres(url: "postgresql://app@db/evtool"))
        let environment = ["EVTOOL_STORE": "sqlite:/tmp/env.sqlite"]
        #expect(try StoreLocation.resolve("sqlite:/tmp/option.sqlite", environment: environment) == .sqlite(path: "/tmp/option.sqlite"))
        #expect(try StoreLocation.resolve(nil, environment: environment) == .sqlite(path: "/tmp/env.sqlite"))
        #expect(try StoreLocation.resolve(nil, environment: ["EVTOOL_STORE": ""]) == StoreLocation.defaultLocation)
        #expect(try StoreLocation.resolve(nil, environment: [:]) == StoreLocation.defaultLocation)
    }

    @Test("malformed locations are invalidLocation errors with the command line's messages; a password never shows")
    func malformed() throws {
        let cases: [(String, String)] = [
            ("", "the store is empty; give sqlite:PATH, a file path, or a postgres:// URL"),
            ("sqlite:", "store 'sqlite:' needs a file path, e.g. sqlite:./evtool.sqlite"),
            ("mysql://db/app", "unknown store URL scheme in 'mysql://…'; use sqlite:PATH or postgres://"),
        ]
        for (text, message) in cases {
            #expect(throws: StoreLocationError.invalidLocation(message)) { try StoreLocation(parsing: text) }
        }
        #expect(throws: StoreLocationError.invalidLocation("the store URL's 'schema=' is empty")) {
            try StoreLocation.splittingSchema(from: "postgresql://app@db/evtool?schema=")
        }
        #expect(StoreLocation.postgres(url: "postgresql://app:s3cret@db/evtool").description == "postgresql://app:***@db/evtool")
    }

    @Test("libpq's forms: key/value strings and service names are PostgreSQL locations; what libpq cannot parse is refused with libpq's reason")
    func libpqForms() throws {
        #expect(try StoreLocation(parsing: "host=db dbname=app") == .postgres(url: "host=db dbname=app"))
        #expect(try StoreLocation(parsing: "service=evtool") == .postgres(url: "service=evtool"))
        #expect(try StoreLocation(parsing: " dbname = 'my app' user=ada") == .postgres(url: " dbname = 'my app' user=ada"))
        let refused: [(String, String)] = [
            ("postgresql://app@db/evtool?foo=bar", #"invalid URI query parameter: "foo""#),
            ("postgresql://app@db/ev%zztool", #"invalid percent-encoded token: "ev%zztool""#),
            ("host=db flavour=mint", #"invalid connection option "flavour""#),
            ("host=db dbname='unterminated", "unterminated quoted string in connection info string"),
        ]
        for (text, reason) in refused {
            do {
                _ = try StoreLocation(parsing: text)
                Issue.record("'\(text)' was accepted")
            } catch let StoreLocationError.invalidLocation(message) {
                #expect(message.hasPrefix("the store '\(text)' is not a connection string libpq accepts: "), "\(message)")
                #expect(message.contains(reason), "\(message)")
                #expect(!message.contains("localhost:5432"), "\(message)")
            }
        }
        // evtool's schema= is taken out of both forms before libpq reads them.
        #expect(try StoreLocation.splittingSchema(from: "host=db schema=audit dbname=app") == ("host=db dbname=app", "audit"))
        #expect(try StoreLocation.splittingSchema(from: "host=db schema='my schema'") == ("host=db", "my schema"))
        #expect(try StoreLocation.splittingSchema(from: "postgresql://db/app?schema=audit&sslmode=disable") == ("postgresql://db/app?sslmode=disable", "audit"))
        #expect(try StoreLocation.splittingSchema(from: "dbname=app") == ("dbname=app", "evtool"))
    }

    @Test("a key/value string with $EVTOOL_SCHEMA opens the same PostgreSQL store as the URL with ?schema=")
    func keyValueOpensTheStore() throws {
        let url = try TestStores.postgresURL()
        let schema = TestStores.freshSchema()
        defer { TestStores.dropPostgres(url: url, schema: schema) }
        let components = try #require(URLComponents(string: url))
        let keyValue = "host=\(components.host ?? "localhost") port=\(components.port ?? 5432) user='\(components.user ?? "postgres")' dbname=\(components.path.dropFirst())"
        let written = try StoreLocation.resolve(keyValue, environment: ["EVTOOL_SCHEMA": schema]).open(create: true)
        _ = try written.append(ProposedEvent(type: "Searched", data: Data("{}".utf8), metadata: Data("{}".utf8)), to: "ada", expectedVersion: .noStream)
        let read = try StoreLocation.resolve(url + "?schema=" + schema, environment: [:]).open(create: false)
        #expect(try read.version(of: "ada") == 1)
        let bySchemaOption = try StoreLocation.resolve(keyValue, schema: schema, environment: [:]).open(create: false)
        #expect(try bySchemaOption.readAll(after: 0, limit: 10).map(\.streamID) == ["ada"])
    }

    @Test("the schema: --schema, else the location's schema=, else $EVTOOL_SCHEMA, else evtool; a conflict or a schema for SQLite is refused")
    func schemaChoice() throws {
        func schema(_ text: String?, _ option: String?, _ environment: [String: String]) throws -> String {
            guard case .postgres(let url) = try StoreLocation.resolve(text, schema: option, environment: environment) else {
                throw StoreLocationError.unsupported("not PostgreSQL")
            }
            return try StoreLocation.splittingSchema(from: url).schema
        }
        let url = "postgresql://app@db/evtool"
        #expect(try schema(url, nil, [:]) == "evtool")
        #expect(try schema(url, "audit", [:]) == "audit")
        #expect(try schema(url, nil, ["EVTOOL_SCHEMA": "tenant_7"]) == "tenant_7")
        #expect(try schema(url + "?schema=kept", nil, ["EVTOOL_SCHEMA": "tenant_7"]) == "kept")
        #expect(try schema(url + "?schema=kept", "kept", [:]) == "kept")
        #expect(try schema("host=db dbname=app", "a b", [:]) == "a b")
        #expect(try schema("host=db dbname=app", "it's", [:]) == "it's")
        #expect(try schema(url, "a&b=c", [:]) == "a&b=c")
        #expect(try schema(nil, "audit", ["EVTOOL_STORE": url]) == "audit")
        #expect(throws: StoreLocationError.invalidLocation("--schema 'audit' and the store's 'schema=kept' name different schemas; give one")) {
            try StoreLocation.resolve(url + "?schema=kept", schema: "audit", environment: [:])
        }
        #expect(throws: StoreLocationError.invalidLocation("--schema 'audit' names a PostgreSQL schema, but the store sqlite:/tmp/a.sqlite is an SQLite file")) {
            try StoreLocation.resolve("sqlite:/tmp/a.sqlite", schema: "audit", environment: [:])
        }
        // $EVTOOL_SCHEMA is a default for PostgreSQL locations only.
        #expect(try StoreLocation.resolve("sqlite:/tmp/a.sqlite", environment: ["EVTOOL_SCHEMA": "x"]) == .sqlite(path: "/tmp/a.sqlite"))
    }

    @Test("open: a missing SQLite file is unavailable without create and nothing is made; with create it is a store")
    func opening() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let location = try StoreLocation(parsing: "sqlite:\(directory.path)/new.sqlite")
        #expect(throws: EventStoreError.self) { try location.open(create: false) }
        #expect(!FileManager.default.fileExists(atPath: "\(directory.path)/new.sqlite"))
        let store = try location.openForViews(create: true)
        #expect(try store.headPosition() == 0)
        #expect(FileManager.default.fileExists(atPath: "\(directory.path)/new.sqlite"))
    }
}
