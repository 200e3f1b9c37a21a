import EventLog
import Foundation
import TestSupport
import Testing

/// A checkpoint or proof is read as the text that was signed, served or recorded, byte for
/// byte: another text of the same bytes (base64 with other unused bits or one `=` more, hex in
/// upper case, another line ending, a line more) is refused by `check-proof` and
/// `verify --checkpoint`, and a recorded checkpoint is compared with the file byte for byte.
/// On SQLite files and PostgreSQL, through the real binary.
@Suite("Audit: signed text is checked as it was signed")
struct SignedTextTests {
    typealias Kind = RecordedCheckpointTests.Kind

    /// `text` (canonical base64) with the last character before the padding moved to the one
    /// whose unused low bit differs: another text of the same bytes.
    static func reencoded(_ text: String) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        var characters = Array(text)
        let last = characters.lastIndex { $0 != "=" }!
        characters[last] = alphabet[alphabet.firstIndex(of: characters[last])! ^ 1]
        return String(characters)
    }

    @Test("a checkpoint file in other text for the same bytes is refused by check-proof and verify --checkpoint; the file as signed checks and is recorded", arguments: Kind.allCases)
    func rewrittenCheckpointFile(kind: Kind) throws {
        let setup = try RecordedCheckpointTests.setup(kind); defer { setup.cleanup() }
        let checkpoint = try CheckpointTests.seal(setup.base, "cp.txt")
        let publicKey = setup.base.publicKey
        let id = try #require(try CheckpointTests.eventIDs(setup.cli).dropFirst(2).first)
        let proof = try setup.cli.run("prove", "--event", id, "--checkpoint", checkpoint)
        #expect(proof.status == 0, "\(proof)")
        let proofFile = try setup.cli.file("proof.txt", proof.output)

        let text = try String(contentsOfFile: checkpoint, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let root = lines[2], signature = String(lines[5].split(separator: " ")[2])
        #expect(Data(base64Encoded: Self.reencoded(root)) == Data(base64Encoded: root), "the same bytes")
        let variants: [(name: String, text: String, reason: String)] = [
            ("root-bits", text.replacingOccurrences(of: root, with: Self.reencoded(root)), "line 3: "),
            ("root-padding", text.replacingOccurrences(of: root, with: root + "="), "line 3: "),
            ("signature-bits", text.replacingOccurrences(of: signature, with: Self.reencoded(signature)), "signature line 1: "),
            ("crlf", text.replacingOccurrences(of: "\n", with: "\r\n"), "control character 0xD"),
            ("blank-after", text + "\n", "signature line 2 is empty"),
        ]
        for variant in variants {
            let file = try setup.cli.file("cp-\(variant.name).txt", variant.text)
            let checked = try CLI.bare("check-proof", proofFile, "--checkpoint", file, "--public-key", publicKey)
            #expect(checked.status == 65 && checked.output.isEmpty && checked.errors.contains("not a checkpoint") && checked.errors.contains(variant.reason),
                    "check-proof, \(variant.name): \(checked)")
            for withKey in [true, false] {
                let verified = try Processes.run(Processes.evtool, ["verify", "--checkpoint", file, "--store", setup.cli.store] + (withKey ? ["--public-key", publicKey] : []))
                #expect(verified.status == 65 && !verified.output.contains("recorded in the store") && verified.errors.contains(variant.reason),
                        "verify, \(variant.name), key \(withKey): \(verified)")
            }
        }
        // The file as signed.
        let checked = try CLI.bare("check-proof", proofFile, "--checkpoint", checkpoint, "--public-key", publicKey)
        #expect(checked.status == 0 && checked.output.contains("(signed by key "), "\(checked)")
        let verified = try setup.cli.run("verify", "--checkpoint", checkpoint, "--public-key", publicKey)
        #expect(verified.status == 0 && verified.output.hasSuffix("; recorded in the store as checkpoint 1\n"), "\(verified)")
    }

    @Test("a proof, as printed or as served in JSON, with a hash in other text for the same bytes is refused by check-proof", arguments: Kind.allCases)
    func rewrittenProof(kind: Kind) throws {
        let setup = try RecordedCheckpointTests.setup(kind); defer { setup.cleanup() }
        let checkpoint = try CheckpointTests.seal(setup.base, "cp.txt")
        let publicKey = setup.base.publicKey
        let ids = try CheckpointTests.eventIDs(setup.cli)
        // An event with an audit path and a chain hash with a letter in it.
        var found: (id: String, text: String, json: String)?
        for id in ids.dropFirst() {
            let text = try setup.cli.run("prove", "--event", id, "--checkpoint", checkpoint)
            let json = try setup.cli.run("prove", "--event", id, "--checkpoint", checkpoint, "--json")
            #expect(text.status == 0 && json.status == 0, "\(text)\n\(json)")
            let entry = text.output.split(separator: "\n")[4].dropFirst("entry ".count)
            if entry.contains(where: { "abcdef".contains($0) }) {
                found = (id, text.output, json.output)
                break
            }
        }
        let proof = try #require(found)
        let lines = proof.text.split(separator: "\n").map(String.init)
        let entry = String(lines[4].dropFirst("entry ".count)), pathHash = lines[6]
        let variants: [(name: String, text: String, reason: String)] = [
            ("entry-upper.txt", proof.text.replacingOccurrences(of: entry, with: entry.uppercased()), "line 5: "),
            ("path-bits.txt", proof.text.replacingOccurrences(of: pathHash, with: Self.reencoded(pathHash)), "line 7: "),
            ("path-padding.txt", proof.text.replacingOccurrences(of: pathHash, with: pathHash + "="), "line 7: "),
            ("entry-upper.json", proof.json.replacingOccurrences(of: entry, with: entry.uppercased()), "'entry' is not a chain hash"),
            ("path-bits.json", proof.json.replacingOccurrences(of: pathHash, with: Self.reencoded(pathHash)), "'path.0' is not a SHA-256 hash in canonical base64"),
        ]
        for variant in variants {
            let file = try setup.cli.file(variant.name, variant.text)
            let checked = try CLI.bare("check-proof", file, "--checkpoint", checkpoint, "--public-key", publicKey)
            #expect(checked.status == 65 && checked.output.isEmpty && checked.errors.contains("is not a proof") && checked.errors.contains(variant.reason),
                    "\(variant.name): \(checked)")
        }
        for (name, text) in [("proof.txt", proof.text), ("proof.json", proof.json)] {
            let checked = try CLI.bare("check-proof", try setup.cli.file(name, text), "--checkpoint", checkpoint, "--public-key", publicKey)
            #expect(checked.status == 0, "\(name): \(checked)")
        }
    }

    @Test("a recorded checkpoint rewritten to other base64 text for the same root fails verify; a file differing from the record only in Unicode form is refused", arguments: Kind.allCases)
    func rewrittenRecord(kind: Kind) throws {
        let setup = try RecordedCheckpointTests.setup(kind); defer { setup.cleanup() }
        let checkpoint = try CheckpointTests.seal(setup.base, "cp.txt")
        let text = try String(contentsOfFile: checkpoint, encoding: .utf8)
        let root = text.split(separator: "\n")[2]
        let rewritten = text.replacingOccurrences(of: root, with: Self.reencoded(String(root)))
        try setup.tamper("UPDATE S.signed_checkpoints SET note = '\(rewritten)' WHERE checkpoint = 1;", tables: ["signed_checkpoints"])
        var result = try setup.cli.run("verify")
        #expect(result.status == 65 && result.errors.hasPrefix("Error: the log fails verification: the recorded checkpoint 1 is not a checkpoint")
                && result.errors.contains("line 3: "), "\(result)")
        result = try setup.cli.run("verify", "--checkpoint", checkpoint, "--public-key", setup.base.publicKey)
        #expect(result.status == 65 && result.errors.contains("the recorded checkpoint 1"), "\(result)")

        // A record and a file whose origins are the same characters in two Unicode forms (equal
        // as Swift strings, not as bytes): the file is not the recorded text.
        let composed = "\u{E9}" + text.dropFirst(), decomposed = "e\u{301}" + text.dropFirst()
        #expect(composed == decomposed && Array(composed.utf8) != Array(decomposed.utf8))
        try setup.tamper("UPDATE S.signed_checkpoints SET note = '\(composed)' WHERE checkpoint = 1;", tables: ["signed_checkpoints"])
        let file = setup.base.directory.path + "/cp-decomposed.txt"
        try Data(decomposed.utf8).write(to: URL(fileURLWithPath: file))
        result = try setup.cli.run("verify", "--checkpoint", file)
        #expect(result.status == 65 && !result.output.contains("recorded in the store")
                && result.errors.contains("the recorded checkpoint 1 for seal 1 differs from the checkpoint file"), "\(result)")
        let composedFile = setup.base.directory.path + "/cp-composed.txt"
        try Data(composed.utf8).write(to: URL(fileURLWithPath: composedFile))
        result = try setup.cli.run("verify", "--checkpoint", composedFile)
        #expect(result.status == 0 && result.output.hasSuffix("; recorded in the store as checkpoint 1\n"), "\(result)")
    }
}
