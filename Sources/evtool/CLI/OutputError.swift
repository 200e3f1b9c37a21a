import Foundation

/// Standard output refused a write: the disk is full (`> /dev/full`), the stream is closed,
/// or another I/O error. The command stops at the first failed write and exits 74.
struct OutputError: Error, CustomStringConvertible {
    /// The `errno` of the failed write.
    var code: Int32

    /// Whether the reader of a pipe went away (`evtool export | head`), which ends the
    /// command quietly rather than as an error.
    var isClosedPipe: Bool { code == EPIPE }

    var description: String {
        if StandardStreams.outputIsClosed { return "cannot write to standard output: it is closed" }
        return "cannot write to standard output: \(String(cString: strerror(code)))"
    }
}
