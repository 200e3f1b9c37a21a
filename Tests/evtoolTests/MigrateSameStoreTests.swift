import Foundation
import StoreLocations
import TestSupport
import Testing

/// `evtool migrate` refuses a target that is its source however the two are written: the same
/// SQLite file by another path (relative, absolute, `./`, through a symlink or a hard link), the
/// same PostgreSQL server, database and schema by another spelling.
@Suite("migrate: the same store by another name")
struct MigrateSameStoreTests {
    @Test("SQLite: ./m.sqlite, an absolute path, a symlink and a hard link to m.sqlite are refused (exit 64, both named); another file is not")
    func sqliteSpellings() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let cli = CLI(store: "sqlite:\(directory.path)/m.sqlite", directory: directory.path)
        #expect(try cli.run("search", "--user", "ada", "--keyword", "jazz", "--location", "Chicago").status == 0)
        let before = try cli.run("export").output
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/link.sqlite", withDestinationPath: directory.path + "/m.sqlite")
        try FileManager.default.createDirectory(atPath: directory.path + "/sub", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/dirlink", withDestinationPath: directory.path)
        try FileManager.default.linkItem(atPath: directory.path + "/m.sqlite", toPath: directory.path + "/hard.sqlite")
        for target in ["./m.sqlite", "sqlite:./m.sqlite", directory.path + "/m.sqlite", "link.sqlite", "sub/../m.sqlite",
                       directory.path + "/dirlink/m.sqlite", "hard.sqlite"] {
            let result = try Processes.run("/usr/bin/env", ["-C", directory.path, Processes.evtool, "migrate", "--from", "m.sqlite", "--to", target])
            #expect(result.status == 64, "\(target): \(result)")
            #expect(result.errors.contains("'--from' sqlite:m.sqlite and '--to' ") && result.errors.contains(" name the same store"), "\(target): \(result)")
            #expect(result.output.isEmpty, "\(target): \(result)")
        }
        #expect(try cli.run("export").output == before, "the store is unchanged")
        let other = try Processes.run("/usr/bin/env", ["-C", directory.path, Processes.evtool, "migrate", "--from", "m.sqlite", "--to", "copy.sqlite"])
        #expect(other.status == 0 && other.output.hasPrefix("migrated 1 event"), "\(other)")
    }

    @Test("PostgreSQL: the same server, database and schema spelled as a URL with other options or as key=value is refused; another schema is not")
    func postgresSpellings() throws {
        let url = try TestStores.postgresURL()
        let schema = TestStores.freshSchema()
        defer { TestStores.dropPostgres(url: url, schema: schema) }
        let store = url + (url.contains("?") ? "&" : "?") + "schema=\(schema)"
        #expect(try Processes.run(Processes.evtool, ["search", "--user", "ada", "--keyword", "jazz", "--location", "Chicago", "--store", store]).status == 0)
        let same = StoreLocation.postgres(url: store)
        let spelled = url + (url.contains("?") ? "&" : "?") + "connect_timeout=5&schema=\(schema)"
        #expect(same.isSameStore(as: .postgres(url: spelled)))
        #expect(!same.isSameStore(as: .postgres(url: url + (url.contains("?") ? "&" : "?") + "schema=\(schema)_other")))
        let result = try Processes.run(Processes.evtool, ["migrate", "--from", store, "--to", spelled])
        #expect(result.status == 64, "\(result)")
        #expect(result.errors.contains(" name the same store"), "\(result)")
        // The same server by another loopback name.
        if url.contains("@localhost") || url.contains("@127.0.0.1") {
            let other = url.contains("@localhost") ? spelled.replacingOccurrences(of: "@localhost", with: "@127.0.0.1")
                                                   : spelled.replacingOccurrences(of: "@127.0.0.1", with: "@localhost")
            #expect(same.isSameStore(as: .postgres(url: other)), "\(other)")
        }
    }

    @Test("isSameStore: a file and a path that does not exist yet in another directory differ; a missing file by two spellings is the same")
    func missingFiles() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let a = StoreLocation.sqlite(path: directory.path + "/new.sqlite")
        #expect(a.isSameStore(as: .sqlite(path: directory.path + "/./new.sqlite")))
        #expect(!a.isSameStore(as: .sqlite(path: directory.path + "/other.sqlite")))
        #expect(!a.isSameStore(as: .postgres(url: "postgres://localhost/db")))
    }
}
