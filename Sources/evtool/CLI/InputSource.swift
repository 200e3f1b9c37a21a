import Foundation
import Transfer

/// Input named on the command line, `FILE` or `-` for standard input: the one reader of
/// every option and argument that takes one (`import FILE|-`, `--details`, `--results`,
/// `--summary`, `append --data -`).
///
/// A path is opened with `open(2)`, so regular files, FIFOs and process substitution
/// (`--details <(curl …)`, a `/dev/fd/N` path) all work; a folder is refused. Reads are
/// checked: a closed standard input, a missing or unreadable file and a read error are
/// each one `Error: …` line, never a trap.
final class InputSource: ByteSource {
    /// What the input is, for messages: `standard input` or `'PATH'`.
    let name: String
    private let descriptor: Int32
    private let ownsDescriptor: Bool

    /// The largest input ``readAll(what:)`` takes, 64 MiB.
    static let maximumSize = 64 * 1_048_576

    /// Opens `argument`: `-` is standard input, anything else a path.
    /// - Parameter what: what the input is for messages, e.g. "details" or "import".
    /// - Throws: ``CLIError`` (65) when standard input is closed, or the path is missing,
    ///   unreadable or a folder.
    init(_ argument: String, what: String) throws {
        if argument == "-" {
            guard !StandardStreams.inputIsClosed else {
                throw CLIError(message: "standard input is closed: there is no \(what) input to read", code: .invalidData)
            }
            name = "standard input"
            descriptor = 0
            ownsDescriptor = false
            return
        }
        name = "'\(argument)'"
        var opened: Int32
        repeat { opened = open(argument, O_RDONLY | O_CLOEXEC) } while opened < 0 && errno == EINTR
        guard opened >= 0 else {
            let reason = errno == ENOENT ? "no such file" : String(cString: strerror(errno))
            throw CLIError(message: "cannot read the \(what) file '\(argument)': \(reason)", code: .invalidData)
        }
        var status = stat()
        if fstat(opened, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            close(opened)
            throw CLIError(message: "cannot read the \(what) file '\(argument)': it is a folder", code: .invalidData)
        }
        descriptor = opened
        ownsDescriptor = true
    }

    /// The size of the input when it is a regular file (for progress), else nil.
    var regularFileSize: Int64? {
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int64(status.st_size)
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }

    /// Up to `count` bytes; empty at the end of the input.
    /// - Throws: ``CLIError`` (74) when the read fails.
    func read(upTo count: Int) throws -> Data {
        var bytes = [UInt8](repeating: 0, count: count)
        while true {
            let got = bytes.withUnsafeMutableBytes { raw in Glibc.read(descriptor, raw.baseAddress, count) }
            if got >= 0 { return Data(bytes[0..<got]) }
            if errno == EINTR { continue }
            throw CLIError(message: "cannot read \(name): \(String(cString: strerror(errno)))", code: .ioError)
        }
    }

    /// The whole input.
    /// - Throws: ``CLIError`` (74) when a read fails, (65) when the input is over ``maximumSize``.
    func readAll(what: String) throws -> Data {
        var data = Data()
        while true {
            let chunk = try read(upTo: 1_048_576)
            if chunk.isEmpty { return data }
            data.append(chunk)
            if data.count > Self.maximumSize {
                throw CLIError(message: "the \(what) input (\(name)) is larger than \(Self.maximumSize / 1_048_576) MiB", code: .invalidData)
            }
        }
    }
}
