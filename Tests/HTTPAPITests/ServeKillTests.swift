import Foundation
import Testing
import TestSupport

/// `kill -9` of the server under load while clients retry with their idempotency keys
/// (Clients/kill_under_load.py): every acknowledged request is in the log exactly once, the
/// views, caught up after the kills, equal a rebuild from the log, and the kept Merkle tree
/// the killed servers extended gives proofs that check against a signed checkpoint.
@Suite(.serialized)
struct ServeKillTests {
    @Test func killedUnderLoadEveryAcknowledgedRequestOnce() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Self.killUnderLoad(store: "sqlite:\(directory.path)/kill.sqlite")
    }

    /// The same on PostgreSQL, where the server also group-commits and decides on its cached
    /// states: a restarted server starts with an empty cache, and retries still record once.
    @Test func killedUnderLoadEveryAcknowledgedRequestOnceOnPostgres() throws {
        let url = try TestStores.postgresURL()
        let schema = TestStores.freshSchema()
        defer { TestStores.dropPostgres(url: url, schema: schema) }
        try Self.killUnderLoad(store: url + (url.contains("?") ? "&" : "?") + "schema=" + schema)
    }

    static func killUnderLoad(store: String) throws {
        let client = try Processes.run(try HTTPClient.python(), [HTTPClient.script("kill_under_load.py")], environment: [
            "EVTOOL_BIN": Processes.evtool, "EVTOOL_STORE": store, "EVTOOL_PORT": String(try FreePort.find()),
        ])
        #expect(client.status == 0 && client.output.contains("passed, 0 failed"), "\(client)")

        // The views the server kept equal a rebuild from the log.
        var before: [String] = []
        for index in 0..<8 {
            let view = try Processes.run(Processes.evtool, ["favorites", "--user", "w\(index)", "--json", "--store", store])
            #expect(view.status == 0, "\(view)")
            before.append(view.output)
        }
        let rebuilt = try Processes.run(Processes.evtool, ["rebuild", "--store", store])
        #expect(rebuilt.status == 0, "\(rebuilt)")
        for index in 0..<8 {
            let view = try Processes.run(Processes.evtool, ["favorites", "--user", "w\(index)", "--json", "--store", store])
            #expect(view.output == before[index], "user w\(index): the view after the kills equals a rebuild")
        }
        let verified = try Processes.run(Processes.evtool, ["verify", "--store", store])
        #expect(verified.status == 0, "the hash chain is intact: \(verified)")

        // The kept Merkle tree the killed servers' followers left: a signed checkpoint of it,
        // and inclusion proofs of the first, a middle and the last event checked offline.
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        #expect(try Processes.run(Processes.evtool, ["keys", "create", "--out", directory.path + "/keys"]).status == 0)
        let checkpoint = directory.path + "/cp.txt", publicKey = directory.path + "/keys/checkpoint-key.pub.pem"
        let sealed = try Processes.run(Processes.evtool, ["seal", "--key", directory.path + "/keys/checkpoint-key.pem", "--checkpoint-out", checkpoint, "--store", store])
        #expect(sealed.status == 0, "\(sealed)")
        let ids = try Processes.run(Processes.evtool, ["log", "--json", "--store", store]).output.split(separator: "\n").compactMap { line in
            (try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? String
        }
        #expect(ids.count > 2, "\(ids.count) events")
        for id in [ids.first, ids.dropFirst(ids.count / 2).first, ids.last].compactMap({ $0 }) {
            let proof = try Processes.run(Processes.evtool, ["prove", "--event", id, "--checkpoint", checkpoint, "--store", store])
            #expect(proof.status == 0, "\(proof)")
            let file = directory.path + "/proof-\(id).txt"
            try proof.output.write(toFile: file, atomically: true, encoding: .utf8)
            let checked = try Processes.run(Processes.evtool, ["check-proof", file, "--checkpoint", checkpoint, "--public-key", publicKey])
            #expect(checked.status == 0 && checked.output.hasPrefix("OK: entry "), "the proof of \(id) checks: \(checked)")
        }
        let extended = try Processes.run(Processes.evtool, ["verify", "--checkpoint", checkpoint, "--public-key", publicKey, "--store", store])
        #expect(extended.status == 0, "\(extended)")
    }
}
