import Foundation
import TestSupport
import Testing

/// Every `--json` output of the built binary, validated against its schema in docs/schemas/
/// with the `jsonschema` package (scripts/validate-json.py in the venv of scripts/python-env.sh).
@Suite("evtool: JSON output and its schemas")
struct JSONSchemaTests {
    /// What the test has printed, as `SCHEMA<TAB>JSON` lines for the validator.
    final class Outputs {
        var lines: [String] = []
        func add(_ schema: String, _ text: String) {
            for line in text.split(separator: "\n", omittingEmptySubsequences: true) { lines.append(schema + "\t" + line) }
        }
    }

    @Test("every command's --json output validates against its schema")
    func everyOutputValidates() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let cli = CLI(store: "sqlite:\(directory.path)/s.sqlite", directory: directory.path)
        let outputs = Outputs()
        func ok(_ schema: String, _ arguments: [String], store: Bool = true, input: String? = nil) throws {
            let result = try Processes.run(Processes.evtool, arguments + (store ? ["--store", cli.store] : []), input: input)
            #expect(result.status == 0, "\(arguments): \(result)")
            #expect(!result.output.isEmpty, "\(arguments) printed nothing")
            outputs.add(schema, result.output)
        }
        try ok("init", ["init", "--json"])
        try ok("outcome", ["search", "--user", "ada", "--keyword", "jazz \"quoted\" \\ é", "--here", "34.02,-118.28", "--json"])
        try ok("outcome", ["search", "--user", "ada", "--keyword", "opera", "--location", "Los Angeles", "--json"])
        try ok("outcome", ["favorite", "--user", "ada", "--listing", "L7", "--name", "Hamilton", "--venue", "Pantages", "--date", "2026-12-05 19:30:00", "--category", "Arts & Theatre", "--json"])
        try ok("outcome", ["favorite", "--user", "ada", "--listing", "L7", "--name", "Hamilton", "--venue", "Pantages", "--date", "2026-12-05 19:30:00", "--category", "Arts & Theatre", "--json"])
        try ok("outcome", ["view", "--user", "ada", "--listing", "L7", "--details", try cli.file("details.json", Samples.details), "--json"])
        try ok("outcome", ["search", "--user", "ada", "--keyword", "rock", "--location", "LA", "--request-id", "q1", "--json"])
        try ok("outcome", ["search", "--user", "ada", "--keyword", "rock", "--location", "LA", "--request-id", "q1", "--json"])
        try ok("append", ["append", "--stream", "other", "--type", "Note", "--data", "{\n\"multi\": \"line\"\n}", "--json"])
        try ok("append", ["append", "--stream", "other", "--type", "Note", "--data", "{}", "--id", "00000000-0000-4000-8000-0000000000aa", "--json"])
        try ok("append", ["append", "--stream", "other", "--type", "Note", "--data", "{}", "--id", "00000000-0000-4000-8000-0000000000aa", "--json"])
        try ok("event", ["log", "--json"])
        try ok("event", ["export"])
        try ok("cloudevent", ["export", "--format", "cloudevents"])
        try ok("history-entry", ["history", "--user", "ada", "--json"])
        try ok("favorites", ["favorites", "--user", "ada", "--json"])
        try ok("recent-searches", ["recent", "--user", "ada", "--json"])
        try ok("recently-viewed", ["viewed", "--user", "ada", "--json"])
        try ok("details", ["details", "--listing", "L7", "--json"])
        try ok("details", ["details", "--listing", "L-none", "--json"])
        try ok("project", ["project", "--json"])
        try ok("rebuild", ["rebuild", "--json"])
        try ok("stats", ["stats", "--json"])
        try ok("verify", ["verify", "--json"])
        try ok("verify", ["verify", "--stream", "other", "--json"])
        // After archive: checked from the boundary (the archived events counted apart), and with the file.
        let archivedStore = "sqlite:\(directory.path)/archived.sqlite"
        #expect(try Processes.run(Processes.evtool, ["demo", "--quiet", "--actions", "40", "--users", "3", "--store", archivedStore]).status == 0)
        #expect(try Processes.run(Processes.evtool, ["archive", "--before", "10", "--to", directory.path + "/a1.jsonl", "--store", archivedStore]).status == 0)
        try ok("verify", ["verify", "--json", "--store", archivedStore], store: false)
        try ok("verify", ["verify", "--json", "--archive", directory.path + "/a1.jsonl", "--store", archivedStore], store: false)
        try ok("verify", ["verify", "--json", "--stream", "user-00001", "--store", archivedStore], store: false)
        try ok("seal", ["seal", "--json"])
        try ok("seal", ["seal", "--json", "--checkpoint-out", directory.path + "/cp.txt"])
        let export = try cli.run("export").output
        let copy = CLI(store: "sqlite:\(directory.path)/copy.sqlite", directory: directory.path)
        try ok("import", ["import", try cli.file("export.jsonl", export), "--json", "--store", copy.store], store: false)
        try ok("migrate", ["migrate", "--from", cli.store, "--to", "sqlite:\(directory.path)/migrated.sqlite", "--json"], store: false)
        try ok("forget", ["forget", "--user", "ada", "--reason", "GDPR request #1", "--by", "alice", "--json"])
        try ok("roles", ["roles", "sql", "--owner", "o", "--app", "a", "--auditor", "r", "--json"], store: false)

        // Errors: one JSON object on standard error, nothing on standard output, `code` the exit code.
        let failing: [([String], Int32, String?)] = [
            (["log", "--limit", "0", "--json", "--store", cli.store], 64, "limit"),
            (["favorites", "--json", "--store", cli.store], 64, "user"),
            (["nonesuch", "--json"], 64, nil),
            (["search", "--user", "bob", "--keyword", " ", "--here", "1,2", "--json", "--store", cli.store], 65, nil),
            (["import", try cli.file("bad.jsonl", export.split(separator: "\n")[0] + "\n{\"position\":1,\n"), "--json", "--store", "sqlite:\(directory.path)/bad.sqlite"], 65, nil),
            (["verify", "--json", "--store", "sqlite:\(directory.path)/missing.sqlite"], 69, nil),
            (["log", "--json", "--store", "postgres://u:secret@127.0.0.1:1/x?connect_timeout=1"], 69, nil),
        ]
        for (arguments, code, field) in failing {
            let result = try Processes.run(Processes.evtool, arguments)
            #expect(result.status == code, "\(arguments): \(result)")
            #expect(result.output.isEmpty, "\(arguments): \(result)")
            let lines = result.errors.split(separator: "\n")
            #expect(lines.count == 1, "one line on standard error: \(result)")
            outputs.add("error", result.errors)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(result.errors.utf8)) as? [String: Any], "\(result)")
            #expect((object["code"] as? Int).map(Int32.init) == code, "\(result)")
            if let field { #expect(object["field"] as? String == field, "\(result)") }
            #expect(!result.errors.contains("secret"), "passwords stay masked: \(result)")
        }
        let badImport = try Processes.run(Processes.evtool, failing[4].0)
        let importError = try #require(try JSONSerialization.jsonObject(with: Data(badImport.errors.utf8)) as? [String: Any])
        #expect(importError["line"] as? Int == 2 && importError["kind"] as? String == "invalidData", "\(badImport)")

        let validated = try Self.validate(outputs.lines)
        #expect(validated.status == 0, "\(validated)")
        #expect(validated.output.contains("\(outputs.lines.count) documents valid"), "\(validated)")
    }

    @Test("the validator refuses a document its schema does not allow (so the test above can fail)")
    func validatorRefuses() throws {
        let refused = try Self.validate([
            "event\t" + #"{"position":0,"stream":"s","version":1,"id":"x","type":"T","recordedAt":"now","hash":"00","data":{}}"#,
        ])
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.output.contains("line 1 (event)"), "\(refused)")
        let wrongError = try Self.validate(["error\t" + #"{"code":64,"message":"no kind"}"#])
        #expect(wrongError.status == 1, "\(wrongError)")
    }

    @Test("one shape for an event: log, history and export name the same members the same way, and history carries the data")
    func oneEventShape() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let cli = CLI(store: "sqlite:\(directory.path)/s.sqlite", directory: directory.path)
        _ = try cli.run("favorite", "--user", "ada", "--listing", "L7", "--name", "Hamilton", "--venue", "Pantages", "--date", "2026-12-05 19:30:00", "--category", "Music")
        func object(_ text: String) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
        }
        let logged = try object(try cli.run("log", "--json").output)
        let exported = try object(try cli.run("export").output)
        let history = try object(try cli.run("history", "--user", "ada", "--json").output)
        #expect(Set(logged.keys) == ["position", "stream", "version", "id", "type", "recordedAt", "hash", "data", "metadata"])
        #expect(Set(exported.keys) == Set(logged.keys))
        #expect(Set(history.keys) == Set(logged.keys).union(["summary"]))
        for key in logged.keys {
            let same = try JSONSerialization.data(withJSONObject: [logged[key]!], options: .sortedKeys) == JSONSerialization.data(withJSONObject: [history[key]!], options: .sortedKeys)
            #expect(same, "'\(key)' differs between log --json and history --json")
        }
        #expect((history["data"] as? [String: Any])?["listingID"] as? String == "L7")
        #expect(history["summary"] as? String == #"favorited "Hamilton" (L7)"#)
    }

    @Test("import reads today's export and an older one (no hash, dataText) alike")
    func importReadsTodaysAndOlderExports() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let cli = CLI(store: "sqlite:\(directory.path)/s.sqlite", directory: directory.path)
        _ = try cli.run("search", "--user", "ada", "--keyword", "jazz", "--here", "34.02,-118.28")
        _ = try cli.run("append", "--stream", "notes", "--type", "Note", "--data", "{\n\"multi\": 1\n}")
        let export = try cli.run("export").output
        #expect(export.contains(#""dataText":"{\n\"multi\": 1\n}""#), "\(export)")
        let copy = CLI(store: "sqlite:\(directory.path)/copy.sqlite", directory: directory.path)
        let imported = try copy.run("import", try cli.file("today.jsonl", export))
        #expect(imported.status == 0, "\(imported)")
        #expect(try copy.run("export").output == export, "an import of today's export exports the same bytes")
        #expect(try copy.run("verify").status == 0)

        // A line as exports before the hash member wrote it.
        let older = #"{"position":1,"stream":"bob","version":1,"id":"0190f3c0-0000-7000-8000-000000000001","type":"Note","recordedAt":"2026-03-01T10:00:00.000000Z","data":{"a":1},"metadata":{}}"#
        let old = CLI(store: "sqlite:\(directory.path)/old.sqlite", directory: directory.path)
        let result = try old.run("import", try cli.file("older.jsonl", older + "\n"), "--json")
        #expect(result.status == 0 && result.output.contains(#""imported":1"#), "\(result)")
        #expect(try old.run("log", "--json").output.contains(#""data":{"a":1}"#))
    }

    @Test("prove --json and what evtool serve serves at /v1/checkpoints/latest and /v1/proofs validate; the OpenAPI schemas are these")
    func proofsAndServedDocumentsValidate() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let cli = CLI(store: "sqlite:\(directory.path)/p.sqlite", directory: directory.path)
        let outputs = Outputs()
        #expect(try CLI.bare("keys", "create", "--out", directory.path + "/keys").status == 0)
        let key = directory.path + "/keys/checkpoint-key.pem"
        for listing in ["L1", "L2", "L3"] {
            #expect(try cli.run("favorite", "--user", "ada", "--listing", listing, "--name", "Hamilton", "--venue", "Pantages", "--date", "2026-12-05 19:30:00", "--category", "Music").status == 0)
        }
        #expect(try cli.run("seal", "--key", key, "--checkpoint-out", directory.path + "/cp1.txt").status == 0)
        #expect(try cli.run("search", "--user", "bob", "--keyword", "jazz", "--here", "34.02,-118.28").status == 0)
        #expect(try cli.run("seal", "--key", key, "--checkpoint-out", directory.path + "/cp2.txt").status == 0)
        let log = try cli.run("log", "--json").output.split(separator: "\n")
        let second = try #require(try JSONSerialization.jsonObject(with: Data(log[1].utf8)) as? [String: Any])
        let id = try #require(second["id"] as? String)
        for arguments in [["prove", "--event", id, "--json"], ["prove", "--event", id, "--checkpoint", directory.path + "/cp1.txt", "--json"],
                          ["prove", "--from", directory.path + "/cp1.txt", "--to", directory.path + "/cp2.txt", "--json"]] {
            let result = try Processes.run(Processes.evtool, arguments + ["--store", cli.store])
            #expect(result.status == 0 && result.output.hasPrefix("{") && result.output.split(separator: "\n").count == 1, "\(arguments): \(result)")
            outputs.add("proof", result.output)
        }

        let port = try LocalPort.free()
        let server = try Processes.start(Processes.evtool, ["serve", "--no-auth", "--listen", "127.0.0.1:\(port)", "--store", cli.store])
        try LocalPort.waitUntilListening(port, process: server)
        for (schema, path) in [("checkpoint", "/v1/checkpoints/latest"), ("proof", "/v1/proofs/inclusion?event=\(id)"),
                               ("proof", "/v1/proofs/inclusion?event=\(id)&size=4"), ("proof", "/v1/proofs/consistency?from=3&to=4")] {
            let fetched = try Processes.run("/usr/bin/curl", ["-s", "--fail-with-body", "--max-time", "20", "http://127.0.0.1:\(port)" + path])
            #expect(fetched.status == 0 && fetched.output.hasPrefix("{"), "\(path): \(fetched)")
            outputs.add(schema, fetched.output)
        }
        server.send(SIGTERM)
        #expect(try server.finish().status == 0)
        #expect(outputs.lines.count == 7)
        let validated = try Self.validate(outputs.lines)
        #expect(validated.status == 0 && validated.output.contains("7 documents valid"), "\(validated)")
        let refused = try Self.validate(["proof\t" + #"{"proof":"inclusion","index":0,"size":1,"event":"x","entry":"00","previous":"00","path":[]}"#,
                                         "checkpoint\t" + #"{"number":1}"#])
        #expect(refused.status == 1 && refused.output.contains("line 1 (proof)") && refused.output.contains("line 2 (checkpoint)"), "\(refused)")

        // docs/openapi.json describes the same documents (its schemas are these, without the header).
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        func json(_ path: String) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent(path))) as? [String: Any], "\(path)")
        }
        let components = try #require((try json("docs/openapi.json")["components"] as? [String: Any])?["schemas"] as? [String: Any])
        func same(_ left: Any?, _ right: Any?) throws -> Bool {
            guard let left, let right else { return false }
            return try JSONSerialization.data(withJSONObject: left, options: .sortedKeys) == JSONSerialization.data(withJSONObject: right, options: .sortedKeys)
        }
        var checkpoint = try json("docs/schemas/checkpoint.schema.json")
        for header in ["$schema", "$id", "title"] { checkpoint[header] = nil }
        #expect(try same(checkpoint, components["Checkpoint"]), "docs/schemas/checkpoint.schema.json and the OpenAPI Checkpoint differ")
        let proof = try #require(try json("docs/schemas/proof.schema.json")["$defs"] as? [String: Any])
        #expect(try same(proof["inclusion"], components["InclusionProof"]), "proof.schema.json's inclusion and the OpenAPI InclusionProof differ")
        #expect(try same(proof["consistency"], components["ConsistencyProof"]), "proof.schema.json's consistency and the OpenAPI ConsistencyProof differ")
        // The outcomes both faces answer with: one schema each, the OpenAPI component the same.
        for (file, component) in [("seal", "SealOutcome"), ("forget", "ErasureOutcome"), ("rebuild", "RebuildOutcome")] {
            var schema = try json("docs/schemas/\(file).schema.json")
            for header in ["$schema", "$id", "title"] { schema[header] = nil }
            #expect(try same(schema, components[component]), "docs/schemas/\(file).schema.json and the OpenAPI \(component) differ")
        }
        var stats = try json("docs/schemas/stats.schema.json")
        for header in ["$schema", "$id", "title"] { stats[header] = nil }
        var served = try #require(components["Stats"] as? [String: Any])
        served["description"] = nil
        #expect(try same(stats, served), "docs/schemas/stats.schema.json and the OpenAPI Stats (GET /v1/stats) differ")
    }

    /// Runs scripts/validate-json.py over `lines` in the venv's Python.
    static func validate(_ lines: [String]) throws -> Processes.Result {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var python = ProcessInfo.processInfo.environment["EVTOOL_TEST_PYTHON"] ?? ""
        if python.isEmpty {
            let made = try Processes.run("/bin/bash", [root.appendingPathComponent("scripts/python-env.sh").path])
            try #require(made.status == 0, "scripts/python-env.sh failed: \(made)")
            python = made.output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return try Processes.run(python, [root.appendingPathComponent("scripts/validate-json.py").path], input: lines.joined(separator: "\n") + "\n")
    }
}
