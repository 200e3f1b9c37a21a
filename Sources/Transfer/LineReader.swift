import Foundation

/// Where ``LineReader`` reads bytes from: a file, standard input, a socket, memory.
public protocol ByteSource {
    /// Up to `count` bytes; empty at the end of the input. Errors are the source's own.
    func read(upTo count: Int) throws -> Data
}

/// Bytes already in memory, as a ``ByteSource`` (an upload, a test's lines).
public final class MemoryBytes: ByteSource {
    private let data: Data
    private var offset = 0

    /// A source of `data`.
    public init(_ data: Data) { self.data = data }

    /// Up to `count` bytes after those already read.
    public func read(upTo count: Int) throws -> Data {
        let end = min(data.count, offset + count)
        defer { offset = end }
        return data.subdata(in: (data.startIndex + offset)..<(data.startIndex + end))
    }
}

/// Reads lines from a ``ByteSource`` in large blocks, with a limit on a line's length.
public struct LineReader {
    /// The longest line accepted, 16 MiB.
    public static let maximumLineLength = 16 * 1_048_576
    private let source: any ByteSource
    private var buffer = Data()
    /// Where the unread part of `buffer` starts (compacted when the buffer is refilled).
    private var start = 0
    private var finished = false
    /// The number of the line last returned (from 1).
    public private(set) var lineNumber = 0
    /// The bytes of input consumed by the lines returned so far, line breaks included.
    public private(set) var bytesRead: Int64 = 0

    /// A reader of the lines of `source`.
    public init(source: any ByteSource) { self.source = source }

    /// The next line without its line break (`\n` or `\r\n`); nil at the end.
    /// - Throws: ``OperationError/invalid(_:)`` for a line over ``maximumLineLength``; the
    ///   source's errors as they are.
    public mutating func next() throws -> Data? {
        while true {
            if let newline = newlineIndex() {
                var end = newline
                if end > buffer.startIndex + start, buffer[end - 1] == 0x0D { end -= 1 }
                try checkLength(end - (buffer.startIndex + start))
                let line = buffer.subdata(in: (buffer.startIndex + start)..<end)
                bytesRead += Int64(newline + 1 - (buffer.startIndex + start))
                start = newline + 1 - buffer.startIndex
                lineNumber += 1
                return line
            }
            try checkLength(buffer.count - start)
            if finished {
                guard buffer.count > start else { return nil }
                let line = buffer.subdata(in: (buffer.startIndex + start)..<buffer.endIndex)
                bytesRead += Int64(buffer.count - start)
                buffer = Data()
                start = 0
                lineNumber += 1
                return line
            }
            let chunk = try source.read(upTo: 1_048_576)
            if chunk.isEmpty {
                finished = true
            } else {
                if start > 0 { buffer.removeSubrange(buffer.startIndex..<(buffer.startIndex + start)); start = 0 }
                buffer.append(chunk)
            }
        }
    }

    /// Throws for a line of `length` bytes (or bytes so far) over ``maximumLineLength``.
    private func checkLength(_ length: Int) throws {
        if length > Self.maximumLineLength {
            throw OperationError.invalid("line \(lineNumber + 1) is longer than \(Self.maximumLineLength / 1_048_576) MiB")
        }
    }

    /// The index in `buffer` of the first line feed at or after `start`, found with `memchr`
    /// over the buffer's bytes: a search through `Data`'s collection interface checked each
    /// byte's access at run time, which took a third of an import's time (issue 19).
    private func newlineIndex() -> Int? {
        buffer.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Int? in
            guard start < raw.count, let base = raw.baseAddress, let found = memchr(base + start, 0x0A, raw.count - start) else { return nil }
            return buffer.startIndex + base.distance(to: UnsafeRawPointer(found))
        }
    }
}
