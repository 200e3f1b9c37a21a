@testable import AuditReport
import EventLog
import Foundation
import StorePostgres
import StoreSQLite
import TestSupport
import Testing

/// The seal a user's report shows is re-checked while the page is made: its hash, its link to
/// the seals before it, the log's count up to it, and a signed checkpoint when one is given;
/// a tampered seal is shown as failed on both stores.
@Suite("Report: the seal shown is re-verified", .serialized)
struct ReportSealTests {
    /// The page's seal check: the overall status and each step's (name, status).
    struct Checked {
        var status: String?
        var steps: [String: String]
        var page: String
    }

    static func checked(_ page: String) -> Checked {
        func first(_ pattern: String, in text: String) -> [String] {
            guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
            return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
                (1..<match.numberOfRanges).compactMap { Range(match.range(at: $0), in: text).map { String(text[$0]) } }
            }.first ?? []
        }
        let status = first(#"id="seal-check" class="[a-z]+" data-status="([a-z-]+)""#, in: page).first
        var steps: [String: String] = [:]
        if let regex = try? NSRegularExpression(pattern: #"<li class="[a-z]+" data-check="([a-z-]+)" data-status="([a-z-]+)">"#) {
            for match in regex.matches(in: page, range: NSRange(page.startIndex..., in: page)) {
                if let name = Range(match.range(at: 1), in: page), let value = Range(match.range(at: 2), in: page) {
                    steps[String(page[name])] = String(page[value])
                }
            }
        }
        return Checked(status: status, steps: steps, page: page)
    }

    static func report(_ store: String, _ extra: [String] = []) throws -> Checked {
        checked(try Shell.evtool(["report", "--user", "ada"] + extra, store: store))
    }

    /// A tampering and what it must make fail.
    struct Tampering: Sendable {
        var name: String
        /// The seal's fields after tampering (the store's seal 1 given); nil hash: keep the stored one.
        var change: @Sendable (Seal) -> (events: Int64, hash: String?)
        var fails: String
    }

    static let tamperings = [
        // A field changed, the hash left: the recomputed hash differs.
        Tampering(name: "count changed", change: { ($0.events + 1, nil) }, fails: "hash"),
        // A field changed and the hash recomputed to match: the log's count up to the seal differs.
        Tampering(name: "count changed, hash recomputed", change: { seal in
            var forged = seal
            forged.events += 1
            return (forged.events, forged.recomputedHash)
        }, fails: "count"),
    ]

    /// With a checkpoint the log's count up to the seal is checked too; without, it is listed as not checked.
    static func expectUntouched(_ checked: Checked, checkpoint: Bool = false) {
        #expect(checked.status == "verified", "\(checked.steps)")
        for step in ["hash", "links", "covers"] { #expect(checked.steps[step] == "passed", "\(step): \(checked.steps)") }
        #expect(checked.steps["count"] == (checkpoint ? "passed" : "not-checked"), "\(checked.steps)")
        #expect(checked.steps["not-here"] == "not-checked")
    }

    /// Makes ada's store, then a second seal with an (unsigned) checkpoint of it; returns the checkpoint's path.
    static func make(_ store: String, folder: String) throws -> String {
        try HandMade.make(store: store, folder: folder, hostile: false)
        #expect(try Shell.evtool(["report", "--store-overview"], store: store).contains(#"<p id="verdict" class="ok" data-status="verified">OK: "#))
        let checkpoint = folder + "/checkpoint-\(UUID().uuidString.prefix(8)).txt"
        try Shell.evtool(["seal", "--checkpoint-out", checkpoint], store: store)
        expectUntouched(try report(store))
        expectUntouched(try report(store, ["--checkpoint", checkpoint]), checkpoint: true)
        return checkpoint
    }

    /// The page of the tampered store: without the checkpoint (only a changed hash shows) and with it.
    static func expectTampered(_ store: String, checkpoint: String, _ tampering: Tampering) throws {
        try expectFailedVerdict(store)
        let without = try report(store)
        if tampering.fails == "hash" {
            expectFailed(without, tampering)
        } else {
            #expect(without.status == "verified" && without.steps["count"] == "not-checked",
                    "a seal forged with its hash recomputed passes the checks that do not read the log: \(without.steps)")
        }
        expectFailed(try report(store, ["--checkpoint", checkpoint]), tampering)
    }

    /// The store overview shows the whole log's verdict as `evtool verify` gives it: failed, naming the same problem.
    static func expectFailedVerdict(_ store: String) throws {
        let verified = try Processes.run(Processes.evtool, ["verify", "--store", store])
        #expect(verified.status == 65 && verified.errors.hasPrefix("Error: the log fails verification: "), "\(verified)")
        let problem = String(verified.errors.dropFirst("Error: ".count).prefix { $0 != "\n" })
        let page = try Shell.evtool(["report", "--store-overview"], store: store)
        #expect(page.contains(#"<p id="verdict" class="bad" data-status="failed">FAILED: <bdi>"# + HTML.escape(problem) + "</bdi></p>"),
                "the overview names verify's problem: \(problem)")
        #expect(!page.contains("data-status=\"verified\">OK: "))
    }

    static func expectFailed(_ checked: Checked, _ tampering: Tampering) {
        #expect(checked.status == "failed", "\(tampering.name): \(checked.steps)")
        #expect(checked.steps[tampering.fails] == "failed", "\(tampering.name): \(checked.steps)")
        #expect(checked.page.contains("FAILED (") && checked.page.contains("✗ FAILED:"), "the failure is shown plainly")
        #expect(checked.page.contains(#"id="chain" data-status="verified""#), "the user's own chain still verifies: only the seal was touched")
    }

    @Test("SQLite: an untouched seal verifies; a changed count fails the hash, a consistently forged one fails the count (read with a checkpoint); a broken link fails")
    func sqlite() throws {
        let folder = try TemporaryDirectory(); defer { folder.remove() }
        for tampering in Self.tamperings {
            let path = folder.path + "/\(tampering.fails).sqlite"
            let store = "sqlite:" + path
            let checkpoint = try Self.make(store, folder: folder.path)
            let seal = try #require(try SQLiteEventStore(path: path).seals().last)
            let (events, hash) = tampering.change(seal)
            let sql = "DROP TRIGGER seals_append_only_update; UPDATE seals SET events = \(events)" + (hash.map { ", hash = '\($0)'" } ?? "") + " WHERE seal = \(seal.number);"
            let result = try Processes.run(Processes.sqlite3, [path, sql])
            #expect(result.status == 0, "\(result)")
            try Self.expectTampered(store, checkpoint: checkpoint, tampering)
        }

        // Two seals; the first one's time changed and its hash recomputed: the second no longer links to it.
        let path = folder.path + "/links.sqlite"
        let store = "sqlite:" + path
        try HandMade.make(store: store, folder: folder.path, hostile: false)
        try Shell.evtool(["search", "--user", "ada", "--keyword", "late", "--location", "Paris"], store: store)
        try Shell.evtool(["seal"], store: store)
        let later = try Self.report(store)
        Self.expectUntouched(later)
        #expect(later.page.contains(#"id="seal" data-number="2""#))
        var first = try #require(try SQLiteEventStore(path: path).seals().first)
        first.sealedAt = "2026-01-01T00:00:00.000000Z"
        let result = try Processes.run(Processes.sqlite3, [path, "DROP TRIGGER seals_append_only_update; UPDATE seals SET sealed_at = '\(first.sealedAt)', hash = '\(first.recomputedHash)' WHERE seal = 1;"])
        #expect(result.status == 0, "\(result)")
        Self.expectFailed(try Self.report(store), Tampering(name: "seal 1 rewritten", change: { ($0.events, nil) }, fails: "links"))
        try Self.expectFailedVerdict(store)
    }

    @Test("PostgreSQL: an untouched seal verifies; a changed count fails the hash, a consistently forged one fails the count (read with a checkpoint)")
    func postgres() throws {
        let folder = try TemporaryDirectory(); defer { folder.remove() }
        let url = try TestStores.postgresURL()
        for tampering in Self.tamperings {
            let schema = TestStores.freshSchema()
            defer { TestStores.dropPostgres(url: url, schema: schema) }
            let store = url + (url.contains("?") ? "&" : "?") + "schema=" + schema
            let checkpoint = try Self.make(store, folder: folder.path)
            let seal = try #require(try PostgresEventStore(url: url, schema: schema).seals().last)
            let (events, hash) = tampering.change(seal)
            let sql = "ALTER TABLE \(schema).seals DISABLE TRIGGER seals_append_only; UPDATE \(schema).seals SET events = \(events)"
                + (hash.map { ", hash = '\($0)'" } ?? "") + " WHERE seal = \(seal.number);"
            let result = try Processes.run(Processes.psql, [url, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", sql])
            #expect(result.status == 0, "\(result)")
            try Self.expectTampered(store, checkpoint: checkpoint, tampering)
        }
    }

    @Test("a signed checkpoint: signature, root and coverage checked; another key, a changed checkpoint, a rewritten log each fail; bad files exit 65")
    func checkpoint() throws {
        let folder = try TemporaryDirectory(); defer { folder.remove() }
        let path = folder.path + "/store.sqlite"
        let store = "sqlite:" + path
        try HandMade.make(store: store, folder: folder.path, hostile: false)
        for name in ["keys", "other"] {
            let made = try Processes.run(Processes.evtool, ["keys", "create", "--out", folder.path + "/" + name])
            #expect(made.status == 0, "\(made)")
        }
        let key = folder.path + "/keys/checkpoint-key.pem", publicKey = folder.path + "/keys/checkpoint-key.pub.pem"
        let checkpoint = folder.path + "/checkpoint.txt"
        try Shell.evtool(["seal", "--key", key, "--checkpoint-out", checkpoint], store: store)

        let good = try Self.report(store, ["--checkpoint", checkpoint, "--public-key", publicKey])
        Self.expectUntouched(good, checkpoint: true)
        for step in ["signature", "root", "includes", "same"] { #expect(good.steps[step] == "passed", "\(step): \(good.steps)") }
        #expect(good.page.contains(#"id="seal" data-number="2""#), "the seal made with the checkpoint is the one shown")

        let unsignedCheck = try Self.report(store, ["--checkpoint", checkpoint])
        #expect(unsignedCheck.status == "verified" && unsignedCheck.steps["signature"] == "not-checked" && unsignedCheck.steps["root"] == "passed", "\(unsignedCheck.steps)")

        let otherKey = try Self.report(store, ["--checkpoint", checkpoint, "--public-key", folder.path + "/other/checkpoint-key.pub.pem"])
        #expect(otherKey.status == "failed" && otherKey.steps["signature"] == "failed" && otherKey.page.contains("not signed by this key"), "\(otherKey.steps)")

        // The checkpoint's size lowered by one: the signature no longer holds, nor the root.
        let text = try String(contentsOfFile: checkpoint, encoding: .utf8)
        var lines = text.components(separatedBy: "\n")
        let size = try #require(Int(lines[1]))
        lines[1] = String(size - 1)
        let changed = folder.path + "/changed.txt"
        try lines.joined(separator: "\n").write(toFile: changed, atomically: true, encoding: .utf8)
        let forged = try Self.report(store, ["--checkpoint", changed, "--public-key", publicKey])
        #expect(forged.status == "failed" && forged.steps["signature"] == "failed" && forged.steps["root"] == "failed", "\(forged.steps)")

        // The chain hash of an event below the checkpoint changed: the checkpoint's root no
        // longer matches (and ada's chain, which that event starts, fails too).
        let staging = folder.path + "/export.jsonl"
        try Shell.evtool(["export"], store: store).write(toFile: staging, atomically: true, encoding: .utf8)
        let result = try Processes.run(Processes.sqlite3, [path, "DROP TRIGGER events_append_only_update; UPDATE events SET hash = '\(String(repeating: "ab", count: 32))' WHERE position = 1;"])
        #expect(result.status == 0, "\(result)")
        let rewritten = try Self.report(store, ["--checkpoint", checkpoint, "--public-key", publicKey])
        #expect(rewritten.status == "failed" && rewritten.steps["root"] == "failed" && rewritten.steps["signature"] == "passed", "\(rewritten.steps)")
        #expect(rewritten.page.contains(#"id="chain" data-status="failed""#))
        try Self.expectFailedVerdict(store)

        for (arguments, message) in [(["--checkpoint", folder.path + "/none.txt"], "cannot read the checkpoint file"),
                                     (["--checkpoint", staging], "not a checkpoint"),
                                     (["--checkpoint", checkpoint, "--public-key", checkpoint], "public key")] {
            let bad = try Processes.run(Processes.evtool, ["report", "--user", "ada"] + arguments + ["--store", store])
            #expect(bad.status == 65 && bad.output.isEmpty && bad.errors.hasPrefix("Error: ") && bad.errors.contains(message), "\(arguments): \(bad)")
        }
        for arguments in [["--public-key", publicKey], ["--store-overview", "--checkpoint", checkpoint]] {
            let bad = try Processes.run(Processes.evtool, ["report"] + (arguments.first == "--store-overview" ? [] : ["--user", "ada"]) + arguments + ["--store", store])
            #expect(bad.status == 64 && bad.output.isEmpty && bad.errors.hasPrefix("Error: "), "\(arguments): \(bad)")
        }
    }
}
