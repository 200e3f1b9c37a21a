import Foundation

/// Runs programs for the tests: the built `evtool` binary and the `sqlite3` shell.
enum Processes {
    struct Result: Sendable {
        var status: Int32
        var output: String
        var errors: String
    }

    /// The `evtool` binary SwiftPM built beside the test bundle.
    static var evtool: String {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return executable.deletingLastPathComponent().appendingPathComponent("evtool").path
    }

    /// Starts a program; call `finish` on the returned process to collect its result.
    static func start(_ path: String, _ arguments: [String], input: String? = nil) throws -> Running {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let output = Pipe(), errors = Pipe(), stdin = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        return Running(process: process, output: output, errors: errors)
    }

    /// Runs a program to the end.
    static func run(_ path: String, _ arguments: [String], input: String? = nil) throws -> Result {
        try start(path, arguments, input: input).finish()
    }

    /// The `sqlite3` shell's path.
    static var sqlite3: String {
        for candidate in ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3"] where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        return "sqlite3"
    }

    struct Running {
        let process: Process
        let output: Pipe
        let errors: Pipe

        func finish() throws -> Result {
            let out = output.fileHandleForReading.readDataToEndOfFile()
            let err = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return Result(status: process.terminationStatus, output: String(decoding: out, as: UTF8.self),
                          errors: String(decoding: err, as: UTF8.self))
        }
    }
}

/// A directory under the system's temporary folder, removed on request.
struct TemporaryDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "evtool-sqlite-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
