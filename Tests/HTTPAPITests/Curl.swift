import Foundation
import TestSupport

/// One HTTP request through curl (for the tests where a shell-level client is enough).
enum Curl {
    struct Response: CustomStringConvertible {
        var status: Int
        var headers: [String: String]
        var body: String
        var description: String { "\(status) \(headers) \(body)" }
    }

    /// - Parameter maxTime: seconds curl waits for the whole answer (`--max-time`).
    static func request(_ method: String, _ url: String, headers: [String: String] = [:], body: String? = nil, maxTime: Int = 20) throws -> Response {
        var arguments = ["-s", "-i", "--max-time", String(maxTime), "-X", method]
        for (name, value) in headers { arguments += ["-H", "\(name): \(value)"] }
        if let body { arguments += ["--data-binary", body] }
        let result = try Processes.run("/usr/bin/curl", arguments + [url])
        guard result.status == 0 else { return Response(status: 0, headers: [:], body: result.errors) }
        let text = result.output.replacingOccurrences(of: "\r\n", with: "\n")
        let parts = text.components(separatedBy: "\n\n")
        let head = parts[0].split(separator: "\n")
        let status = head.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        var fields: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Response(status: status, headers: fields, body: parts.dropFirst().joined(separator: "\n\n"))
    }
}
