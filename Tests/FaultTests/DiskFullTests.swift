import EventLog
import Foundation
import StoreSQLite
import TestSupport
import Testing

/// A store on a small filesystem made for the test (a 2 MiB tmpfs, mounted as root): an
/// import or append that fills it fails cleanly, and the store stays readable and whole.
@Suite("Faults: disk full", .serialized)
struct DiskFullTests {
    @Test("import and append on a full disk: exit 69 naming it, nothing partial, the store readable; appends work once there is room")
    func diskFull() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let mountPoint = directory.path + "/small"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        // Without the small filesystem there is no full disk: that fails the test, saying why
        // (Swift Testing has no skip that a CI run would count honestly).
        try #require(getuid() == 0, "disk full: not tested: mounting a tmpfs needs root (run scripts/test.sh as root, as CI does)")
        let mount = try Processes.run("/bin/mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", mountPoint])
        try #require(mount.status == 0, "disk full: not tested: mounting a 2 MiB tmpfs on \(mountPoint) failed (the sandbox may forbid mounts): \(mount)")
        defer {
            do {
                let unmount = try Processes.run("/bin/umount", ["-l", mountPoint])
                if unmount.status != 0 { Issue.record("umount \(mountPoint): \(unmount)") }
            } catch {
                Issue.record("umount \(mountPoint) could not be run: \(error)")
            }
        }
        // The fault needs a filesystem that small: a mount that came out bigger (or not there)
        // would let everything fit, and the test would check nothing.
        var filesystem = statvfs()
        try #require(statvfs(mountPoint, &filesystem) == 0, "statvfs \(mountPoint): errno \(errno)")
        let capacity = Int(filesystem.f_blocks) * Int(filesystem.f_frsize)
        try #require(capacity > 0 && capacity <= 2 * 1_024 * 1_024, "disk full: the tmpfs at \(mountPoint) holds \(capacity) bytes, not 2 MiB")
        let path = mountPoint + "/store.sqlite"
        let store = "sqlite:\(path)"
        #expect(try Processes.run(Binaries.evtool, ["append", "--stream", "first", "--type", "Note", "--data", "{}", "--store", store]).status == 0)
        // Room to free later.
        let filler = mountPoint + "/filler"
        try Data(count: 512 * 1_024).write(to: URL(fileURLWithPath: filler))

        // An import far bigger than the disk, 100 events per transaction.
        let lines = (1...3_000).map { index in
            ImportLine(stream: "s-\(index % 10)", version: (index - 1) / 10 + 1, id: UUID().uuidString.lowercased(), type: "Note",
                       data: #"{"batch":"import","text":"\#(String(repeating: "t", count: 1_000))"}"#).text
        }
        let file = directory.path + "/big.jsonl"
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: false, encoding: .utf8)
        let result = try Processes.run(Binaries.evtool, ["import", file, "--batch", "100", "--store", store])
        #expect(!result.wasSignaled && result.status == 69, "\(result)")
        #expect(result.errors.hasPrefix("Error: line ") && result.errors.contains("is full"), "\(result.errors)")
        #expect(result.errors.split(separator: "\n").count == 1)
        try checkReadable(path, importedLines: lines, context: "after the import")
        // The disk filled part-way: some batches were kept before it did (else "whole batches
        // kept" above checked nothing), not all of them.
        let kept = try LogChecks.events(in: SQLiteEventStore(path: path)).filter { $0.streamID.hasPrefix("s-") }.count
        #expect(kept > 0 && kept < lines.count, "the import kept \(kept) of \(lines.count) events before the disk filled")
        try LogChecks.expectVerifies(store, "after the import")

        // One large append that does not fit.
        let before = try LogChecks.digest(ofFileAt: path)
        let big = #"{"text":"\#(String(repeating: "b", count: 1_500_000))"}"#
        let append = try Processes.run(Binaries.evtool, ["append", "--stream", "big", "--type", "Note", "--data", "-", "--store", store], input: big)
        #expect(!append.wasSignaled && append.status == 69, "\(append)")
        #expect(append.errors.contains("is full"), "\(append.errors)")
        #expect(try LogChecks.digest(ofFileAt: path) == before, "a failed append changed the store")
        let export = try Processes.run(Binaries.evtool, ["export", "--store", store])
        #expect(export.status == 0, "\(export)")

        // Room again: appends work, and the rerun import carries on where it stopped.
        try FileManager.default.removeItem(atPath: filler)
        let after = try Processes.run(Binaries.evtool, ["append", "--stream", "after", "--type", "Note", "--data", "{}", "--store", store])
        #expect(after.status == 0, "\(after)")
        let rerun = try Processes.run(Binaries.evtool, ["import", file, "--batch", "100", "--store", store])
        #expect(!rerun.wasSignaled && [0, 69].contains(rerun.status), "\(rerun)")
        try checkReadable(path, importedLines: lines, context: "after the rerun")
        try LogChecks.expectVerifies(store, "after the rerun")
        let imported = try LogChecks.events(in: SQLiteEventStore(path: path)).filter { $0.streamID.hasPrefix("s-") }.count
        FaultSettings.report("disk full: a 2 MiB tmpfs filled by import and append; exit 69 each time, \(imported) events in whole batches kept, store readable")
    }

    /// The store opens, passes SQLite's integrity check and the log rules, and holds whole
    /// batches of the import file, in order.
    func checkReadable(_ path: String, importedLines: [String], context: String) throws {
        #expect(try LogChecks.integrity(ofFileAt: path) == "ok", "\(context)")
        let events = try LogChecks.events(in: SQLiteEventStore(path: path))
        #expect(LogChecks.problems(in: events) == [], "\(context)")
        let imported = events.filter { $0.streamID.hasPrefix("s-") }
        #expect(imported.count % 100 == 0, "\(context): \(imported.count) imported events is not whole batches")
        for (event, line) in zip(imported, importedLines) where !line.contains(event.id.lowercaseString) {
            Issue.record("\(context): event \(event.id) is not the next line of the file")
            break
        }
    }
}
