import Foundation
import Testing
import TestSupport

/// schemathesis (PyPI) generates requests for every operation of the served OpenAPI document
/// (except the endless event streams, which the end-to-end and user event stream tests cover) and checks each
/// response: no 5xx, a documented status, content type and headers, a body valid against the
/// documented schema; on both stores. A fixed seed keeps CI's run the same as a developer's.
@Suite(.serialized)
struct SchemathesisTests {
    @Test func everyOperationAnswersAsDocumentedOnSQLite() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try run(store: "sqlite:\(directory.path)/st.sqlite", directory: directory)
    }

    @Test func everyOperationAnswersAsDocumentedOnPostgres() throws {
        let url = try TestStores.postgresURL()
        let schema = TestStores.freshSchema()
        defer { TestStores.dropPostgres(url: url, schema: schema) }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try run(store: url + (url.contains("?") ? "&" : "?") + "schema=" + schema, directory: directory)
    }

    func run(store: String, directory: TemporaryDirectory) throws {
        let tokens = directory.path + "/tokens.txt"
        let made = try Processes.run(Processes.evtool, ["token", "create", "--role", "admin", "--tokens", tokens])
        #expect(made.status == 0, "\(made)")
        let admin = made.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let port = try FreePort.find()
        let server = try Processes.start(Processes.evtool, ["serve", "--tokens", tokens, "--listen", "127.0.0.1:\(port)", "--store", store])
        try FreePort.waitUntilListening(port, process: server)
        let python = try HTTPClient.python()
        let schemathesis = URL(fileURLWithPath: python).deletingLastPathComponent().appendingPathComponent("schemathesis").path
        // Run from the test's folder: schemathesis keeps a cache in its working directory.
        let run = try Processes.run("/bin/sh", ["-c", "cd \"$0\" && exec \"$@\"", directory.path, schemathesis,
            "run", "http://127.0.0.1:\(port)/openapi.json", "-H", "Authorization: Bearer \(admin)",
            "--exclude-operation-id", "streamLog", "--exclude-operation-id", "streamUserEvents",
            "--checks", "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,response_headers_conformance",
            "--phases", "examples,fuzzing", "--max-examples", "25", "--seed", "20261201", "-w", "2", "--no-color",
        ], environment: ["SCHEMATHESIS_HOOKS": ""])
        server.send(SIGTERM)
        let ended = try server.finish()
        #expect(run.status == 0, "\(run.output.suffix(6_000))\n\(run.errors.suffix(2_000))")
        #expect(run.output.contains("Selected: 24/26") && run.output.contains("Tested: 24"), "every operation but the two streams was fuzzed: \(run.output.suffix(1_500))")
        #expect(ended.status == 0, "\(ended.errors.suffix(1_000))")
        #expect(!ended.errors.contains(admin), "no token in the log")
    }
}
