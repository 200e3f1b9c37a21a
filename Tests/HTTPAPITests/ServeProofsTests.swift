import Foundation
import Testing
import TestSupport

/// What `evtool serve` serves an auditor is checked where there is no store: a server with
/// `--seal-key` on each store, an httpx client (Clients/serve_proofs.py) that fetches the newest
/// checkpoints and proofs and writes them to files, then `evtool check-proof … --checkpoint …
/// --public-key …` on those files, and `evtool prove --json` on the store printing the same bytes.
@Suite(.serialized)
struct ServeProofsTests {
    @Test func servedProofsCheckOfflineOnSQLite() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try ProofScenario(store: "sqlite:\(directory.path)/proofs.sqlite", directory: directory.path).run()
    }

    @Test func servedProofsCheckOfflineOnPostgres() throws {
        let url = try TestStores.postgresURL()
        let schema = TestStores.freshSchema()
        defer { TestStores.dropPostgres(url: url, schema: schema) }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try ProofScenario(store: url + (url.contains("?") ? "&" : "?") + "schema=" + schema, directory: directory.path).run()
    }
}

/// Starts a signing server, runs the auditor's client, then checks what it saved.
struct ProofScenario {
    let store: String
    let directory: String

    func run() throws {
        let keys = directory + "/keys"
        let made = try Processes.run(Processes.evtool, ["keys", "create", "--out", keys])
        try #require(made.status == 0, "\(made)")
        let publicKey = keys + "/checkpoint-key.pub.pem"
        let tokensFile = directory + "/tokens.txt"
        var tokens: [String: String] = [:]
        for role in ["app", "auditor", "admin"] {
            let token = try Processes.run(Processes.evtool, ["token", "create", "--role", role, "--tokens", tokensFile, "--name", "proofs-\(role)"])
            try #require(token.status == 0, "\(token)")
            tokens[role] = token.output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let port = try FreePort.find()
        let server = try Processes.start(Processes.evtool, [
            "serve", "--tokens", tokensFile, "--listen", "127.0.0.1:\(port)", "--store", store, "--seal-key", keys + "/checkpoint-key.pem",
        ])
        try FreePort.waitUntilListening(port, process: server)
        let out = directory + "/served"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let client = try Processes.run(try HTTPClient.python(), [HTTPClient.script("serve_proofs.py")], environment: [
            "EVTOOL_BASE": "http://127.0.0.1:\(port)",
            "EVTOOL_TOKENS": "{" + tokens.map { "\"\($0.key)\":\"\($0.value)\"" }.joined(separator: ",") + "}",
            "EVTOOL_OUT": out,
        ])
        server.send(SIGTERM)
        let ended = try server.finish()
        try #require(client.status == 0 && client.output.contains("passed, 0 failed"), "\(client)\nserver: \(ended.errors.suffix(3_000))")
        #expect(ended.status == 0, "\(ended.errors.suffix(2_000))")

        let ids = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/ids.json"))) as? [String: String])
        let first = try #require(ids["first"]), later = try #require(ids["later"])
        let cp1 = out + "/cp1.txt", cp2 = out + "/cp2.txt"

        // Checked with no store: the served proof against the served checkpoint and the public key.
        var checked = try Processes.run(Processes.evtool, ["check-proof", out + "/inclusion.json", "--checkpoint", cp1, "--public-key", publicKey])
        #expect(checked.status == 0 && checked.output.hasPrefix("OK: entry ") && checked.output.contains(" is leaf 1 of the 5 events of checkpoint \(cp1) (signed by key ")
                && checked.output.contains("the proof names it event \(first)"), "\(checked)")
        checked = try Processes.run(Processes.evtool, ["check-proof", out + "/inclusion-at-8.json", "--checkpoint", cp2, "--public-key", publicKey])
        #expect(checked.status == 0 && checked.output.contains("is leaf 6 of the 8 events"), "\(checked)")
        checked = try Processes.run(Processes.evtool, ["check-proof", out + "/consistency.json", "--checkpoint", cp1, "--checkpoint", cp2, "--public-key", publicKey])
        #expect(checked.status == 0 && checked.output.hasPrefix("OK: checkpoint \(cp2) (8 events, signed by key "), "\(checked)")

        // With the event's exported line, the proof is about exactly that content.
        let export = try Processes.run(Processes.evtool, ["export", "--store", store])
        let line = try #require(export.output.split(separator: "\n").first { $0.contains("\"id\":\"\(first)\"") }, "\(export)")
        let eventFile = directory + "/event.jsonl"
        try (line + "\n").write(toFile: eventFile, atomically: true, encoding: .utf8)
        checked = try Processes.run(Processes.evtool, ["check-proof", out + "/inclusion.json", "--checkpoint", cp1, "--public-key", publicKey, "--event-file", eventFile])
        #expect(checked.status == 0 && checked.output.hasSuffix(", with the content of \(eventFile)\n"), "\(checked)")

        // The checks can fail: the wrong checkpoint, another key, a changed hash.
        checked = try Processes.run(Processes.evtool, ["check-proof", out + "/inclusion.json", "--checkpoint", cp2, "--public-key", publicKey])
        #expect(checked.status == 65 && checked.errors.contains("the proof is for a tree of 5 events, the checkpoint's has 8"), "\(checked)")
        let otherKeys = directory + "/other-keys"
        #expect(try Processes.run(Processes.evtool, ["keys", "create", "--out", otherKeys]).status == 0)
        checked = try Processes.run(Processes.evtool, ["check-proof", out + "/inclusion.json", "--checkpoint", cp1, "--public-key", otherKeys + "/checkpoint-key.pub.pem"])
        #expect(checked.status == 65 && checked.errors.contains("not signed by this key"), "\(checked)")
        let served = try String(contentsOfFile: out + "/consistency.json", encoding: .utf8)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(served.utf8)) as? [String: Any])
        let path = try #require(object["path"] as? [String])
        try #require(!path.isEmpty)
        let changed = served.replacingOccurrences(of: path[0], with: Data(repeating: 1, count: 32).base64EncodedString())
        let changedFile = directory + "/changed.json"
        try changed.write(toFile: changedFile, atomically: true, encoding: .utf8)
        checked = try Processes.run(Processes.evtool, ["check-proof", changedFile, "--checkpoint", cp1, "--checkpoint", cp2, "--public-key", publicKey])
        #expect(checked.status == 65 && checked.errors.contains("the proof does not hold"), "\(checked)")

        // The server served the documents `evtool prove --json` prints from the same store.
        let inclusion = try String(contentsOfFile: out + "/inclusion.json", encoding: .utf8)
        let proved = try Processes.run(Processes.evtool, ["prove", "--event", first, "--checkpoint", cp1, "--json", "--store", store])
        #expect(proved.status == 0 && proved.output == inclusion + "\n", "prove --json: \(proved)\nserved: \(inclusion)")
        let provedLater = try Processes.run(Processes.evtool, ["prove", "--event", later, "--checkpoint", cp2, "--json", "--store", store])
        let servedLater = try String(contentsOfFile: out + "/inclusion-at-8.json", encoding: .utf8)
        #expect(provedLater.status == 0 && provedLater.output == servedLater + "\n", "\(provedLater)")
        let consistent = try Processes.run(Processes.evtool, ["prove", "--from", cp1, "--to", cp2, "--json", "--store", store])
        #expect(consistent.status == 0 && consistent.output == served + "\n", "prove --from --to --json: \(consistent)\nserved: \(served)")
    }
}
