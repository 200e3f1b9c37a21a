import Foundation

/// The state of standard input, output and error when evtool started.
///
/// A parent may start evtool with one of them closed (`evtool export >&-`). The next file
/// evtool opens would then get that descriptor, and a database file or a PostgreSQL socket
/// would receive the lines meant for standard output. So a closed descriptor is filled at
/// once with `/dev/null` opened the wrong way round (read-only for output, write-only for
/// input): every write to it and every read from it fails, and evtool reports that the
/// stream is closed instead of writing into whatever was opened next.
enum StandardStreams {
    /// Which of descriptors 0, 1 and 2 were closed at start. Reading it the first time (at
    /// the top of `main.swift`, before anything opens a file) fills the closed ones.
    static let closedAtStart: [Bool] = fillClosedDescriptors()

    /// Whether standard input was closed when evtool started.
    static var inputIsClosed: Bool { closedAtStart[0] }
    /// Whether standard output was closed when evtool started.
    static var outputIsClosed: Bool { closedAtStart[1] }

    private static func fillClosedDescriptors() -> [Bool] {
        (Int32(0)...2).map { descriptor in
            guard fcntl(descriptor, F_GETFD) == -1, errno == EBADF else { return false }
            // Descriptors are allocated lowest first, so this open gets `descriptor` itself.
            let filler = open("/dev/null", descriptor == 0 ? O_WRONLY : O_RDONLY)
            if filler >= 0, filler != descriptor {
                _ = dup2(filler, descriptor)
                close(filler)
            }
            return true
        }
    }
}
