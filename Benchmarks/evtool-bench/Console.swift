import Foundation

/// Where the benchmarks write: figures to standard output (buffered, flushed after each
/// figure), warnings and errors to standard error.
struct Console {
    private var buffer: [UInt8] = []

    /// Writes one line to standard output (flushed at 64 KiB and by ``flush()``).
    mutating func output(_ line: String) {
        buffer.append(contentsOf: line.utf8)
        buffer.append(0x0A)
        if buffer.count >= 65_536 { flush() }
    }

    /// Sends buffered output to standard output.
    mutating func flush() {
        guard !buffer.isEmpty else { return }
        Self.writeAll(buffer, to: 1)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes a message line to standard error (after flushing output, so they interleave right).
    mutating func message(_ line: String) {
        flush()
        Self.writeAll(Array((line + "\n").utf8), to: 2)
    }

    /// Writes all of `bytes` to a file descriptor; a closed pipe drops the rest (SIGPIPE is
    /// ignored, so it shows as an error return, never a trap).
    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let written = write(descriptor, base + offset, raw.count - offset)
                if written <= 0 { if errno == EINTR { continue }; break }
                offset += written
            }
        }
    }
}
