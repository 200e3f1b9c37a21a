import Foundation
import Testing
import TestSupport

/// The served OpenAPI document is compiled into the binary: a copy of `evtool` in another
/// folder, started from `/`, with no file beside it, serves docs/openapi.json byte for byte.
struct OpenAPIResourceTests {
    @Test func aCopyOfTheBinaryServesTheDocumentFromAnywhere() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(atPath: directory.path + "/bin", withIntermediateDirectories: true)
        let copy = directory.path + "/bin/evtool"
        try FileManager.default.copyItem(atPath: Processes.evtool, toPath: copy)
        let port = try FreePort.find()
        let server = try Processes.start("/bin/sh", ["-c", "cd / && exec \"$0\" serve --no-auth --listen 127.0.0.1:\(port) --store \"$1\"",
                                                     copy, "sqlite:\(directory.path)/openapi.sqlite"])
        try FreePort.waitUntilListening(port, process: server)
        let response = try Curl.request("GET", "http://127.0.0.1:\(port)/openapi.json")
        server.send(SIGTERM)
        let ended = try server.finish()
        let docs = try String(contentsOf: HTTPClient.root.appendingPathComponent("docs/openapi.json"), encoding: .utf8)
        #expect(response.status == 200 && response.headers["content-type"] == "application/json", "\(response.status) \(response.headers)")
        #expect(response.body == docs, "the copy serves docs/openapi.json as it is")
        #expect(ended.status == 0, "\(ended)")
    }
}
