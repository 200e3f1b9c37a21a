import EventLog
import EvtoolKit
import Foundation
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
        #expect(throws: StoreLocationError.self) { try StoreLocation(parsing: "host=db password=s3cret") }
        #expect(throws: StoreLocationError.invalidLocation("the store URL's 'schema=' is empty")) {
            try StoreLocation.splittingSchema(from: "postgresql://app@db/evtool?schema=")
        }
        #expect(StoreLocation.postgres(url: "postgresql://app:s3cret@db/evtool").description == "postgresql://app:***@db/evtool")
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
