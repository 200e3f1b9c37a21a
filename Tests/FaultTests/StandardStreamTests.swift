import Foundation
import TestSupport
import Testing

/// Standard output that refuses writes and standard input that is closed or odd, on every
/// command that writes data or reads `FILE|-`: a failed write ends the command with exit 74
/// and one `Error: …` line naming the cause; a closed pipe (`| head`) ends it quietly; input
/// that cannot be read is one error line, never a trap; process substitution works.
@Suite("Faults: standard output and input", .serialized)
struct StandardStreamTests {
    /// Runs the built evtool under `/bin/bash` with `redirections` applied to it
    /// (e.g. `>/dev/full`, `>&-`, `<&-`), so the test controls its descriptors.
    static func evtool(_ arguments: [String], redirections: String, input: String? = nil) throws -> Processes.Result {
        try Processes.run("/bin/bash", ["-c", "exec \"$0\" \"$@\" \(redirections)", Binaries.evtool] + arguments, input: input)
    }

    /// Runs a bash script with `$EVTOOL` set to the built binary.
    static func script(_ text: String, input: String? = nil) throws -> Processes.Result {
        try Processes.run("/bin/bash", ["-c", text], input: input, environment: ["EVTOOL": Binaries.evtool])
    }

    /// A store holding a demo log (about 3,000 events, so `export` writes well over the 64 KiB
    /// buffer) and one user `ada` with a favorite, a view and a search.
    static func populate(_ store: String, directory: String) throws {
        let demo = try Processes.run(Binaries.evtool, ["demo", "--users", "20", "--actions", "3000", "--seed", "5", "--store", store])
        try #require(demo.status == 0, "\(demo)")
        let details = directory + "/details.json"
        try Samples.details.write(toFile: details, atomically: true, encoding: .utf8)
        for arguments in [["view", "--user", "ada", "--listing", "L7", "--details", details],
                          ["favorite", "--user", "ada", "--listing", "L7", "--name", "Hamilton", "--venue", "Pantages",
                           "--date", "2026-12-05 19:30:00", "--category", "Arts & Theatre"],
                          ["search", "--user", "ada", "--keyword", "jazz", "--here", "1,2"]] {
            let result = try Processes.run(Binaries.evtool, arguments + ["--store", store])
            try #require(result.status == 0, "\(arguments): \(result)")
        }
    }

    /// Every command that writes data to standard output, small outputs and large.
    static let writingCommands: [[String]] = [
        ["export"], ["export", "--format", "cloudevents"], ["log", "--json"], ["log"], ["history", "--user", "ada"],
        ["history", "--user", "ada", "--json"], ["favorites", "--user", "ada"], ["recent", "--user", "ada"],
        ["viewed", "--user", "ada"], ["details", "--listing", "L7"], ["stats"], ["stats", "--json"], ["verify"],
        ["search", "--user", "ada", "--keyword", "opera", "--here", "1,2"],
    ]

    func fullAndClosedOutput(store: String, label: String) throws {
        var tried = 0
        for command in Self.writingCommands + [["--help"], ["help", "export"], ["export", "--help"]] {
            let isHelp = command.first?.hasPrefix("-") == true || command.first == "help" || command.last == "--help"
            let arguments = isHelp ? command : command + ["--store", store]
            for (redirection, cause) in [(">/dev/full", "No space left on device"), (">&-", "it is closed")] {
                let result = try Self.evtool(arguments, redirections: redirection)
                tried += 1
                let context = "\(label) \(command) \(redirection): \(result)"
                #expect(!result.wasSignaled && result.status == 74, "\(context)")
                // With --json the error is one JSON object (Evtool.report), else one `Error:` line.
                let expected = command.contains("--json")
                    ? #"{"code":74,"kind":"ioError","message":"cannot write to standard output: \#(cause)"}"# + "\n"
                    : "Error: cannot write to standard output: \(cause)\n"
                #expect(result.errors == expected, "\(context)")
            }
        }
        FaultSettings.report("output: \(tried) commands on \(label) with standard output full or closed exit 74 naming the cause")
    }

    @Test("SQLite: every command whose standard output is full or closed exits 74 naming the cause, one line")
    func outputFailsOnSQLite() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let store = "sqlite:\(directory.path)/store.sqlite"
        try Self.populate(store, directory: directory.path)
        try fullAndClosedOutput(store: store, label: "SQLite")
    }

    @Test("PostgreSQL: every command whose standard output is full or closed exits 74 naming the cause, one line")
    func outputFailsOnPostgres() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let url = try TestStores.postgresURL()
        let schema = TestStores.freshSchema(); defer { TestStores.dropPostgres(url: url, schema: schema) }
        let store = url + (url.contains("?") ? "&" : "?") + "schema=" + schema
        try Self.populate(store, directory: directory.path)
        try fullAndClosedOutput(store: store, label: "PostgreSQL")
    }

    @Test("a closed pipe (| head) ends the command quietly with 0; export's count is not printed for output never written")
    func closedPipeIsQuiet() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let store = "sqlite:\(directory.path)/store.sqlite"
        try Self.populate(store, directory: directory.path)
        for command in ["export", "log --json", "log"] {
            let result = try Self.script("\"$EVTOOL\" \(command) --store '\(store)' | head -c 100 >/dev/null; echo \"status ${PIPESTATUS[0]}\"")
            #expect(result.output == "status 0\n", "\(command): \(result)")
            #expect(result.errors.isEmpty, "\(command): \(result)")
        }
        // The whole export still works through a pipe that reads it all.
        let whole = try Self.script("\"$EVTOOL\" export --store '\(store)' | wc -l; echo \"status ${PIPESTATUS[0]}\"")
        #expect(whole.output.hasSuffix("status 0\n") && whole.errors.hasPrefix("exported "), "\(whole)")
    }

    @Test("closed standard error: the exit codes stay, data still reaches standard output, no trap")
    func closedErrors() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let store = "sqlite:\(directory.path)/store.sqlite"
        try Self.populate(store, directory: directory.path)
        let export = try Self.evtool(["export", "--store", store], redirections: "2>&-")
        #expect(!export.wasSignaled && export.status == 0 && export.output.split(separator: "\n").count > 1_000, "\(export.status)")
        let rebuild = try Self.evtool(["rebuild", "--store", store], redirections: "2>&-")
        #expect(!rebuild.wasSignaled && rebuild.status == 0, "\(rebuild)")
        let missing = try Self.evtool(["stats", "--store", directory.path + "/missing.sqlite"], redirections: "2>&-")
        #expect(!missing.wasSignaled && missing.status == 69, "\(missing)")
        let both = try Self.evtool(["export", "--store", store], redirections: ">/dev/full 2>&-")
        #expect(!both.wasSignaled && both.status == 74, "\(both)")
    }

    @Test("closed standard input: every FILE|- option and import - refuse it in one line (no trap), nothing recorded")
    func closedInput() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let store = "sqlite:\(directory.path)/store.sqlite"
        try Self.populate(store, directory: directory.path)
        let before = try LogChecks.digest(ofFileAt: directory.path + "/store.sqlite")
        let cases: [([String], String)] = [
            (["view", "--user", "ada", "--listing", "L9", "--details", "-"], "details"),
            (["favorite", "--user", "ada", "--listing", "L9", "--summary", "-"], "summary"),
            (["search", "--user", "ada", "--keyword", "jazz", "--here", "1,2", "--results", "-"], "results"),
            (["append", "--stream", "s", "--type", "Note", "--data", "-"], "data"),
            (["import", "-"], "import"),
        ]
        for (command, what) in cases {
            let result = try Self.evtool(command + ["--store", store], redirections: "<&-")
            let context = "\(command): \(result)"
            #expect(!result.wasSignaled && result.status == 65, "\(context)")
            #expect(result.errors == "Error: standard input is closed: there is no \(what) input to read\n", "\(context)")
            #expect(result.output.isEmpty, "\(context)")
        }
        #expect(try LogChecks.digest(ofFileAt: directory.path + "/store.sqlite") == before, "a refused input changed the store")
    }

    @Test("odd inputs: process substitution and FIFOs work for every FILE option; a folder, a missing file, a write-only descriptor are one error line")
    func oddInputs() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let store = "sqlite:\(directory.path)/store.sqlite"
        try Self.populate(store, directory: directory.path)
        let details = directory.path + "/details.json"
        // Process substitution (`/dev/fd/63`) for --details, --summary and import.
        let substituted = try Self.script("""
            "$EVTOOL" view --user bo --listing L7 --details <(cat '\(details)') --store '\(store)' &&
            "$EVTOOL" favorite --user bo --listing L8 --summary <(echo '{"name":"N","venue":"V","localDateTime":"2026-12-05 19:30:00","category":"Music"}') --store '\(store)' &&
            "$EVTOOL" export --store '\(store)' 2>/dev/null | head -n 5 > '\(directory.path)/five.jsonl' &&
            "$EVTOOL" import <(cat '\(directory.path)/five.jsonl') --store 'sqlite:\(directory.path)/copy.sqlite'
            """)
        #expect(substituted.status == 0, "\(substituted)")
        #expect(substituted.output.contains("recorded DetailsViewed for bo") && substituted.output.contains("recorded Favorited for bo"), "\(substituted)")
        #expect(substituted.output.contains("imported 5 events"), "\(substituted)")
        // A named pipe.
        let fifo = directory.path + "/details.fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let piped = try Self.script("cat '\(details)' > '\(fifo)' & \"$EVTOOL\" view --user cy --listing L7 --details '\(fifo)' --store '\(store)'; status=$?; wait; exit $status")
        #expect(piped.status == 0 && piped.output.hasPrefix("recorded DetailsViewed for cy"), "\(piped)")
        // Refused, one line each.
        let refused: [([String], String, Int32)] = [
            (["view", "--user", "ada", "--listing", "L9", "--details", directory.path], "Error: cannot read the details file '\(directory.path)': it is a folder\n", 65),
            (["view", "--user", "ada", "--listing", "L9", "--details", directory.path + "/none.json"], "Error: cannot read the details file '\(directory.path)/none.json': no such file\n", 65),
            (["import", directory.path], "Error: cannot read the import file '\(directory.path)': it is a folder\n", 65),
            (["import", directory.path + "/none.jsonl"], "Error: cannot read the import file '\(directory.path)/none.jsonl': no such file\n", 65),
        ]
        for (command, expected, code) in refused {
            let result = try Processes.run(Binaries.evtool, command + ["--store", store])
            #expect(!result.wasSignaled && result.status == code && result.errors == expected, "\(command): \(result)")
        }
        // Standard input open for writing only: the read fails, named, exit 74.
        let writeOnly = try Self.evtool(["append", "--stream", "s", "--type", "Note", "--data", "-", "--store", store], redirections: "0>'\(directory.path)/sink'")
        #expect(!writeOnly.wasSignaled && writeOnly.status == 74, "\(writeOnly)")
        #expect(writeOnly.errors == "Error: cannot read standard input: Bad file descriptor\n", "\(writeOnly)")
        // Over the 64 MiB limit: refused before it is all in memory, nothing recorded.
        let huge = try Self.script("head -c 70000000 /dev/zero | \"$EVTOOL\" append --stream big --type Note --data - --store '\(store)'")
        #expect(!huge.wasSignaled && huge.status == 65, "\(huge)")
        #expect(huge.errors == "Error: the data input (standard input) is larger than 64 MiB\n", "\(huge)")
        // Empty standard input is not closed: an empty import is 0 events; an empty payload is refused as JSON.
        let empty = try Processes.run(Binaries.evtool, ["import", "-", "--store", store], input: "")
        #expect(empty.status == 0 && empty.output.hasPrefix("imported 0 events"), "\(empty)")
        let emptyData = try Processes.run(Binaries.evtool, ["append", "--stream", "s", "--type", "Note", "--data", "-", "--store", store], input: "")
        #expect(!emptyData.wasSignaled && emptyData.status == 65 && emptyData.errors.hasPrefix("Error: "), "\(emptyData)")
    }
}

/// A sample of listing details (as `Tests/evtoolTests/CLI.swift` has it) for `view --details`.
enum Samples {
    static let details = """
        {"listingID":"L7","info":{"name":"Hamilton","artistsOrTeams":[],"venue":"Pantages Theatre","localDateTime":"2026-12-05 19:30:00",
         "category":"Arts & Theatre","genres":["Musical"],"priceRange":{"minimum":79,"maximum":399,"currency":"USD"},"ticketStatus":"onsale",
         "ticketLink":"https://tickets.example/L7"},"upcomingEvents":[{"name":"Wicked","localDateTime":"2027-01-03 19:30:00"}]}
        """
}
