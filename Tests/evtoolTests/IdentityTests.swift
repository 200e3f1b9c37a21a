import EventLog
import Foundation
import TestSupport
import Testing

/// One user is one identity, whatever the bytes (issue 12, item 3): `josé` typed in NFC and
/// in NFD is one user, one listing id is one listing, ids with invisible characters are
/// refused, stores written before the rule keep canonically equal streams apart and verify,
/// and tables never print invisible characters raw. On an SQLite file and on PostgreSQL.
@Suite("evtool: one identity for user and listing ids")
struct IdentityTests {
    /// `josé` with a precomposed é (NFC), and as `jose` + U+0301 COMBINING ACUTE ACCENT (NFD,
    /// what a macOS keyboard produces). Swift's `==` says they are equal; their bytes differ.
    static let nfc = "jos\u{E9}"
    static let nfd = "jose\u{301}"

    enum Kind: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case sqlite, postgres
        var testDescription: String { rawValue }
    }

    /// A fresh store of a kind, with the CLI on it and a way to write events as the release
    /// before the identity rule did (no NFC or invisible-character check on stream ids).
    struct Store {
        let kind: Kind
        let cli: CLI
        let location: String
        let schema: String?
        let cleanup: () -> Void

        static func make(_ kind: Kind, _ directory: TemporaryDirectory) throws -> Store {
            switch kind {
            case .sqlite:
                let path = directory.path + "/events.sqlite"
                return Store(kind: kind, cli: CLI(store: path, directory: directory.path), location: path, schema: nil, cleanup: {})
            case .postgres:
                let url = try TestStores.postgresURL()
                let schema = TestStores.freshSchema()
                let store = url + (url.contains("?") ? "&" : "?") + "schema=" + schema
                return Store(kind: kind, cli: CLI(store: store, directory: directory.path), location: url, schema: schema,
                             cleanup: { TestStores.dropPostgres(url: url, schema: schema) })
            }
        }

        /// A fresh store of the same kind (an import target).
        func sibling(_ directory: TemporaryDirectory) throws -> Store {
            switch kind {
            case .sqlite:
                let path = directory.path + "/copy-\(UUID().uuidString).sqlite"
                return Store(kind: kind, cli: CLI(store: path, directory: directory.path), location: path, schema: nil, cleanup: {})
            case .postgres:
                return try Store.make(.postgres, directory)
            }
        }

        /// Appends one event to a new stream the way the previous release's store did: the
        /// same chain hash, the same columns, without the identity rule (SQLite through the
        /// `sqlite3` shell, PostgreSQL through the store's own append function in `psql`).
        func appendAsPreviousRelease(stream: String, type: String, data: String, metadata: String) throws {
            let id = UUID()
            switch kind {
            case .sqlite:
                let recordedAt = Timestamp.format(Date())
                let hash = EventChain.hash(previous: EventChain.genesis, stream: stream, version: 1, id: id, type: type,
                                           recordedAt: recordedAt, data: Data(data.utf8), metadata: Data(metadata.utf8))
                func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
                let sql = "INSERT INTO events (stream_id, version, event_id, type, data, metadata, recorded_at, hash) VALUES ("
                    + [literal(stream), "1", literal(id.uuidString.lowercased()), literal(type), literal(data), literal(metadata),
                       literal(recordedAt), literal(hash)].joined(separator: ", ") + ");"
                let result = try Processes.run(Processes.sqlite3, [location, sql])
                try #require(result.status == 0, "\(result)")
            case .postgres:
                let schema = try #require(schema)
                let sql = """
                    SELECT status FROM "\(schema)".append(ARRAY[$s$\(stream)$s$], ARRAY[1], ARRAY[0::bigint], ARRAY[1],
                        ARRAY['\(id.uuidString.lowercased())'::uuid], ARRAY[$t$\(type)$t$], ARRAY[$d$\(data)$d$::json],
                        ARRAY[$m$\(metadata)$m$::json], ARRAY[NULL::timestamptz])
                    """
                let result = try Processes.run(Processes.psql, [location, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql])
                try #require(result.status == 0 && result.output.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "\(result)")
            }
        }
    }

    /// Whether `text` holds `part` byte for byte (Swift's `contains` would match canonically equal text).
    static func holds(_ text: String, _ part: String) -> Bool {
        Data(text.utf8).range(of: Data(part.utf8)) != nil
    }

    static func favorite(_ cli: CLI, user: String, listing: String, name: String = "Hamilton", venue: String = "Pantages") throws -> Processes.Result {
        try cli.run("favorite", "--user", user, "--listing", listing, "--name", name, "--venue", venue,
                    "--date", "2026-12-05 19:30:00", "--category", "Arts & Theatre")
    }

    static func favoriteData(_ listing: String) -> String {
        #"{"listingID":"\#(listing)","schemaVersion":1,"summary":{"category":"Sports","localDateTime":"2026-12-09 19:00:00","name":"Lakers","venue":"Arena"}}"#
    }

    static func metadata(_ user: String) -> String {
        #"{"causationID":"c","correlationID":"c","handledAt":"2026-11-30T10:00:00.000000Z","occurredAt":"2026-11-30T10:00:00.000000Z","schemaVersion":1,"source":"older-release","userID":"\#(user)"}"#
    }

    @Test("josé typed in NFC and in NFD is one user: one NFC stream, favorites and unfavorite agree, history and time travel, verify and seal", arguments: Kind.allCases)
    func oneUserWhateverTheBytes(kind: Kind) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let store = try Store.make(kind, directory); defer { store.cleanup() }
        let cli = store.cli
        var result = try Self.favorite(cli, user: Self.nfd, listing: "L1")
        #expect(result.status == 0 && result.output.hasPrefix("recorded Favorited"), "\(result)")
        result = try Self.favorite(cli, user: Self.nfc, listing: "L2")
        #expect(result.status == 0 && result.output.hasPrefix("recorded Favorited for \(Self.nfc): version 2"), "\(result)")
        result = try cli.run("favorites", "--user", Self.nfd)
        #expect(result.status == 0 && result.output.contains("L1 ") && result.output.contains("L2 "), "\(result)")

        // The one stream is named in NFC, in the store's own bytes.
        let log = try cli.run("log", "--json").output
        #expect(Self.holds(log, #""stream":"\#(Self.nfc)""#) && !Self.holds(log, Self.nfd), "\(log)")
        #expect(try cli.run("stats", "--json").output.contains(#""streams":1,"#))

        // What the view shows, unfavorite removes, under either spelling.
        result = try cli.run("unfavorite", "--user", Self.nfc, "--listing", "L1")
        #expect(result.status == 0 && result.output.hasPrefix("recorded Unfavorited"), "\(result)")
        result = try cli.run("unfavorite", "--user", Self.nfd, "--listing", "L2")
        #expect(result.status == 0 && result.output.hasPrefix("recorded Unfavorited"), "\(result)")
        #expect(try cli.run("favorites", "--user", Self.nfc).output == "No favorites\n")
        #expect(try cli.run("history", "--user", Self.nfd, "--json").output.split(separator: "\n").count == 4)
        let asOf = try cli.run("favorites", "--user", Self.nfd, "--as-of", "2")
        #expect(asOf.status == 0 && asOf.output.contains("L1 ") && asOf.output.contains("L2 "), "\(asOf)")

        result = try cli.run("verify")
        #expect(result.status == 0 && result.output == "OK: 4 events in 1 stream, 0 seals verified\n", "\(result)")
        #expect(try cli.run("seal").status == 0)
        result = try cli.run("verify")
        #expect(result.status == 0 && result.output == "OK: 4 events in 1 stream, 1 seal verified\n", "\(result)")

        // Export and import carry the one NFC stream as it is.
        let exported = try cli.run("export")
        #expect(exported.status == 0, "\(exported)")
        let target = try store.sibling(directory); defer { target.cleanup() }
        result = try target.cli.run("import", "-", input: exported.output)
        #expect(result.status == 0 && result.output.hasPrefix("imported 4 events, skipped 0"), "\(result)")
        func withoutPositions(_ text: String) -> String { text.replacing(/"position":\d+,/, with: "") }
        #expect(Data(withoutPositions(try target.cli.run("export").output).utf8) == Data(withoutPositions(exported.output).utf8), "byte for byte")
        #expect(try target.cli.run("favorites", "--user", Self.nfd).output == "No favorites\n")
        result = try target.cli.run("verify")
        #expect(result.status == 0 && result.output.hasPrefix("OK: 4 events in 1 stream"), "\(result)")
    }

    @Test("every command takes josé in either spelling as one user, café-7 as one listing and a request id as one request; outcomes name the NFC id (issue 31, item 4)", arguments: Kind.allCases)
    func everyCommandOneIdentity(kind: Kind) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let store = try Store.make(kind, directory); defer { store.cleanup() }
        let cli = store.cli
        let (cafeNFC, cafeNFD) = ("caf\u{E9}-7", "cafe\u{301}-7")
        // Recording under NFD: the outcome names the user as recorded, in NFC bytes.
        var result = try cli.run("search", "--user", Self.nfd, "--keyword", "Hamilton", "--location", "Los Angeles", "--request-id", "cle\u{301}-1")
        #expect(result.status == 0 && Self.holds(result.output, "recorded Searched for \(Self.nfc): version 1") && !Self.holds(result.output, Self.nfd), "\(result)")
        // The same request id typed in NFC, under the other spelling of the user: one request.
        result = try cli.run("search", "--user", Self.nfc, "--keyword", "Hamilton", "--location", "Los Angeles", "--request-id", "cl\u{E9}-1")
        #expect(result.status == 0 && result.output.contains("was recorded already: its first outcome, nothing recorded again") && Self.holds(result.output, "recorded Searched for \(Self.nfc): version 1"), "\(result)")
        result = try cli.run("favorite", "--user", Self.nfd, "--listing", cafeNFD, "--name", "Hamilton", "--venue", "Pantages",
                             "--date", "2026-12-05 19:30:00", "--category", "Arts & Theatre", "--json")
        #expect(result.status == 0 && Self.holds(result.output, #""user":"\#(Self.nfc)""#) && result.output.contains(#""version":2"#), "\(result)")
        let details = try cli.file("details.json", Samples.details.replacingOccurrences(of: #""listingID":"L7""#, with: #""listingID":"\#(cafeNFD)""#))
        result = try cli.run("view", "--user", Self.nfd, "--listing", cafeNFC, "--details", details)
        #expect(result.status == 0 && Self.holds(result.output, "for \(Self.nfc): version 3"), "\(result)")

        // Every query answers the same under both spellings.
        for arguments in [["favorites"], ["recent"], ["viewed"], ["history"], ["favorites", "--as-of", "2"], ["history", "--as-of", "1"]] {
            var outputs: [String] = []
            for user in [Self.nfd, Self.nfc] {
                for json in [[], ["--json"]] {
                    let result = try Processes.run(Processes.evtool, arguments + ["--user", user] + json + ["--store", cli.store])
                    #expect(result.status == 0 && !result.output.hasPrefix("No "), "\(arguments) \(user): \(result)")
                    outputs.append(result.output)
                }
            }
            #expect(outputs[0] == outputs[2] && outputs[1] == outputs[3], "\(arguments): \(outputs)")
        }
        for listing in [cafeNFD, cafeNFC] {
            result = try cli.run("details", "--listing", listing)
            #expect(result.status == 0 && result.output.contains("Hamilton"), "\(result)")
        }
        // The audit report of either spelling is the one user's.
        for user in [Self.nfd, Self.nfc] {
            result = try cli.run("report", "--user", user)
            #expect(result.status == 0 && result.output.contains("Pantages") && result.output.contains("Hamilton"), "report of \(user): \(result.status) \(result.errors)")
        }
        // An erasure typed in NFD erases the one user.
        result = try cli.run("forget", "--user", Self.nfd, "--reason", "test", "--by", "tester", "--json")
        #expect(result.status == 0 && Self.holds(result.output, #""user":"\#(Self.nfc)""#), "\(result)")
        #expect(try cli.run("favorites", "--user", Self.nfc).output == "No favorites\n")
        let log = try cli.run("log", "--json").output
        #expect(!Self.holds(log, Self.nfd) && !Self.holds(log, "cafe\u{301}") && !Self.holds(log, "cle\u{301}"), "every id is recorded in NFC: \(log)")
        #expect(try cli.run("verify").status == 0)
    }

    @Test("a server over a store written before the rule: NFD josé's old stream, then the NFC user's first write; the time-travel cache, the view memory and the overview keep the two streams apart", arguments: Kind.allCases)
    func previousReleaseTwinWhileServing(kind: Kind) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let store = try Store.make(kind, directory); defer { store.cleanup() }
        let cli = store.cli
        #expect(try cli.run("init").status == 0)
        try store.appendAsPreviousRelease(stream: Self.nfd, type: "Favorited", data: Self.favoriteData("L9"), metadata: Self.metadata(Self.nfd))   // 1
        let port = try LocalPort.free()
        let server = try Processes.start(Processes.evtool, ["serve", "--no-auth", "--listen", "127.0.0.1:\(port)", "--store", cli.store,
                                                            "--view-memory", "67108864"])
        defer { if server.isRunning { server.send(SIGKILL) } }
        try LocalPort.waitUntilListening(port, process: server)
        /// Status, ETag and body of one request (curl keeps the percent-encoded path as given).
        func call(_ method: String, _ path: String, body: String? = nil) throws -> (status: String, etag: String, body: String) {
            var arguments = ["-s", "-D", "-", "--max-time", "20", "-X", method]
            if let body { arguments += ["-H", "Content-Type: application/json", "--data-binary", body] }
            let result = try Processes.run("/usr/bin/curl", arguments + ["http://127.0.0.1:\(port)" + path])
            let parts = result.output.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n\n")
            let head = parts[0].split(separator: "\n")
            let etag = head.first { $0.lowercased().hasPrefix("etag:") }.map { String($0.dropFirst(5)).trimmingCharacters(in: .whitespaces) } ?? "-"
            return (head.first.map { String($0.split(separator: " ")[1]) } ?? "-", etag, parts.dropFirst().joined(separator: "\n\n"))
        }
        // Typed in NFD, with no NFC user yet: the old stream, now and as of position 1 (kept in memory and in the time-travel cache).
        var response = try call("GET", "/v1/users/jose%CC%81/favorites")
        #expect(response.status == "200" && response.etag == "\"1\"" && response.body.contains("L9"), "\(response)")
        response = try call("GET", "/v1/users/jose%CC%81/favorites?as-of=1")
        #expect(response.status == "200" && response.body.contains("L9"), "\(response)")
        // The NFC user's first write starts the NFC stream (position 2); from now on both spellings name it.
        response = try call("PUT", "/v1/users/jos%C3%A9/favorites/L1", body: #"{"name":"Hamilton","venue":"Pantages","localDateTime":"2026-12-05 19:30:00","category":"Sports"}"#)
        #expect(response.status == "201" && response.etag == "\"1\"", "\(response)")
        for user in ["jose%CC%81", "jos%C3%A9"] {
            response = try call("GET", "/v1/users/\(user)/favorites")
            #expect(response.status == "200" && response.etag == "\"1\"" && response.body.contains(#""L1""#) && !response.body.contains("L9"), "\(user): \(response)")
            response = try call("GET", "/v1/users/\(user)/favorites?as-of=2")
            #expect(response.status == "200" && response.body.contains(#""L1""#) && !response.body.contains("L9"), "as of 2, \(user): \(response)")
            response = try call("GET", "/v1/users/\(user)/history")
            #expect(response.status == "200" && response.body.contains(#""L1""#) && !response.body.contains("L9"), "\(user): \(response)")
        }
        response = try call("GET", "/v1/audit")
        #expect(response.status == "200" && response.body.contains(#"<span id="user-count">2</span>"#), "two streams, two users in the overview")
        server.send(SIGTERM)
        #expect(try server.finish().status == 0)
    }

    @Test("a listing id typed in NFC and in NFD is one listing: recorded in NFC, unfavorited and looked up under either", arguments: Kind.allCases)
    func oneListingWhateverTheBytes(kind: Kind) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let store = try Store.make(kind, directory); defer { store.cleanup() }
        let cli = store.cli
        let (cafeNFC, cafeNFD) = ("caf\u{E9}-7", "cafe\u{301}-7")
        var result = try Self.favorite(cli, user: "ada", listing: cafeNFD)
        #expect(result.status == 0, "\(result)")
        result = try Self.favorite(cli, user: "ada", listing: cafeNFC)
        #expect(result.status == 0 && Self.holds(result.output, "listing '\(cafeNFC)' is already a favorite; nothing recorded"), "\(result)")
        let details = try cli.file("details.json", Samples.details.replacingOccurrences(of: #""listingID":"L7""#, with: #""listingID":"\#(cafeNFD)""#))
        result = try cli.run("view", "--user", "ada", "--listing", cafeNFD, "--details", details)
        #expect(result.status == 0, "\(result)")
        result = try cli.run("details", "--listing", cafeNFC)
        #expect(result.status == 0 && result.output.contains("Hamilton"), "\(result)")
        result = try cli.run("details", "--listing", cafeNFD, "--as-of", "2")
        #expect(result.status == 0 && result.output.contains("Hamilton"), "\(result)")
        result = try cli.run("unfavorite", "--user", "ada", "--listing", cafeNFC)
        #expect(result.status == 0 && result.output.hasPrefix("recorded Unfavorited"), "\(result)")
        #expect(try cli.run("favorites", "--user", "ada").output == "No favorites\n")
        let log = try cli.run("log", "--json").output
        #expect(Self.holds(log, cafeNFC) && !Self.holds(log, cafeNFD), "every listing id is recorded in NFC: \(log)")
        #expect(try cli.run("verify").status == 0)
    }

    @Test("a store written before the rule, with NFC and NFD josé as two streams: kept apart in views, history and time travel; verify and seal pass; import refuses the NFD stream", arguments: Kind.allCases)
    func storeFromThePreviousRelease(kind: Kind) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let store = try Store.make(kind, directory); defer { store.cleanup() }
        let cli = store.cli
        #expect(try cli.run("init").status == 0)
        #expect(try Self.favorite(cli, user: Self.nfc, listing: "L1").status == 0)                           // position 1
        try store.appendAsPreviousRelease(stream: Self.nfd, type: "Favorited", data: Self.favoriteData("L9"), metadata: Self.metadata(Self.nfd))   // 2
        #expect(try Self.favorite(cli, user: "ada", listing: "L5").status == 0)                              // 3

        var result = try cli.run("favorites", "--user", Self.nfc)
        #expect(result.status == 0 && result.output.contains("L1 ") && !result.output.contains("L9"), "the NFD stream's favorite is not the NFC user's: \(result)")
        result = try cli.run("favorites", "--user", Self.nfc, "--as-of", "3")
        #expect(result.status == 0 && result.output.contains("L1 ") && !result.output.contains("L9"), "\(result)")
        result = try cli.run("unfavorite", "--user", Self.nfc, "--listing", "L1")
        #expect(result.status == 0 && result.output.hasPrefix("recorded Unfavorited"), "\(result)")
        result = try cli.run("unfavorite", "--user", Self.nfc, "--listing", "L9")
        #expect(result.status == 0 && result.output.contains("not a favorite"), "\(result)")
        #expect(try cli.run("favorites", "--user", Self.nfc).output == "No favorites\n")
        #expect(try cli.run("rebuild").status == 0)
        #expect(try cli.run("favorites", "--user", Self.nfc).output == "No favorites\n")
        let history = try cli.run("history", "--user", Self.nfc, "--json").output
        #expect(history.split(separator: "\n").count == 2 && !history.contains("L9"), "\(history)")
        #expect(try cli.run("stats", "--json").output.contains(#""streams":3,"#))

        // The NFD stream cannot grow any more: the store refuses a stream id that is not NFC.
        result = try cli.run("append", "--stream", Self.nfd, "--type", "Note", "--data", "{}")
        #expect(result.status == 65 && result.errors.contains("stream id is not in Unicode normalization form C (NFC)"), "\(result)")

        result = try cli.run("verify")
        #expect(result.status == 0 && result.output == "OK: 4 events in 3 streams, 0 seals verified\n", "\(result)")
        result = try cli.run("seal")
        #expect(result.status == 0, "\(result)")
        result = try cli.run("verify")
        #expect(result.status == 0 && result.output == "OK: 4 events in 3 streams, 1 seal verified\n", "\(result)")
        result = try cli.run("verify", "--stream", Self.nfd)
        #expect(result.status == 0 && result.output.hasPrefix("OK: 1 event in stream"), "\(result)")

        // Export carries the NFD stream byte for byte; an import refuses it, naming the line.
        let exported = try cli.run("export")
        #expect(exported.status == 0 && Self.holds(exported.output, #""stream":"\#(Self.nfd)""#))
        let target = try store.sibling(directory); defer { target.cleanup() }
        result = try target.cli.run("import", "-", input: exported.output)
        #expect(result.status == 65 && result.errors.contains("line 2") && result.errors.contains("normalization form C"), "\(result)")
        #expect(!Self.holds(try target.cli.run("export").output, Self.nfd))
    }

    @Test("a user recorded before the rule only in NFD stays readable and erasable by the spelling that recorded it", arguments: Kind.allCases)
    func previousReleaseUserWithoutTwin(kind: Kind) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let store = try Store.make(kind, directory); defer { store.cleanup() }
        let cli = store.cli
        #expect(try cli.run("init").status == 0)
        try store.appendAsPreviousRelease(stream: Self.nfd, type: "Favorited", data: Self.favoriteData("L9"), metadata: Self.metadata(Self.nfd))
        var result = try cli.run("favorites", "--user", Self.nfd)
        #expect(result.status == 0 && result.output.contains("L9 "), "\(result)")
        #expect(try cli.run("history", "--user", Self.nfd, "--json").output.split(separator: "\n").count == 1)
        #expect(try cli.run("favorites", "--user", Self.nfd, "--as-of", "1").output.contains("L9 "))
        // Typed in NFC it names the NFC user, who has recorded nothing (no store can look up
        // every canonically equal spelling of an id).
        #expect(try cli.run("favorites", "--user", Self.nfc).output == "No favorites\n")
        result = try cli.run("forget", "--by", "tester", "--user", Self.nfd, "--reason", "test")
        #expect(result.status == 0 && result.output.hasPrefix("erased 1 event of user"), "\(result)")
        #expect(try cli.run("favorites", "--user", Self.nfd).output == "No favorites\n")
        result = try cli.run("verify")
        #expect(result.status == 0, "\(result)")
    }

    @Test("ids holding U+202E, U+200B or U+FEFF are refused with exit 65 naming the code point, and nothing is recorded", arguments: Kind.allCases)
    func invisibleCharactersAreRefused(kind: Kind) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let store = try Store.make(kind, directory); defer { store.cleanup() }
        let cli = store.cli
        #expect(try cli.run("init").status == 0)
        let characters: [(String, String)] = [("\u{202E}", "U+202E (RIGHT-TO-LEFT OVERRIDE)"), ("\u{200B}", "U+200B (ZERO WIDTH SPACE)"),
                                              ("\u{FEFF}", "U+FEFF (ZERO WIDTH NO-BREAK SPACE)"), ("\u{2066}", "U+2066 (LEFT-TO-RIGHT ISOLATE)")]
        for (character, named) in characters {
            let id = "ada" + character + "x"
            for (arguments, field) in [(["favorite", "--user", id, "--listing", "L1"], "user id"),
                                       (["favorite", "--user", "ada", "--listing", id], "listing id"),
                                       (["unfavorite", "--user", id, "--listing", "L1"], "user id"),
                                       (["search", "--user", id, "--keyword", "opera", "--here", "1,2"], "user id")] {
                var full = arguments
                if arguments[0] == "favorite" { full += ["--name", "Hamilton", "--venue", "V", "--date", "2026-12-05 19:30:00", "--category", "Sports"] }
                let result = try Processes.run(Processes.evtool, full + ["--store", cli.store])
                #expect(result.status == 65, "\(full): \(result)")
                #expect(result.errors.hasPrefix("Error: \(field) must not contain \(named)"), "\(result)")
                #expect(!Self.holds(result.errors, character), "the error line shows no raw invisible character")
            }
            for (arguments, field) in [(["favorites", "--user", id], "user id"), (["history", "--user", id], "user id"),
                                       (["details", "--listing", id], "listing id")] {
                let result = try Processes.run(Processes.evtool, arguments + ["--store", cli.store])
                #expect(result.status == 65 && result.errors.hasPrefix("Error: \(field) must not contain \(named)"), "\(arguments): \(result)")
            }
            var result = try cli.run("append", "--stream", id, "--type", "Note", "--data", "{}")
            #expect(result.status == 65 && result.errors.hasPrefix("Error: invalid input: stream id must not contain \(named)"), "\(result)")
            let line = #"{"stream":"\#(id)","version":1,"id":"\#(UUID().uuidString.lowercased())","type":"Note","recordedAt":"2026-11-30T10:00:00.000000Z","data":{},"metadata":{}}"#
            result = try cli.run("import", "-", input: line + "\n")
            #expect(result.status == 65 && result.errors.contains("line 1") && result.errors.contains(named), "\(result)")
        }
        #expect(try cli.run("stats", "--json").output.hasPrefix(#"{"events":0,"streams":0,"#), "nothing was recorded")
    }

    @Test("tables and messages show control, zero-width and bidirectional characters escaped, never raw", arguments: Kind.allCases)
    func tablesEscapeInvisibleCharacters(kind: Kind) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let store = try Store.make(kind, directory); defer { store.cleanup() }
        let cli = store.cli
        // Free text (names, venues, keywords) may hold such characters: they are stored as given.
        var result = try Self.favorite(cli, user: "ada", listing: "L1", name: "Ham\u{200B}ilton", venue: "Pantages\u{202E}Theatre")
        #expect(result.status == 0, "\(result)")
        result = try cli.run("search", "--user", "ada", "--keyword", "op\u{FEFF}era", "--location", "Los\u{2028}Angeles")
        #expect(result.status == 0, "\(result)")
        let invisible = ["\u{200B}", "\u{202E}", "\u{FEFF}", "\u{2028}"]
        for arguments in [["favorites", "--user", "ada"], ["recent", "--user", "ada"], ["history", "--user", "ada"], ["log"]] {
            let output = try Processes.run(Processes.evtool, arguments + ["--store", cli.store]).output
            #expect(!invisible.contains { Self.holds(output, $0) }, "\(arguments) prints no raw invisible character: \(output)")
        }
        #expect(try cli.run("favorites", "--user", "ada").output.contains(#"Ham\u{200B}ilton  Pantages\u{202E}Theatre"#))
        #expect(try cli.run("recent", "--user", "ada").output.contains(#"op\u{FEFF}era"#))
        #expect(try cli.run("history", "--user", "ada").output.contains(#"Los\u{2028}Angeles"#))
        // The JSON output keeps the stored text (as JSON): scripts get exactly what was recorded.
        let json = try cli.run("favorites", "--user", "ada", "--json").output
        #expect(Self.holds(json, "Pantages\u{202E}Theatre") || json.contains(#"Pantages\u202eTheatre"#), "\(json)")
    }
}
