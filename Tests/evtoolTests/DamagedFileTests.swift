import Foundation
import TestSupport
import Testing

/// `verify` on an SQLite file damaged beneath the log: a page-level edit that rewrote one
/// row's position (the row id in its b-tree cell), which no SQL statement can do (the
/// events table refuses updates). Every hash still chains, since positions are not in them.
@Suite("verify: a damaged SQLite file")
struct DamagedFileTests {
    /// Rewrites the row id `old` of the events table's b-tree to `new`, in place (both
    /// encodings must have the same length), as a page-level edit would.
    static func rewriteRowID(_ path: String, _ old: Int64, to new: Int64) throws {
        let root = try Processes.run(Processes.sqlite3, [path, "SELECT rootpage FROM sqlite_master WHERE name = 'events'"])
        let rootPage = try #require(Int(root.output.trimmingCharacters(in: .whitespacesAndNewlines)), "\(root)")
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let stored = Int(bytes[16]) << 8 | Int(bytes[17])
        let pageSize = stored == 1 ? 65_536 : stored
        func varint(_ at: Int) -> (value: Int64, end: Int) {
            var value: Int64 = 0
            for k in 0..<9 {
                let byte = Int64(bytes[at + k])
                if k == 8 { return (value << 8 | byte, at + 9) }
                value = value << 7 | (byte & 0x7F)
                if byte < 0x80 { return (value, at + k + 1) }
            }
            return (value, at + 9)
        }
        func encoded(_ value: Int64) -> [UInt8] {
            var value = value
            var out = [UInt8(value & 0x7F)]
            value >>= 7
            while value > 0 { out.insert(UInt8(0x80 | (value & 0x7F)), at: 0); value >>= 7 }
            return out
        }
        func big(_ at: Int, _ count: Int) -> Int { (0..<count).reduce(0) { $0 << 8 | Int(bytes[at + $1]) } }
        func rewrite(page: Int) -> Bool {
            let start = (page - 1) * pageSize
            let header = start + (page == 1 ? 100 : 0)
            let kind = bytes[header]
            let cells = header + (kind == 2 || kind == 5 ? 12 : 8)
            for index in 0..<big(header + 3, 2) {
                let cell = start + big(cells + 2 * index, 2)
                if kind == 5 {
                    if rewrite(page: big(cell, 4)) { return true }
                } else if kind == 13 {
                    let id = varint(varint(cell).end)
                    let begin = varint(cell).end
                    guard id.value == old else { continue }
                    let replacement = encoded(new)
                    guard replacement.count == id.end - begin else { return false }
                    bytes.replaceSubrange(begin..<id.end, with: replacement)
                    return true
                }
            }
            return kind == 5 && rewrite(page: big(header + 8, 4))
        }
        try #require(rewrite(page: rootPage), "row id \(old) not found in \(path)")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    @Test("a row whose position was rewritten to another's: verify fails with exit 65 naming both positions and SQLite's finding")
    func rewrittenPosition() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = directory.path + "/d.sqlite"
        let cli = CLI(store: path, directory: directory.path)
        let made = try cli.run("demo", "--users", "8", "--seed", "3")
        try #require(made.status == 0, "\(made)")
        #expect(try cli.run("verify").status == 0)
        let head = try Processes.run(Processes.sqlite3, [path, "PRAGMA wal_checkpoint(TRUNCATE); SELECT max(position) FROM events"])
        try #require(head.output.split(separator: "\n").last.flatMap { Int64($0) }.map { $0 >= 300 } == true, "\(head)")

        try Self.rewriteRowID(path, 275, to: 290)
        let verified = try cli.run("verify")
        #expect(verified.status == 65, "\(verified)")
        #expect(verified.errors.contains("reordered at position 276: position 276 is read after position 290"), "\(verified)")
        #expect(verified.errors.contains("the store's file is damaged (SQLite's PRAGMA quick_check: ") && verified.errors.contains("Rowid 290 out of order"),
                "\(verified)")
        #expect(!verified.errors.contains("*** in database"), "\(verified)")
    }

    @Test("a damaged index page the log's walk never reads: verify fails with exit 65 and what SQLite's quick_check reports")
    func damagedIndexPage() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = directory.path + "/d.sqlite"
        let cli = CLI(store: path, directory: directory.path)
        try #require(try cli.run("demo", "--users", "8", "--seed", "3").status == 0)
        let root = try Processes.run(Processes.sqlite3, [path, "PRAGMA wal_checkpoint(TRUNCATE); SELECT rootpage FROM sqlite_master WHERE name = 'events_event_id'"])
        let page = try #require(root.output.split(separator: "\n").last.flatMap { Int($0) }, "\(root)")
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        bytes[(page - 1) * pageSize] = 0   // the page's type: none that SQLite knows
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let verified = try cli.run("verify")
        #expect(verified.status == 65, "\(verified)")
        #expect(verified.errors.hasPrefix("Error: the log fails verification: the store's file is damaged (SQLite's PRAGMA quick_check: Page \(page): "), "\(verified)")
    }
}
