import Foundation

/// Where a command writes: data to standard output (buffered), messages to standard error.
/// End-to-end tests run the real binary; in-process tests can capture both.
///
/// Every write to standard output goes through ``output(_:)`` and ``flush()``, which check
/// each `write(2)`: a failed write throws ``OutputError`` and the command stops there
/// (`evtool export > /dev/full` exits 74 naming the cause, not "exported … events").
struct Console {
    var isCapturing = false
    private(set) var capturedOutput = ""
    private(set) var capturedErrors = ""
    private var buffer: [UInt8] = []
    /// The first failed write to standard output; later output is refused with it.
    private var outputFailure: OutputError?

    /// A console writing to the process's standard output and error.
    static var standard: Console { Console() }

    /// A console that keeps what is written, for tests.
    static var capturing: Console { Console(isCapturing: true) }

    /// Writes one line of data to standard output (flushed at 64 KiB and by ``flush()``).
    /// - Throws: ``OutputError`` when standard output refused a write.
    mutating func output(_ line: String) throws {
        if isCapturing { capturedOutput += line + "\n"; return }
        if let outputFailure { throw outputFailure }
        buffer.append(contentsOf: line.utf8)
        buffer.append(0x0A)
        if buffer.count >= 65_536 { try flush() }
    }

    /// Sends buffered output to standard output.
    /// - Throws: ``OutputError`` when standard output refused the write.
    mutating func flush() throws {
        if let outputFailure { throw outputFailure }
        guard !buffer.isEmpty else { return }
        let code = Self.writeAll(buffer, to: 1)
        buffer.removeAll(keepingCapacity: true)
        if code != 0 {
            outputFailure = OutputError(code: code)
            throw OutputError(code: code)
        }
    }

    /// Writes all of `bytes` to a file descriptor and returns 0, or the `errno` of the write
    /// that failed (SIGPIPE is ignored, so a closed pipe shows as EPIPE, never a signal).
    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Int32 {
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return 0 }
            var offset = 0
            while offset < raw.count {
                let written = write(descriptor, base + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                // A write of 0 bytes for a non-empty buffer: no progress is possible.
                if written == 0 { return EIO }
                offset += written
            }
            return 0
        }
    }

    /// Writes a message line to standard error (after the data written so far, so they
    /// interleave right). A message that cannot be written is dropped: there is nowhere
    /// left to report it, and a failed data write is reported by the next ``output(_:)``
    /// or ``flush()``.
    mutating func message(_ line: String) {
        if isCapturing { capturedErrors += line + "\n"; return }
        if outputFailure == nil, !buffer.isEmpty {
            let code = Self.writeAll(buffer, to: 1)
            buffer.removeAll(keepingCapacity: true)
            if code != 0 { outputFailure = OutputError(code: code) }
        }
        // Not FileHandle.write: it traps when standard error is a closed pipe (`evtool … 2>&1 | head -1`).
        _ = Self.writeAll(Array((line + "\n").utf8), to: 2)
    }

    /// Writes `text` to standard error as it is, without a line break (a progress bar
    /// redrawn in place); dropped when standard error refuses it, like ``message(_:)``.
    mutating func terminalText(_ text: String) {
        if isCapturing { capturedErrors += text; return }
        _ = Self.writeAll(Array(text.utf8), to: 2)
    }

    /// Whether standard error is a terminal that takes escape codes (for progress bars): not
    /// when it is a pipe or a file, nor when `$TERM` is `dumb`.
    var errorsGoToTerminal: Bool {
        !isCapturing && isatty(2) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb"
    }

    /// Set by `--quiet`: no progress and no informational messages (errors still show).
    var isQuiet = false

    /// An informational message on standard error, left out with `--quiet`.
    mutating func info(_ line: String) {
        if !isQuiet { message(line) }
    }
}
