import Foundation
import Testing
import TestSupport

/// `migrate` carries the source's seals and recorded checkpoints (signed by the source's key)
/// when the copy holds the source's events at the same positions, so `verify` and `seal
/// --list` on the target show them; where the positions differ (a target or source with
/// unused positions) it leaves them behind and says how many, why, and how to seal the target.
@Suite(.serialized)
struct MigrateAuditTrailTests {
    /// A source with two seals (the first signed, so one recorded checkpoint) and events after them.
    func fill(_ from: CLI, _ directory: TemporaryDirectory) throws -> (checkpoint: String, publicKey: String) {
        let keys = try CLI.bare("keys", "create", "--out", directory.path + "/keys")
        #expect(keys.status == 0, "\(keys)")
        func favorite(_ user: String, _ listing: String) throws {
            let recorded = try from.run("favorite", "--user", user, "--listing", listing, "--name", "Show \(listing)", "--venue", "Hall",
                                        "--date", "2027-01-05 20:00:00", "--category", "Music")
            #expect(recorded.status == 0, "\(recorded)")
        }
        try favorite("ann", "L1"); try favorite("bob", "L2")
        let checkpoint = directory.path + "/source.cp"
        var sealed = try from.run("seal", "--key", directory.path + "/keys/checkpoint-key.pem", "--checkpoint-out", checkpoint)
        #expect(sealed.status == 0, "\(sealed)")
        try favorite("cy", "L3")
        sealed = try from.run("seal")
        #expect(sealed.status == 0, "\(sealed)")
        try favorite("ann", "L4")
        return (checkpoint, directory.path + "/keys/checkpoint-key.pub.pem")
    }

    func carried(source: String, target: String, _ directory: TemporaryDirectory) throws {
        let from = CLI(store: source, directory: directory.path), to = CLI(store: target, directory: directory.path)
        let (checkpoint, publicKey) = try fill(from, directory)
        var result = try CLI.bare("migrate", "--from", source, "--to", target, "--quiet")
        #expect(result.status == 0 && result.output.contains("carried the source's 2 seals and 1 recorded checkpoint (signed by its keys)")
                && !result.output.contains("left behind"), "\(result)")
        result = try to.run("verify")
        #expect(result.status == 0 && result.output.contains("OK: 4 events in 3 streams, 2 seals verified"), "\(result)")
        let sourceList = try from.run("seal", "--list"), targetList = try to.run("seal", "--list")
        #expect(targetList.status == 0 && targetList.output.contains("checkpoint 1: seal 1, 2 events"), "\(targetList)")
        #expect(Self.notes(sourceList.output) == Self.notes(targetList.output), "the same signed text: \(sourceList) \(targetList)")
        result = try to.run("verify", "--checkpoint", checkpoint, "--public-key", publicKey)
        #expect(result.status == 0, "\(result)")
        // A rerun adds nothing; a new seal on the target follows the carried ones.
        result = try CLI.bare("migrate", "--from", source, "--to", target, "--quiet", "--json")
        #expect(result.status == 0 && result.output.contains(#""seals":2,"checkpoints":1,"sealsLeftBehind":0,"checkpointsLeftBehind":0"#)
                && !result.output.contains("leftBehindBecause"), "\(result)")
        result = try to.run("seal")
        #expect(result.status == 0 && result.output.contains("sealed: seal 3 at position 4"), "\(result)")
        result = try to.run("verify")
        #expect(result.status == 0 && result.output.contains("3 seals verified"), "\(result)")
    }

    /// The recorded checkpoints' texts, without the lines saying when each was recorded.
    static func notes(_ list: String) -> [Substring] {
        list.split(separator: "\n").filter { !$0.hasPrefix("checkpoint ") }
    }

    @Test("SQLite to SQLite: the seals and the recorded checkpoint come along and verify")
    func sqliteToSQLite() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        try carried(source: "sqlite:\(directory.path)/source.sqlite", target: "sqlite:\(directory.path)/target.sqlite", directory)
    }

    @Test("PostgreSQL to SQLite: the seals and the recorded checkpoint come along and verify")
    func postgresToSQLite() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let url = try TestStores.postgresURL(), schema = TestStores.freshSchema()
        defer { TestStores.dropPostgres(url: url, schema: schema) }
        try carried(source: url + (url.contains("?") ? "&" : "?") + "schema=" + schema, target: "sqlite:\(directory.path)/target.sqlite", directory)
    }

    @Test("a target whose positions differ from the source's: the seals stay behind, the output says how many, why and what to do, and the target verifies")
    func positionsDiffer() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let url = try TestStores.postgresURL(), schema = TestStores.freshSchema()
        defer { TestStores.dropPostgres(url: url, schema: schema) }
        let target = url + (url.contains("?") ? "&" : "?") + "schema=" + schema
        #expect(try Processes.run(Processes.evtool, ["init", "--store", target]).status == 0)
        let burned = try Processes.run(Processes.psql, [url, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", "SELECT setval('\(schema).position_seq', 500)"])
        #expect(burned.status == 0, "\(burned)")
        let source = "sqlite:\(directory.path)/source.sqlite"
        let to = CLI(store: target, directory: directory.path)
        _ = try fill(CLI(store: source, directory: directory.path), directory)
        var result = try CLI.bare("migrate", "--from", source, "--to", target, "--quiet", "--json")
        #expect(result.status == 0, "\(result)")
        let outcome = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any], "\(result)")
        #expect(outcome["seals"] as? Int == 0 && outcome["checkpoints"] as? Int == 0, "\(result)")
        #expect(outcome["sealsLeftBehind"] as? Int == 2 && outcome["checkpointsLeftBehind"] as? Int == 1, "\(result)")
        #expect((outcome["leftBehindBecause"] as? String)?.contains("seal 1 covers the source up to position 2") == true, "\(result)")
        result = try CLI.bare("migrate", "--from", source, "--to", target, "--quiet")
        #expect(result.status == 0 && result.output.contains("carried the source's 0 seals and 0 recorded checkpoints")
                && result.output.contains("left behind 2 seals and 1 recorded checkpoint of the source: seal 1 covers")
                && result.output.contains("'evtool seal --store postgres") && result.output.contains("' seals the target"), "\(result)")
        result = try to.run("verify")
        #expect(result.status == 0 && result.output.contains("0 seals verified"), "\(result)")
        result = try to.run("seal")
        #expect(result.status == 0 && result.output.contains("sealed: seal 1 at position"), "\(result)")
    }
}
