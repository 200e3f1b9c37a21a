import Foundation

/// Where a command writes: data to standard output (buffered), messages to standard error.
/// End-to-end tests run the real binary; in-process tests can capture both.
struct Console {
    var isCapturing = false
    private(set) var capturedOutput = ""
    private(set) var capturedErrors = ""
    private var buffer: [UInt8] = []

    /// A console writing to the process's standard output and error.
    static var standard: Console { Console() }

    /// A console that keeps what is written, for tests.
    static var capturing: Console { Console(isCapturing: true) }

    /// Writes one line of data to standard output (flushed at 64 KiB and by ``flush()``).
    mutating func output(_ line: String) {
        if isCapturing { capturedOutput += line + "\n"; return }
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

    /// Writes all of `bytes` to a file descriptor; a closed pipe or other failure drops the rest
    /// quietly (SIGPIPE is ignored, so it shows as an error return, never a trap).
    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written <= 0 { if errno == EINTR { continue }; break }
                offset += written
            }
        }
    }

    /// Writes a message line to standard error (after flushing data, so they interleave right).
    mutating func message(_ line: String) {
        if isCapturing { capturedErrors += line + "\n"; return }
        flush()
        // Not FileHandle.write: it traps when standard error is a closed pipe (`evtool … 2>&1 | head -1`).
        Self.writeAll(Array((line + "\n").utf8), to: 2)
    }

    /// Whether standard error is a terminal (for progress bars).
    var errorsGoToTerminal: Bool { !isCapturing && isatty(2) == 1 }
}
