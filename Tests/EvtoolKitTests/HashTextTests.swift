import Audit
import EventLog
import Foundation
import TestSupport
import Testing
import Transfer

/// A chain hash read from an export line or an archive file is read only as evtool writes it:
/// 64 lower-case hex digits; the same hash in upper case is refused, naming the member.
@Suite("EvtoolKit: chain hashes in export lines and archive files are lower-case hex")
struct HashTextTests {
    static let hash = String(repeating: "ab", count: 32)

    static func event(position: Int64) -> RecordedEvent {
        RecordedEvent(position: position, streamID: "ada", version: position, id: UUID(), type: "Noted", data: Data(#"{"n":1}"#.utf8),
                      metadata: Data(#"{"by":"test"}"#.utf8), recordedAt: Date(timeIntervalSince1970: 1_790_000_000), hash: hash)
    }

    @Test("an export line, either format: the hash in lower case reads, in upper case is refused", arguments: [LogRecord.Format.jsonl, .cloudevents])
    func exportLine(format: LogRecord.Format) throws {
        let line = LogRecord.line(for: Self.event(position: 1), format: format)
        #expect(try LogRecord.parse(Data(line.utf8)).hash == Self.hash)
        let upper = line.replacingOccurrences(of: Self.hash, with: Self.hash.uppercased())
        #expect(upper != line)
        do {
            _ = try LogRecord.parse(Data(upper.utf8))
            Issue.record("read: \(upper)")
        } catch {
            #expect(error.reason.contains("must be 64 lower-case hexadecimal digits"), "\(error.reason)")
        }
    }

    @Test("an archive file whose line has the hash in upper case is refused, naming the file and line")
    func archiveFile() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let lines = (1...2).map { LogRecord.line(for: Self.event(position: $0), format: .jsonl) }
        let good = directory.path + "/good.jsonl", bad = directory.path + "/bad.jsonl"
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: good))
        try Data((lines[0] + "\n" + lines[1].replacingOccurrences(of: Self.hash, with: Self.hash.uppercased()) + "\n").utf8).write(to: URL(fileURLWithPath: bad))
        #expect(try ArchiveFile(path: good).next().map(\.hash) == [Self.hash, Self.hash])
        do {
            _ = try ArchiveFile(path: bad).next()
            Issue.record("the upper-case hash was read")
        } catch let error as OperationError {
            #expect("\(error)".contains("archive file '\(bad)', line 2: 'hash' must be 64 lower-case hexadecimal digits"), "\(error)")
        }
    }
}
