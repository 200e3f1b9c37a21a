import Foundation

/// Reads lines from an ``InputSource`` in large blocks, with a limit on a line's length.
struct LineReader {
    static let maximumLineLength = 16 * 1_048_576
    private let source: InputSource
    private var buffer = Data()
    /// Where the unread part of `buffer` starts (compacted when the buffer is refilled).
    private var start = 0
    private var finished = false
    /// The number of the line last returned (from 1).
    private(set) var lineNumber = 0

    init(source: InputSource) { self.source = source }

    /// The next line without its line break; nil at the end.
    mutating func next() throws -> Data? {
        while true {
            if let newline = newlineIndex() {
                var end = newline
                if end > buffer.startIndex + start, buffer[end - 1] == 0x0D { end -= 1 }
                let line = buffer.subdata(in: (buffer.startIndex + start)..<end)
                start = newline + 1 - buffer.startIndex
                lineNumber += 1
                return line
            }
            if buffer.count - start > Self.maximumLineLength {
                throw CLIError(message: "line \(lineNumber + 1) is longer than \(Self.maximumLineLength / 1_048_576) MiB", code: .invalidData)
            }
            if finished {
                guard buffer.count > start else { return nil }
                let line = buffer.subdata(in: (buffer.startIndex + start)..<buffer.endIndex)
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
