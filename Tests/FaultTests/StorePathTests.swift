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

    @Test("a file the user may not read or write (as user nobody; root ignores permissions): exit 69, named")
    func unreadable() throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { return }
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        let path = directory.path + "/store.sqlite"
        _ = try SQLiteEventStore(path: path)
        for (mode, expected) in [(0o000, "unable to open database file"), (0o444, "is read-only")] {
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
            for command in [["stats"], ["favorites", "--user", "ada"], ["append", "--stream", "s", "--type", "T", "--data", "{}"]] {
                let result = try Processes.run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", Binaries.evtool] + command + ["--store", path])
                #expect(result.status == 69, "\(mode) \(command): \(result)")
                #expect(result.errors.hasPrefix("Error: the store is unavailable: ") && result.errors.contains(expected), "\(mode) \(command): \(result)")
            }
        }
    }
}
