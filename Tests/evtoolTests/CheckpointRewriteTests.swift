import EventLog
import Foundation
import TestSupport
import Testing

/// Each kind of rewrite below a checkpoint taken before it, made by the strongest attacker:
/// the whole store rebuilt from an edited export, so that every chain hash, every seal and the
/// kept Merkle tree are recomputed to match and plain `verify` passes. `verify --checkpoint`
/// names each (exit 65), on SQLite and on PostgreSQL; an untouched copy passes.
@Suite("Audit: every rewrite below a checkpoint, with chains, seals and tree recomputed")
struct CheckpointRewriteTests {
    enum Rewrite: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case none, modify, deleteMiddle, insert, reorder, truncate, fork, replaceSeals
        var testDescription: String { rawValue }
    }

    enum Kind: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case sqlite, postgres
        var testDescription: String { rawValue }
    }

    /// A field of an export line, as text (the lines are edited as text, so that every
    /// payload keeps its bytes and an untouched event its chain hash).
    static func field(_ line: String, _ name: String) -> String? {
        guard let start = line.range(of: "\"\(name)\":\"") else { return nil }
        return line[start.upperBound...].split(separator: "\"", maxSplits: 1).first.map(String.init)
    }

    /// Replaces the value of a top-level number or string field of an export line.
    static func replacing(_ line: String, _ name: String, with value: String?) -> String {
        let pattern = "\"\(name)\":(\"[^\"]*\"|-?[0-9]+),?"
        guard let range = line.range(of: pattern, options: .regularExpression) else { return line }
        let replacement = value.map { "\"\(name)\":\($0)," } ?? ""
        var text = line
        text.replaceSubrange(range, with: replacement)
        return text.replacingOccurrences(of: ",}", with: "}")
    }

    /// The export's lines edited by `rewrite` below `size`, with versions renumbered per
    /// stream and positions and hashes dropped (import chains them anew).
    static func edited(_ lines: [String], _ rewrite: Rewrite, size: Int) throws -> [String] {
        var lines = lines
        let k = size / 2
        switch rewrite {
        case .none, .replaceSeals: break
        case .modify:
            let type = try #require(field(lines[k], "type"))
            lines[k] = replacing(lines[k], "type", with: "\"\(type)Forged\"")
        case .deleteMiddle:
            lines.remove(at: k)
        case .insert:
            lines.insert(replacing(lines[k], "id", with: "\"\(UUID().uuidString.lowercased())\""), at: k)
        case .reorder:
            let i = try #require((k..<(lines.count - 1)).first { field(lines[$0], "stream") != field(lines[$0 + 1], "stream") })
            lines.swapAt(i, i + 1)
        case .truncate:
            lines.removeLast(lines.count - (size - 2))
        case .fork:
            lines.removeLast(lines.count - k)
            for n in 0..<size {
                lines.append(#"{"stream":"forker","version":1,"id":"\#(UUID().uuidString.lowercased())","type":"Note","recordedAt":"2026-12-01T10:00:00.000000Z","data":{"n":\#(n)},"metadata":{}}"#)
            }
        }
        var versions: [String: Int] = [:]
        return lines.map { line in
            let stream = field(line, "stream") ?? ""
            versions[stream, default: 0] += 1
            let renumbered = replacing(line, "version", with: String(versions[stream] ?? 1))
            return replacing(replacing(renumbered, "hash", with: nil), "position", with: nil)
        }
    }

    @Test("verify --checkpoint names the rewrite; an untouched rebuild passes", arguments: Kind.allCases, Rewrite.allCases)
    func rewriteBelowCheckpoint(kind: Kind, rewrite: Rewrite) throws {
        let setup = try CheckpointTests.setup(); defer { setup.directory.remove() }
        let checkpoint = try CheckpointTests.seal(setup, "cp.txt")
        let size = Int(try Checkpoint(text: String(contentsOfFile: checkpoint, encoding: .utf8)).size)
        #expect(try setup.cli.run("demo", "--users", "2", "--actions", "8", "--seed", "9").status == 0)
        let export = try setup.cli.run("export")
        try #require(export.status == 0, "\(export)")
        let lines = export.output.split(separator: "\n").map(String.init)
        let edited = try Self.edited(lines, rewrite, size: size)
        let text = edited.joined(separator: "\n") + "\n"
        let file = try setup.cli.file("rewritten.jsonl", text)

        // The attacker's store: imported, sealed (new seals), its tree built by verify.
        var schema = ""
        let store: String
        switch kind {
        case .sqlite:
            store = "sqlite:" + setup.directory.path + "/rewritten.sqlite"
        case .postgres:
            let url = try TestStores.postgresURL()
            schema = TestStores.freshSchema()
            store = url + (url.contains("?") ? "&" : "?") + "schema=" + schema
        }
        defer { if kind == .postgres, let url = try? TestStores.postgresURL() { TestStores.dropPostgres(url: url, schema: schema) } }
        let attacker = CLI(store: store, directory: setup.directory.path)
        let imported = try attacker.run("import", file)
        try #require(imported.status == 0, "\(imported)")
        #expect(try attacker.run("seal").status == 0)
        let plain = try attacker.run("verify")
        #expect(plain.status == 0, "the rewritten store is consistent in itself: \(plain)")

        let result = try attacker.run("verify", "--checkpoint", checkpoint, "--public-key", setup.publicKey)
        switch rewrite {
        case .none, .replaceSeals:
            // The same log rebuilt (its seals replaced by new ones): it still extends the checkpoint.
            #expect(result.status == 0 && result.output.contains("extends checkpoint"), "\(result)")
        case .truncate:
            #expect(result.status == 65 && result.errors.contains("it has \(size - 2) events, fewer than the checkpoint covers: it was truncated or events were removed"), "\(result)")
        case .modify, .deleteMiddle, .insert, .reorder, .fork:
            #expect(result.status == 65 && result.errors.contains("its first \(size) events are not the ones the checkpoint covers: an event there was modified, removed, inserted or reordered (with the chains and seals rewritten to match), or this store is a fork"), "\(result)")
        }
        // A proof made from the rewritten store does not check against the checkpoint either.
        if rewrite != .none, rewrite != .replaceSeals, rewrite != .truncate {
            let id = try #require(Self.field(edited[0], "id"))
            let proof = try attacker.run("prove", "--event", id, "--checkpoint", checkpoint)
            #expect(proof.status == 65 && proof.errors.contains("do not have the root of checkpoint"), "\(proof)")
        }
    }
}
