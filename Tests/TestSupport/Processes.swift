import Foundation

/// Runs programs for the tests: the built `evtool` binary and the `sqlite3` shell.
public enum Processes {
    /// How a program ended and what it printed.
    public struct Result: Sendable, CustomStringConvertible {
        public var status: Int32
        public var output: String
        public var errors: String
        /// Whether a signal ended the program (a crash, a trap, or a kill); `status` is then the signal.
        public var wasSignaled = false
        public var description: String { "exit \(status)\nstdout: \(output)\nstderr: \(errors)" }
    }

    /// The `evtool` binary SwiftPM built beside the test bundle.
    public static var evtool: String {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return executable.deletingLastPathComponent().appendingPathComponent("evtool").path
    }

    /// Starts a program; call `finish` on the returned process to collect its result.
    public static func start(_ path: String, _ arguments: [String], input: String? = nil, environment: [String: String]? = nil) throws -> Running {
        try start(path, arguments, inputData: input.map { Data($0.utf8) }, environment: environment)
    }

    /// Starts a program with bytes (not necessarily UTF-8) on its standard input.
    public static func start(_ path: String, _ arguments: [String], inputData input: Data?, environment: [String: String]? = nil) throws -> Running {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let output = Pipe(), errors = Pipe(), stdin = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(input) }
        try stdin.fileHandleForWriting.close()
        return Running(process: process, output: output, errors: errors)
    }

    /// Runs a program to the end.
    public static func run(_ path: String, _ arguments: [String], input: String? = nil, environment: [String: String]? = nil) throws -> Result {
        try start(path, arguments, input: input, environment: environment).finish()
    }

    /// An executable SwiftPM built beside the test bundle (e.g. `FaultDriver`).
    public static func built(_ name: String) -> String {
        URL(fileURLWithPath: evtool).deletingLastPathComponent().appendingPathComponent(name).path
    }

    /// The `sqlite3` shell's path.
    public static var sqlite3: String {
        for candidate in ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3"] where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        return "sqlite3"
    }

    /// The `psql` shell's path.
    public static var psql: String {
        for candidate in ["/usr/bin/psql", "/usr/local/bin/psql"] where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        return "psql"
    }

    public struct Running {
        public let process: Process
        let output: Pipe
        let errors: Pipe

        /// The process id.
        public var pid: Int32 { process.processIdentifier }

        /// Sends `signal` (e.g. `SIGKILL`, `SIGINT`) to the process.
        public func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

        /// Whether the process is still running.
        public var isRunning: Bool { process.isRunning }

        /// For a test's `defer`: a process the test has not stopped and looked at itself
        /// (a check threw first) is killed and waited for, so it does not outlive the test.
        /// How it ended is not looked at: the error that ended the test early is the one the
        /// test reports.
        public func killIfRunning() {
            guard isRunning else { return }
            send(SIGKILL)
            _ = collect()
        }

        /// Waits for the process to end and returns what it printed and how it ended.
        public func finish() throws -> Result { collect() }

        private func collect() -> Result {
            // Standard error is drained on its own thread: a program that writes more than a
            // pipe holds (64 KiB) to it would otherwise block while we wait for standard output.
            let errorsHandle = errors.fileHandleForReading
            let drained = DataBox()
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                drained.data = errorsHandle.readDataToEndOfFile()
                done.signal()
            }
            let out = output.fileHandleForReading.readDataToEndOfFile()
            done.wait()
            let err = drained.data
            process.waitUntilExit()
            return Result(status: process.terminationStatus, output: String(decoding: out, as: UTF8.self),
                          errors: String(decoding: err, as: UTF8.self), wasSignaled: process.terminationReason == .uncaughtSignal)
        }
    }
}

// @unchecked: written once by the draining thread before it signals, read only after the wait.
private final class DataBox: @unchecked Sendable {
    var data = Data()
}

/// A directory under the system's temporary folder, removed on request.
public struct TemporaryDirectory: Sendable {
    public let path: String

    public init() throws {
        path = NSTemporaryDirectory() + "evtool-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    public func remove() { try? FileManager.default.removeItem(atPath: path) }
}
