import Foundation
import TestSupport
import Testing

@Suite("evtool: Ctrl-C stops at a batch boundary and a rerun resumes")
struct InterruptTests {
    @Test("import and migrate, interrupted and rerun, end with the whole log")
    func interruptAndResume() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let source = CLI(store: "sqlite:\(directory.path)/source.sqlite", directory: directory.path)
        // A log long enough that one event per transaction takes seconds to copy.
        var lines: [String] = []
        var versions = [Int](repeating: 0, count: 100)
        for index in 0..<40_000 {
            versions[index % 100] += 1
            lines.append(#"{"stream":"user-\#(index % 100)","version":\#(versions[index % 100]),"id":"\#(UUID().uuidString.lowercased())","type":"Note","recordedAt":"2026-01-01T00:00:00.000000Z","data":{"n":\#(index)},"metadata":{}}"#)
        }
        let generated = try source.file("generated.jsonl", lines.joined(separator: "\n") + "\n")
        #expect(try source.run("import", generated).status == 0)
        let exported = try source.run("export").output
        let file = try source.file("log.jsonl", exported)

        // Import with one event per transaction, so there is time to interrupt it.
        let target = CLI(store: "sqlite:\(directory.path)/target.sqlite", directory: directory.path)
        let importing = try Processes.start(Processes.evtool, ["import", file, "--batch", "1", "--store", target.store])
        // Interrupt once it is copying (not before it installed its handler, which a fixed
        // sleep on a busy machine cannot promise).
        try Self.waitForEvents(in: directory.path + "/target.sqlite", while: importing)
        importing.process.interrupt()
        let stopped = try importing.finish()
        #expect(stopped.status == 130, "\(stopped)")
        #expect(stopped.errors.contains("interrupted after importing "), "\(stopped)")
        #expect(stopped.errors.contains("run the same import again to resume"))
        #expect(try target.run("export").output.split(separator: "\n").count < 40_000)
        let resumed = try target.run("import", file)
        #expect(resumed.status == 0, "\(resumed)")
        #expect(try target.run("export").output == exported)

        // Migrate, interrupted, then rerun.
        let migrated = "sqlite:\(directory.path)/migrated.sqlite"
        let migrating = try Processes.start(Processes.evtool, ["migrate", "--from", source.store, "--to", migrated, "--batch", "1"])
        try Self.waitForEvents(in: directory.path + "/migrated.sqlite", while: migrating)
        migrating.process.interrupt()
        let halted = try migrating.finish()
        #expect(halted.status == 130, "\(halted)")
        #expect(halted.errors.contains("run the same migrate again to resume"), "\(halted)")
        let finished = try CLI.bare("migrate", "--from", source.store, "--to", migrated)
        #expect(finished.errors.contains("resuming after source position "), "\(finished)")
        #expect(finished.status == 0 && finished.output.contains("both logs hold the same events in the same order"), "\(finished)")
        #expect(try CLI(store: migrated, directory: directory.path).run("export").output == exported)
    }

    /// Waits (up to 60 s) until the SQLite file at `path` holds an event, while `process` runs.
    static func waitForEvents(in path: String, while process: Processes.Running) throws {
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning, Date() < deadline {
            if FileManager.default.fileExists(atPath: path) {
                let count = try Processes.run(Processes.sqlite3, [path, "SELECT count(*) FROM events;"])
                if count.status == 0, let events = Int(count.output.trimmingCharacters(in: .whitespacesAndNewlines)), events > 0 { return }
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        Issue.record("\(path) held no event \(process.isRunning ? "after 60 s" : "when the copy ended"), so the interrupt would not land mid-copy")
    }
}
