import Foundation
import TestSupport
import Testing

/// `evtool forget` stopped by Ctrl-C after its erasure committed leaves none of the user's data
/// in the views, says so in one line, and running it again finishes the work without recording
/// anything more; a forget of a user with nothing left to erase records nothing.
@Suite("Audit: forget interrupted, and forget of an erased user")
struct ForgetInterruptTests {
    static let secret = "SECRETMARKER12345"

    @Test("SQLite: Ctrl-C after the erasure committed: exit 130, one line, no view document of the user; a rerun records nothing and rewrites the file")
    func interruptedAfterTheErasure() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = directory.path + "/store.sqlite"
        let cli = CLI(store: "sqlite:\(path)", directory: directory.path)
        // A log long enough that forget's rebuild takes a while after the erasure commits.
        var lines: [String] = []
        var versions = [Int](repeating: 0, count: 100)
        for index in 0..<100_000 {
            versions[index % 100] += 1
            lines.append(#"{"stream":"user-\#(index % 100)","version":\#(versions[index % 100]),"id":"\#(UUID().uuidString.lowercased())","type":"Searched","recordedAt":"2026-01-01T00:00:00.000000Z","data":{"category":"Film","distance":50,"keyword":"k\#(index)","location":{"current":{"latitude":34.0224,"longitude":-118.2851}},"results":{"count":1,"listingIDs":["L1"]},"schemaVersion":2,"units":"miles"},"metadata":{}}"#)
        }
        #expect(try cli.run("import", try cli.file("log.jsonl", lines.joined(separator: "\n") + "\n")).status == 0)
        #expect(try cli.run("search", "--user", "user-5", "--keyword", Self.secret, "--location", "x").status == 0)
        #expect(try cli.run("project").status == 0)
        func sql(_ query: String) throws -> String {
            let result = try Processes.run(Processes.sqlite3, [path, query])
            #expect(result.status == 0, "\(result)")
            return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(try sql("SELECT count(*) FROM view_documents WHERE document LIKE '%\(Self.secret)%'") == "1")

        let forgetting = try Processes.start(Processes.evtool, ["forget", "--user", "user-5", "--reason", "r", "--by", "me", "--store", path])
        // Interrupt once the erasure is committed (its UserErased event is in the file). A read
        // the writer's lock refuses for a moment is tried again; the checks after the interrupt
        // say what was committed.
        let deadline = Date().addingTimeInterval(60)
        while forgetting.isRunning, Date() < deadline, (try? sql("SELECT count(*) FROM events WHERE type = 'UserErased'")) != "1" {
            Thread.sleep(forTimeInterval: 0.02)
        }
        forgetting.process.interrupt()
        let stopped = try forgetting.finish()
        #expect(stopped.status == 130, "forget ended before the interrupt landed in its rebuild: \(stopped)")
        #expect(stopped.output.isEmpty, "\(stopped)")
        #expect(stopped.errors.hasPrefix("Error: interrupted after erasing: the erasure is recorded (UserErased at position 100003) and the user's view documents are deleted, but the views are not rebuilt and the file is not rewritten"), "\(stopped)")
        #expect(stopped.errors.contains("run the same forget again to finish"), "\(stopped)")
        #expect(stopped.errors.split(separator: "\n").count == 1, "\(stopped)")
        #expect(try sql("SELECT count(*) FROM view_documents WHERE document LIKE '%\(Self.secret)%' OR key = 'user-5'") == "0")
        #expect(try cli.run("recent", "--user", "user-5", "--json").output.contains(Self.secret) == false)

        let rerun = try cli.run("forget", "--user", "user-5", "--reason", "r", "--by", "me")
        #expect(rerun.status == 0, "\(rerun)")
        #expect(rerun.output == "user 'user-5' has no events to erase (erased by the UserErased at position 100003); nothing recorded; views rebuilt; file rewritten and WAL emptied\n", "\(rerun)")
        #expect(try sql("SELECT count(*) FROM events WHERE type IN ('UserErased', 'Erased')") == "2")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(bytes.range(of: Data(Self.secret.utf8)) == nil, "the rewritten file still holds the erased search")
        #expect(try cli.run("verify").status == 0)
    }

    @Test("forget of a user already erased: exit 0, nothing recorded, the earlier erasure named (text and --json)", arguments: ["sqlite", "postgres"])
    func forgetTwice(kind: String) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let store = try ErasureAftermathTests.stores(directory).first { $0.name == (kind == "sqlite" ? "SQLite" : "PostgreSQL") }!
        defer { store.cleanup() }
        let cli = store.cli
        #expect(try cli.run("search", "--user", "ada", "--keyword", "jazz", "--location", "Chicago").status == 0)
        var result = try cli.run("forget", "--user", "ada", "--reason", "GDPR #7", "--by", "alice")
        #expect(result.status == 0 && result.output.hasPrefix("erased 1 event of user 'ada' (recorded as UserErased at position 3)"), "\(result)")
        let before = try cli.run("export").output
        result = try cli.run("forget", "--user", "ada", "--reason", "GDPR #7", "--by", "alice")
        #expect(result.status == 0, "\(result)")
        #expect(result.output.hasPrefix("user 'ada' has no events to erase (erased by the UserErased at position 3); nothing recorded; views rebuilt"), "\(result)")
        result = try cli.run("forget", "--user", "ada", "--reason", "GDPR #7", "--by", "alice", "--json")
        #expect(result.status == 0 && result.output.contains(#""erasedEvents":0,"position":3,"#) && result.output.contains(#""recorded":false"#), "\(result)")
        #expect(try cli.run("export").output == before, "nothing appended")
        #expect(try cli.run("verify").status == 0)
    }
}
