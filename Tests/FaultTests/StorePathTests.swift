import EventLog
import Foundation
import StoreSQLite
import TestSupport
import Testing

/// Store paths and URLs that cannot work: each command refuses them with one clear line and
/// exit 64, 65 or 69, and leaves the file as it was.
@Suite("Faults: bad store paths and URLs", .serialized)
struct StorePathTests {
    /// Commands that read, query, record, import, export and migrate, with `STORE` where the store goes.
    static let commands: [[String]] = [
        ["stats", "--store", "STORE"],
        ["favorites", "--user", "ada", "--store", "STORE"],
        ["history", "--user", "ada", "--store", "STORE"],
        ["report", "--user", "ada", "--store", "STORE"],
        ["report", "--store-overview", "--store", "STORE"],
        ["export", "--store", "STORE"],
        ["rebuild", "--store", "STORE"],
        ["search", "--user", "ada", "--keyword", "jazz", "--here", "1,2", "--store", "STORE"],
        ["append", "--stream", "s", "--type", "T", "--data", "{}", "--store", "STORE"],
        ["migrate", "--from", "STORE", "--to", "sqlite:TARGET"],
    ]

    static func sha256(ofFileAt path: String) -> String {
        guard let data = FileManager.default.contents(atPath: path) else { return "unreadable" }
        return SHA256Hasher.digest(data).hexString
    }

    @Test("missing, directory, unreadable, not a database, truncated, unknown scheme: refused, one line, file untouched")
    func badStores() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let base = directory.path
        // A real store with some events, closed (WAL checkpointed into the file).
        let good = base + "/good.sqlite"
        do {
            let store = try SQLiteEventStore(path: good)
            for index in 0..<300 {
                try store.append(ProposedEvent(type: "Note", data: Data(#"{"text":"\#(String(repeating: "n", count: 200))","i":\#(index)}"#.utf8)), to: "s-\(index % 7)", expectedVersion: .any)
            }
        }
        let size = try FileManager.default.attributesOfItem(atPath: good)[.size] as! Int
        var stores: [(String, String, Set<Int32>)] = [
            ("missing file", "sqlite:\(base)/missing.sqlite", [69]),
            ("missing folder", "sqlite:\(base)/no/such/folder/s.sqlite", [69]),
            ("a folder", base, [69]),
            ("a file as a folder", "sqlite:\(good)/inner.sqlite", [69]),
            ("empty sqlite: path", "sqlite:", [64]),
            ("unknown scheme", "mysql://localhost/evtool", [64]),
            ("path too long", "sqlite:" + base + "/" + String(repeating: "p", count: 5_000), [69]),
        ]
        let text = base + "/notes.txt"
        try String(repeating: "hello\n", count: 500).write(toFile: text, atomically: true, encoding: .utf8)
        stores.append(("not a database", text, [65]))
        let foreign = base + "/foreign.sqlite"
        _ = try Processes.run(Processes.sqlite3, [foreign, "CREATE TABLE t(x); INSERT INTO t VALUES (1);"])
        stores.append(("another program's SQLite database", foreign, [65]))
        for cut in [100, 4_096, size / 2, size - 4_096] {
            let path = base + "/truncated-\(cut).sqlite"
            try FileManager.default.copyItem(atPath: good, toPath: path)
            let handle = try #require(FileHandle(forUpdatingAtPath: path))
            try handle.truncate(atOffset: UInt64(cut))
            try handle.close()
            stores.append(("truncated to \(cut) of \(size) bytes", path, [65, 69]))
        }
        var tried = 0
        for (label, store, codes) in stores {
            // Recording commands create a missing file by design (reading ones never do).
            for command in Self.commands where !(label == "missing file" && ["search", "append"].contains(command[0])) {
                let file = store.hasPrefix("sqlite:") ? String(store.dropFirst(7)) : store
                let before = Self.sha256(ofFileAt: file)
                let target = base + "/target-\(tried).sqlite"
                let arguments = command.map { $0 == "STORE" ? store : $0.replacingOccurrences(of: "TARGET", with: target) }
                let result = try Processes.run(Binaries.evtool, arguments)
                tried += 1
                let context = "\(label), \(command[0]) (\(result.status)): \(result.errors.prefix(300))"
                #expect(!result.wasSignaled, "\(context)")
                #expect(codes.contains(result.status), "\(context)")
                #expect(result.errors.hasPrefix("Error: "), "\(context)")
                let lines = result.errors.split(separator: "\n").count
                #expect(result.status == 64 ? (2...3).contains(lines) : lines == 1, "\(context)")
                #expect(result.output.isEmpty, "\(context)")
                #expect(Self.sha256(ofFileAt: file) == before, "\(context): the file changed")
                #expect(!FileManager.default.fileExists(atPath: file + "-wal") || label.hasPrefix("truncated"), "\(context)")
            }
        }
        FaultSettings.report("bad input: \(tried) commands on \(stores.count) unusable stores refused (64/65/69), files untouched")
    }

    /// Commands that only read (they must never create or change a store).
    static let readingCommands: [[String]] = [
        ["stats"], ["verify"], ["favorites", "--user", "ada"], ["recent", "--user", "ada"], ["viewed", "--user", "ada"],
        ["details", "--listing", "L1"], ["history", "--user", "ada"], ["log"], ["export"], ["seal"],
    ]

    /// The files in a folder, with their sizes.
    static func listing(_ path: String) throws -> [String: Int] {
        var files: [String: Int] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: path) {
            files[name] = (try FileManager.default.attributesOfItem(atPath: path + "/" + name)[.size] as? Int) ?? -1
        }
        return files
    }

    @Test("SQLite: a device, a FIFO, a socket as the store: refused (69) before SQLite opens it, nothing created beside it, by reads and writes")
    func notRegularFiles() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let fifo = directory.path + "/store.fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let socketPath = directory.path + "/store.socket"
        let socketDescriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socketDescriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in socketPath.utf8.enumerated() where index < raw.count - 1 { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        #expect(bound == 0, "cannot make a socket file for the test")
        let link = directory.path + "/link.sqlite"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/dev/null")
        let before = try Self.listing(directory.path)
        let cases: [(String, String)] = [("/dev/null", "a device"), ("/dev/zero", "a device"), (link, "a device"),
                                         (fifo, "a FIFO (named pipe)"), (socketPath, "a socket")]
        let commands = Self.readingCommands + [["append", "--stream", "s", "--type", "T", "--data", "{}"],
                                              ["search", "--user", "ada", "--keyword", "jazz", "--here", "1,2"], ["init"], ["import", "-"]]
        var tried = 0
        for (path, kind) in cases {
            for command in commands {
                let result = try Processes.run(Binaries.evtool, command + ["--store", path], input: "")
                tried += 1
                let context = "\(path) \(command): \(result)"
                #expect(!result.wasSignaled && result.status == 69, "\(context)")
                #expect(result.errors == "Error: the store is unavailable: '\(path)' is \(kind), not an SQLite file; a store is a regular file\n", "\(context)")
                #expect(result.output.isEmpty, "\(context)")
            }
        }
        #expect(try Self.listing(directory.path) == before, "files appeared beside the FIFO or the socket")
        for suffix in ["-wal", "-shm"] { #expect(!FileManager.default.fileExists(atPath: "/dev/zero" + suffix)) }
        FaultSettings.report("bad input: \(tried) commands on devices, a FIFO and a socket as SQLite stores refused with 69, nothing created")
    }

    @Test("SQLite: a read never creates or changes a store: an empty file and a missing one are refused (69) by every reading command, left as they were")
    func readsCreateNothing() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let empty = directory.path + "/empty.sqlite"
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        for command in Self.readingCommands {
            for (path, expected) in [(empty, "no store at '\(empty)' (the file is empty; nothing was created in it)"),
                                     (directory.path + "/missing.sqlite", "no store at '\(directory.path)/missing.sqlite' (the file does not exist)")] {
                let result = try Processes.run(Binaries.evtool, command + ["--store", path])
                let context = "\(path) \(command): \(result)"
                #expect(!result.wasSignaled && result.status == 69, "\(context)")
                #expect(result.errors == "Error: the store is unavailable: \(expected)\n", "\(context)")
            }
        }
        #expect(try Self.listing(directory.path) == ["empty.sqlite": 0], "a read created or changed a file")
        // A write makes a store in the empty file.
        let append = try Processes.run(Binaries.evtool, ["append", "--stream", "s", "--type", "T", "--data", "{}", "--store", empty])
        #expect(append.status == 0, "\(append)")
        #expect(try Processes.run(Binaries.evtool, ["verify", "--store", empty]).status == 0)
    }

    @Test("PostgreSQL: a read of a schema with no store exits 69 and creates nothing; system schemas are refused by reads and writes")
    func postgresSchemas() throws {
        let url = try TestStores.postgresURL()
        func storeURL(_ schema: String) -> String { url + (url.contains("?") ? "&" : "?") + "schema=" + schema }
        func schemaExists(_ schema: String) throws -> Bool {
            let result = try Processes.run(Processes.psql, [url, "-XAtc", "SELECT count(*) FROM pg_namespace WHERE nspname = '\(schema)'"])
            try #require(result.status == 0, "psql: \(result)")
            return result.output.trimmingCharacters(in: .whitespacesAndNewlines) == "1"
        }
        let missing = TestStores.freshSchema()
        defer { TestStores.dropPostgres(url: url, schema: missing) }
        var tried = 0
        for command in Self.readingCommands {
            let result = try Processes.run(Binaries.evtool, command + ["--store", storeURL(missing)])
            tried += 1
            let context = "\(command): \(result)"
            #expect(!result.wasSignaled && result.status == 69, "\(context)")
            #expect(result.errors.hasPrefix("Error: the store is unavailable: no store in schema '\(missing)' of database '"), "\(context)")
            #expect(result.errors.hasSuffix("' (it holds no evtool store); nothing was created\n"), "\(context)")
            #expect(result.output.isEmpty, "\(context)")
            #expect(try !schemaExists(missing), "\(command) created the schema")
        }
        // A schema that exists but holds no store (another application's): the same, and it stays empty.
        let other = TestStores.freshSchema()
        #expect(try Processes.run(Processes.psql, [url, "-XAtc", "CREATE SCHEMA \(other)"]).status == 0)
        defer { TestStores.dropPostgres(url: url, schema: other) }
        let stats = try Processes.run(Binaries.evtool, ["favorites", "--user", "ada", "--store", storeURL(other)])
        #expect(stats.status == 69 && stats.errors.contains("no store in schema '\(other)'"), "\(stats)")
        let tables = try Processes.run(Processes.psql, [url, "-XAtc", "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE nspname = '\(other)'"])
        #expect(tables.output == "0\n", "a read created objects in an existing schema: \(tables)")
        // System schemas, for reads and writes alike.
        for schema in ["information_schema", "pg_catalog", "pg_toast", "pg_temp", "pg_temp_3", "pg_toast_temp_1", "pg_anything"] {
            for command in [["stats"], ["append", "--stream", "s", "--type", "T", "--data", "{}"], ["init"]] {
                let result = try Processes.run(Binaries.evtool, command + ["--store", storeURL(schema)])
                tried += 1
                let context = "\(schema) \(command): \(result)"
                #expect(!result.wasSignaled && result.status == 65, "\(context)")
                #expect(result.errors.hasPrefix("Error: ") && result.errors.split(separator: "\n").count == 1, "\(context)")
                #expect(result.errors.contains("'\(schema)'"), "\(context)")
            }
        }
        let catalog = try Processes.run(Processes.psql, [url, "-XAtc", "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE nspname = 'information_schema' AND relname = 'events'"])
        #expect(catalog.output == "0\n", "\(catalog)")
        // A write still installs the store in a new schema, and then reads work.
        let fresh = TestStores.freshSchema()
        defer { TestStores.dropPostgres(url: url, schema: fresh) }
        #expect(try Processes.run(Binaries.evtool, ["append", "--stream", "s", "--type", "T", "--data", "{}", "--store", storeURL(fresh)]).status == 0)
        #expect(try Processes.run(Binaries.evtool, ["verify", "--store", storeURL(fresh)]).status == 0)
        FaultSettings.report("bad input: \(tried) reads of a missing schema and uses of system schemas refused, nothing created")
    }

    @Test("PostgreSQL: a wrong password, a closed port, an unknown database: exit 69 in one line, the password never shown")
    func postgresConnections() throws {
        let url = try TestStores.postgresURL()
        guard let components = URLComponents(string: url), let host = components.host, let port = components.port else {
            Issue.record("cannot read host and port from \(url)")
            return
        }
        let cases: [(String, String)] = [
            ("wrong password", "postgresql://evtool_password_test:not-the-password@\(host):\(port)/evtool_test"),
            ("no password", "postgresql://evtool_password_test@\(host):\(port)/evtool_test"),
            ("closed port", "postgresql://postgres@\(host):1/evtool_test"),
            ("unknown database", "postgresql://postgres@\(host):\(port)/no_such_database_here"),
            ("unknown host", "postgresql://postgres@no-such-host.invalid:5432/evtool_test"),
        ]
        var tried = 0
        for (label, store) in cases {
            for command in [["stats"], ["favorites", "--user", "ada"], ["search", "--user", "ada", "--keyword", "k", "--here", "1,2"]] {
                let result = try Processes.run(Binaries.evtool, command + ["--store", store])
                tried += 1
                let context = "\(label), \(command[0]): \(result)"
                #expect(!result.wasSignaled && result.status == 69, "\(context)")
                #expect(result.errors.hasPrefix("Error: ") && result.errors.split(separator: "\n").count == 1, "\(context)")
                #expect(!result.errors.contains("not-the-password"), "\(context)")
                #expect(result.output.isEmpty, "\(context)")
            }
        }
        FaultSettings.report("bad input: \(tried) commands against \(cases.count) unreachable PostgreSQL servers refused with 69, passwords masked")
    }

    @Test("a file the user may not read or write (as user nobody; root ignores permissions): exit 77, permission denied, named")
    func unreadable() throws {
        // Root reads and writes whatever the permissions say, so as root (as in CI) evtool runs
        // as nobody; as any other user the permissions hold for that user. Either way the
        // check runs, or fails saying why it cannot: it never passes without the fault.
        let asUser: [String]
        if getuid() == 0 {
            let setpriv = "/usr/bin/setpriv"
            try #require(FileManager.default.isExecutableFile(atPath: setpriv),
                         "running as root, this check needs \(setpriv) (util-linux) to run evtool as user nobody")
            asUser = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
        } else {
            asUser = []
        }
        func run(_ program: String, _ arguments: [String]) throws -> Processes.Result {
            guard let wrapper = asUser.first else { return try Processes.run(program, arguments) }
            return try Processes.run(wrapper, Array(asUser.dropFirst()) + [program] + arguments)
        }
        let directory = try TemporaryDirectory()
        let path = directory.path + "/store.sqlite"
        _ = try SQLiteEventStore(path: path)
        // Nobody may write the folder either (root's folder, for nobody), so SQLite cannot
        // work around the file's mode with files of its own beside it.
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: directory.path)
        defer {
            try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
            directory.remove()
        }
        var tried = 0
        for (mode, test, expected) in [(0o000, "-r", "unable to open database file"), (0o444, "-w", "is read-only")] {
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
            // The fault is there: the user evtool runs as really may not read (000) or write (444) the file.
            let probe = try run("/bin/sh", ["-c", #"test \#(test) "$0""#, path])
            try #require(probe.status != 0, "mode \(String(mode, radix: 8)): the user evtool runs as (uid \(asUser.isEmpty ? getuid() : 65534)) can still \(test == "-r" ? "read" : "write") \(path), so there is no fault to test")
            for command in [["stats"], ["favorites", "--user", "ada"], ["append", "--stream", "s", "--type", "T", "--data", "{}"]] {
                let result = try run(Binaries.evtool, command + ["--store", path])
                tried += 1
                #expect(result.status == 77, "\(String(mode, radix: 8)) \(command): \(result)")
                #expect(result.errors.hasPrefix("Error: permission denied: ") && result.errors.contains(expected) && result.errors.contains(path),
                        "\(String(mode, radix: 8)) \(command): \(result)")
            }
        }
        #expect(tried == 6)
    }
}
