import Foundation
import TestSupport
import Testing

/// `evtool forget` on a store whose oldest events were archived (docs/explanation/audit.md "Archives" and
/// "Erasure"): the kept events and the decision state kept at the boundary erased, the views
/// rebuilt from the files without the user's archived events, the files named that still hold
/// them; verify, verify --archive, rebuild --archive and a later archive after it.
@Suite("Forget on an archived store: what is kept is erased, the files are named")
struct ArchiveForgetTests {
    /// The users' favorites and recent searches, as JSON.
    static func views(_ cli: CLI, of users: [String] = ["ada", "bob", "cyd"]) throws -> [String] {
        try users.flatMap { user in
            [try cli.run("favorites", "--user", user, "--json").output, try cli.run("recent", "--user", user, "--json").output]
        }
    }

    @Test("forget --archive: ada (every event archived) and bob (archived and kept) erased; views equal a never-archived copy's after the same forgets, also after rebuild --archive and another archive; verify with and without the files",
          arguments: ["sqlite", "postgres"])
    func forgetOnArchivedStore(kind: String) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let (cli, sql, cleanup) = try ArchiveTests.store(kind, directory); defer { cleanup() }
        // 1 ada fav L1, 2 bob jazz, 3 ada fav L2 | 4 bob opera, 5 cyd fav L3, 6 ada rock, 7 ada fav L4 | 8 bob blues
        try ArchiveTests.makeLog(cli)
        let first = directory.path + "/a1.jsonl", second = directory.path + "/a2.jsonl"
        #expect(try cli.run("archive", "--before", "4", "--to", first).status == 0)
        #expect(try ArchiveTests.favorite(cli, "ada", "L4").status == 0)
        #expect(try cli.run("search", "--user", "bob", "--keyword", "blues", "--location", "Los Angeles").status == 0)
        #expect(try cli.run("project").status == 0)
        #expect(try cli.run("archive", "--before", "8", "--to", second).status == 0)
        #expect(try cli.run("favorites", "--user", "ada", "--json").output.contains("L4"))

        // The same log, never archived: the files and the kept log imported into a new store.
        let copy = CLI(store: directory.path + "/copy.sqlite", directory: directory.path)
        let kept = try cli.file("kept.jsonl", try cli.run("export").output)
        for file in [first, second, kept] { #expect(try copy.run("import", file).status == 0) }
        #expect(try copy.run("rebuild").status == 0)
        #expect(try Self.views(copy) == Self.views(cli))

        // Without the files, or with files that are not every archive's: refused, nothing erased.
        let views = try Self.views(cli)
        var result = try cli.run("forget", "--user", "ada", "--reason", "ticket 1", "--by", "dpo")
        #expect(result.status == 69 && result.errors.contains("'evtool forget --user ID --reason TEXT --archive FILE…'"), "\(result)")
        result = try cli.run("forget", "--user", "ada", "--reason", "ticket 1", "--by", "dpo", "--archive", second)
        #expect(result.status == 65 && result.errors.contains("records 2 archives"), "\(result)")
        result = try cli.run("forget", "--user", "ada", "--reason", "ticket 1", "--by", "dpo", "--archive", second, "--archive", first)
        #expect(result.status == 65, "\(result)")
        #expect(try Self.views(cli) == views)
        #expect(try cli.run("verify").output == "OK: 1 event from position 8 in 3 streams, 1 seal verified; 7 archived events (positions 1–7) not checked: give --archive FILE (every archive's, oldest first) to check them\n")

        // ada: every event is archived (4 of them: 2 in each file), none kept.
        result = try cli.run("forget", "--user", "ada", "--reason", "ticket 1", "--by", "dpo", "--archive", first, "--archive", second)
        #expect(result.status == 0, "\(result)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(result)")
        #expect(lines.first?.hasPrefix("erased 0 events of user 'ada' (recorded as UserErased at position 10); views rebuilt from the archive files and the kept log") == true, "\(result)")
        #expect(lines.last?.hasPrefix("not erased: 4 archived events of the user in '\(first)' (archive 1: 2 events), '\(second)' (archive 2: 2 events); evtool does not rewrite an archive file") == true, "\(result)")
        #expect(try copy.run("forget", "--user", "ada", "--reason", "ticket 1", "--by", "dpo").status == 0)
        #expect(try Self.views(cli) == Self.views(copy))
        #expect(try cli.run("favorites", "--user", "ada").output == "No favorites\n")
        // The decision state kept at the boundary held ada's favorites: erased too.
        let states = try sql("SELECT stream_id || ' ' || coalesce(state, '') FROM archived_heads ORDER BY stream_id;")
        #expect(states.status == 0, "\(states)")
        let adaState = states.output.split(separator: "\n").first { $0.hasPrefix("ada ") }.map(String.init) ?? ""
        #expect(!adaState.isEmpty && !adaState.contains("L1") && !adaState.contains("L2") && !adaState.contains("L4"), "\(states)")
        #expect(states.output.contains("L3"), "cyd's state stays: \(states)")

        // bob: one event in each file, one kept (position 8); --json names the files.
        result = try cli.run("forget", "--user", "bob", "--reason", "ticket 2", "--by", "dpo", "--json", "--archive", first, "--archive", second)
        #expect(result.status == 0, "\(result)")
        #expect(result.output.contains(#""erasedEvents":1,"#) && result.output.contains(#""archive":1,"events":1}"#)
                && result.output.contains(#""archive":2,"events":1}]"#), "\(result)")
        #expect(try copy.run("forget", "--user", "bob", "--reason", "ticket 2", "--by", "dpo").status == 0)
        #expect(try Self.views(cli) == Self.views(copy))
        let recent = try cli.run("recent", "--user", "bob")
        #expect(!recent.output.contains("blues") && !recent.output.contains("opera") && !recent.output.contains("jazz"), "\(recent)")
        #expect(try !cli.run("export").output.contains("blues"))

        // The log verifies with and without the files (which did not change).
        let erased = "OK: 12 events in 4 streams, 1 seal verified (1 erased, accepted by their kept digests)\n"
        #expect(try cli.run("verify").output == "OK: 5 events from position 8 in 4 streams, 1 seal verified (1 erased, accepted by their kept digests); 7 archived events (positions 1–7) not checked: give --archive FILE (every archive's, oldest first) to check them\n")
        #expect(try cli.run("verify", "--archive", first, "--archive", second).output == erased)
        // A later rebuild from the files does not bring the archived events back.
        #expect(try cli.run("rebuild", "--archive", first, "--archive", second).status == 0)
        #expect(try Self.views(cli) == Self.views(copy))
        // The runner starts from the erased state: ada's archived favorite is no favorite.
        #expect(try ArchiveTests.favorite(cli, "ada", "L1").output.hasPrefix("recorded"))
        #expect(try cli.run("project").status == 0)
        let ada = try cli.run("favorites", "--user", "ada", "--json").output
        #expect(ada.contains("L1") && !ada.contains("L2") && !ada.contains("L4"), "\(ada)")
        #expect(try Self.views(cli, of: ["bob", "cyd"]) == Self.views(copy, of: ["bob", "cyd"]))

        // Another archive, past ada's Erased marker (9) and UserErased event (10) and bob's kept
        // tombstone (8): the erasure then is in the file, and a rebuild from the three files
        // still leaves ada out.
        let third = directory.path + "/a3.jsonl"
        result = try cli.run("archive", "--before", "11", "--to", third)
        #expect(result.status == 0, "\(result)")
        #expect(try cli.run("verify").status == 0)
        result = try cli.run("verify", "--archive", first, "--archive", second, "--archive", third)
        #expect(result.output == "OK: 13 events in 4 streams, 1 seal verified (1 erased, accepted by their kept digests)\n", "\(result)")
        #expect(try cli.run("rebuild", "--archive", first, "--archive", second, "--archive", third).status == 0)
        #expect(try cli.run("favorites", "--user", "ada", "--json").output == ada)
        #expect(try Self.views(cli, of: ["bob", "cyd"]) == Self.views(copy, of: ["bob", "cyd"]))
    }
}
