import EventLog
import Foundation
import JSONKit
import Transfer

/// An archive file (`evtool archive`): the archived events as lines of the export format
/// (JSON Lines, as `evtool export` writes them), in position order. Read back with every
/// field, its position included, and the SHA-256 of its bytes.
public final class ArchiveFile {
    /// The file's path.
    public let path: String
    private let handle: FileHandle
    private var reader: LineReader
    private let digest = SHA256Hasher()
    private let source: DigestingFile

    /// Opens an archive file to read.
    /// - Throws: ``OperationError/invalid(_:)`` when it cannot be opened.
    public init(path: String) throws {
        self.path = path
        // Before opening: a FIFO would block the open until a writer comes, a folder opens and
        // then fails each read with Foundation's words.
        try AuditFiles.requireRegularFile(path, "archive")
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw OperationError.invalid("cannot open the archive file '\(path)': \(String(cString: strerror(errno)))")
        }
        self.handle = handle
        source = DigestingFile(handle: handle, digest: digest)
        reader = LineReader(source: source)
    }

    deinit { try? handle.close() }

    /// The next events, at most `limit`; empty at the end of the file.
    /// - Throws: ``OperationError/invalid(_:)`` naming the line that is not an archived event.
    public func next(limit: Int = 1_000) throws -> [RecordedEvent] {
        var batch: [RecordedEvent] = []
        while batch.count < limit, let line = try reader.next() {
            if line.isEmpty { continue }
            batch.append(try Self.event(line, number: reader.lineNumber, path: path))
        }
        return batch
    }

    /// The hex SHA-256 of every byte read so far (of the whole file once ``next(limit:)`` returned empty).
    public func sha256() -> String { digest.finalize().hexString }

    private static func event(_ line: Data, number: Int, path: String) throws -> RecordedEvent {
        func refuse(_ reason: String) -> OperationError { .invalid("archive file '\(path)', line \(number): \(reason)") }
        do {
            let line = line.startIndex == 0 ? line : Data(line)
            let members = try LogRecord.members(of: line)
            let imported = try LogRecord.parse(line, members: members)
            guard let range = members["position"], let position = line.withUnsafeBytes({ JSONScan.integer($0, range) }), position >= 1 else {
                throw refuse("'position' is missing or not a position (an archive is written by 'evtool archive' in the jsonl export format)")
            }
            guard let hash = imported.hash else { throw refuse("'hash' is missing") }
            return RecordedEvent(position: Int64(position), streamID: imported.stream, version: imported.version, id: imported.event.id,
                                 type: imported.event.type, data: imported.event.data, metadata: imported.event.metadata,
                                 recordedAt: imported.event.recordedAt ?? Date(timeIntervalSince1970: 0), hash: hash)
        } catch let error as LogRecord.LineError {
            throw refuse(error.reason)
        }
    }
}

/// Reads a file and hashes what it hands out.
private final class DigestingFile: ByteSource {
    let handle: FileHandle
    let digest: SHA256Hasher

    init(handle: FileHandle, digest: SHA256Hasher) {
        self.handle = handle
        self.digest = digest
    }

    func read(upTo count: Int) throws -> Data {
        let data = try handle.read(upToCount: count) ?? Data()
        digest.update(data)
        return data
    }
}
