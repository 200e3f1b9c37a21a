import Commands
import EventLog
import Foundation
import Projections
import Simulation
import StorePostgres
import StoreSQLite
#if canImport(Glibc)
import Glibc
#endif

/// `bench scale`: whether costs stay flat as the log grows. Builds stores of each size (the
/// activity workload's payloads, users drawn uniformly, batched multi-stream appends), measures
/// the same operations on each, and prints the largest size's figures over the smallest's
/// against the targets (latencies within 1.3×, rebuild and verify within the ratio of sizes
/// × 1.1, i.e. linear). Rebuild, verify and the store's size go through `evtool` itself, run as
/// a child process, so their peak memory is that process's maximum resident set (`wait4`).
enum ScaleBenchmark {
    /// One size's figures, by name (seconds, bytes, or rates).
    typealias Figures = [String: Double]

    struct Settings {
        var sizes: [Int]
        var users: Int
        var samples: Int
        var directory: String
        var postgresURL: String?
        var evtool: String
        /// The events of the one long stream (0: none).
        var longStream: Int
        /// Events per user at every size (users = size / this), so that each user's stream is
        /// as long at every size and only the log grows; nil: `users` users at every size.
        var streamLength: Int? = nil
        /// Whether to measure reads, rebuild and verify on SQLite with SQLite's default 2 MiB
        /// page cache as well as with the store's rule, alternately, in the same run.
        var compareCache = false

        /// The users of a store of `size` events.
        func userCount(at size: Int) -> Int { streamLength.map { max(size / $0, 1) } ?? users }
    }

    static func run(_ settings: Settings, console: inout Console) throws {
        let kinds = ["sqlite"] + (settings.postgresURL == nil ? [] : ["postgres"])
        let pool = try Pool()
        for kind in kinds {
            let who = settings.streamLength.map { "\(String($0).groupedThousands) events per user (users: the size over that)" } ?? "\(String(settings.users).groupedThousands) users"
            BenchCommand.preamble(&console, "scale, \(kind == "sqlite" ? "SQLite" : "PostgreSQL"), sizes \(settings.sizes.map { String($0).groupedThousands }.joined(separator: ", ")) events, \(who), \(String(settings.samples).groupedThousands) samples per latency")
            var bySize: [(size: Int, figures: Figures)] = []
            for size in settings.sizes {
                bySize.append((size, try measure(kind: kind, size: size, pool: pool, settings, console: &console)))
            }
            if let small = bySize.first, let large = bySize.last, large.size > small.size {
                console.output(ratios(small: small, large: large))
                console.flush()
            }
            if settings.longStream > 0 { try longStream(kind: kind, pool: pool, settings, console: &console) }
        }
    }

    // MARK: - One long stream

    /// One user with `settings.longStream` events against new users: `evtool favorite` and
    /// `evtool favorites --as-of` in new processes, and the same in one long-running process.
    static func longStream(kind: String, pool: Pool, _ settings: Settings, console: inout Console) throws {
        let length = settings.longStream
        let opened = try open(kind: kind, size: length, settings)
        defer { opened.remove() }
        let store = opened.store
        var generator = SplitMix64(seed: 5)
        var versions: [Int64] = [0]
        var built: Int64 = 0
        while built < Int64(length) {   // one stream: batches of 1,000 of the power user's events
            var parts: [StreamAppend] = []
            let count = min(1_000, Int64(length) - built)
            var events: [ProposedEvent] = []
            for index in 0..<count {
                events.append(pool.event(user: "power-user", milliseconds: UInt64(1_796_000_000_000 + built + index), generator: &generator))
            }
            parts.append(StreamAppend(stream: "power-user", expectedVersion: .exactly(versions[0]), events: events))
            _ = try store.append(parts)
            versions[0] += count
            built += count
        }
        let label = "one user with \(String(length).groupedThousands) events"
        func favorite(_ user: String, _ listing: Int) -> [String] {
            ["favorite", "--user", user, "--listing", "L\(listing)", "--name", "Show \(listing)", "--venue", "Hall",
             "--date", "2026-12-05 19:30:00", "--category", "Music", "--store", opened.location]
        }
        let first = try child(settings.evtool, favorite("power-user", 0))
        console.output("[\(label)] first evtool favorite (reads the whole stream, saves the snapshots): \(String(format: "%.3f", first.seconds)) s")
        var power: [Double] = [], fresh: [Double] = []
        for index in 1...7 {
            power.append(try child(settings.evtool, favorite("power-user", index)).seconds)
            fresh.append(try child(settings.evtool, favorite("new-user-\(index)", index)).seconds)
        }
        let head = try store.headPosition()
        var powerAsOf: [Double] = [], freshAsOf: [Double] = []
        for point in [head / 2, head - 3, head / 3, head - 500, head / 5, head - 1_500, 2 * head / 3] {
            powerAsOf.append(try child(settings.evtool, ["favorites", "--user", "power-user", "--as-of", String(point), "--store", opened.location]).seconds)
            freshAsOf.append(try child(settings.evtool, ["favorites", "--user", "new-user-3", "--as-of", String(point), "--store", opened.location]).seconds)
        }
        func line(_ what: String, _ long: [Double], _ short: [Double], digits: Int = 3) {
            let a = Measurement.median(long), b = Measurement.median(short)
            console.output("[\(label)] \(what): \(String(format: "%.\(digits)f", a)) s, a new user \(String(format: "%.\(digits)f", b)) s, ratio \(String(format: "%.2f", a / b))  \(a / b <= 2 ? "≤ 2 ok" : "≤ 2 MISSED")")
            console.flush()
        }
        line("evtool favorite, new process (median of 7)", power, fresh)
        line("evtool favorites --as-of, new process (median of 7)", powerAsOf, freshAsOf)

        // A long-running process (an app server): its runner, with its cache warm, and its
        // time-travel cache (as Application keeps one).
        let runner = CommandRunner(store: store, snapshots: DocumentSnapshots(store: store))
        let timeTravel = TimeTravelCache()
        var inPower: [Double] = [], inFresh: [Double] = [], inPowerAsOf: [Double] = [], inFreshAsOf: [Double] = []
        var uncachedPowerAsOf: [Double] = [], uncachedFreshAsOf: [Double] = []
        for index in 0..<200 {
            let listing = 100 + index % 50
            for (user, into) in [("power-user", 0), ("new-user-\(index % 7 + 1)", 1)] {
                let context = CommandContext(userID: user, source: "bench", occurredAt: Timestamp.now())
                let seconds = try Measurement.seconds {
                    _ = try runner.handle(index % 2 == 0 ? .favorite(listingID: "L\(listing)", summary: ListingSummary(
                        name: "Show", venue: "Hall", localDateTime: "2026-12-05 19:30:00", category: "Music"))
                        : .unfavorite(listingID: "L\(listing)"), context: context)
                }
                if into == 0 { inPower.append(seconds) } else { inFresh.append(seconds) }
            }
            let point = head - Int64(index * 97 % 5_000)
            inPowerAsOf.append(try Measurement.seconds { _ = try TimeTravel.document(Views.favorites, key: "power-user", asOf: .position(point), in: store, cache: timeTravel) })
            inFreshAsOf.append(try Measurement.seconds { _ = try TimeTravel.document(Views.favorites, key: "new-user-3", asOf: .position(point), in: store, cache: timeTravel) })
            // The same without the cache: what each read cost before it (the stored snapshots alone).
            uncachedPowerAsOf.append(try Measurement.seconds { _ = try TimeTravel.document(Views.favorites, key: "power-user", asOf: .position(point), in: store) })
            uncachedFreshAsOf.append(try Measurement.seconds { _ = try TimeTravel.document(Views.favorites, key: "new-user-3", asOf: .position(point), in: store) })
        }
        line("a command in a long-running process (median of 200)", inPower, inFresh, digits: 6)
        line("favorites as of a position in a long-running process (median of 200)", inPowerAsOf, inFreshAsOf, digits: 6)
        line("the same without the time-travel cache (median of 200)", uncachedPowerAsOf, uncachedFreshAsOf, digits: 6)
        console.output("[\(label)] the time-travel cache then: \(timeTravel.count) states, \(String(format: "%.1f", Double(timeTravel.bytes) / 1_048_576)) MiB (bound \(timeTravel.byteLimit >> 20) MiB)")
        console.flush()
    }

    // MARK: - One store of one size

    /// A store to measure: the handle, what `evtool --store` calls it, how to drop it.
    struct Opened {
        var store: any EventStore & ProjectionStore & MultiStreamAppending & SnapshotDocuments
        var location: String
        /// The PostgreSQL schema (nil for SQLite).
        var schema: String?
        /// The SQLite file (nil for PostgreSQL).
        var path: String? = nil
        var remove: () -> Void
    }

    static func open(kind: String, size: Int, _ settings: Settings) throws -> Opened {
        if kind == "sqlite" {
            let path = settings.directory + "/scale-\(size).sqlite"
            for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            let remove: @Sendable () -> Void = {
                for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            }
            Cleanup.register(path, remove)
            return Opened(store: try SQLiteEventStore(path: path), location: "sqlite:" + path, schema: nil, path: path) {
                remove()
                Cleanup.unregister(path)
            }
        }
        let url = settings.postgresURL ?? ""
        let schema = "bench_scale_\(getpid())_\(size)"
        try PostgresEventStore.dropSchema(url: url, schema: schema)
        Cleanup.register(schema) { try? PostgresEventStore.dropSchema(url: url, schema: schema) }
        let store = try PostgresEventStore(url: url, schema: schema)
        let separator = url.contains("?") ? "&" : "?"
        return Opened(store: store, location: url + separator + "schema=" + schema, schema: schema) {
            try? PostgresEventStore.dropSchema(url: url, schema: schema)
            Cleanup.unregister(schema)
        }
    }

    static func measure(kind: String, size: Int, pool: Pool, _ settings: Settings, console: inout Console) throws -> Figures {
        let opened = try open(kind: kind, size: size, settings)
        defer { opened.remove() }
        let store = opened.store
        var figures: Figures = [:]
        let label = "\(String(size).groupedThousands) events"
        let users = settings.userCount(at: size)
        var versions = [Int64](repeating: 0, count: users)
        var generator = SplitMix64(seed: 41)

        // The build, then a measured batched append of the last tenth (at most 100,000 events).
        let measured = min(100_000, max(size / 10, 1_000))
        let built = try Measurement.seconds {
            try fill(store, events: size - measured, pool: pool, versions: &versions, generator: &generator)
        }
        console.output("[\(label)] build: \(String(size - measured).groupedThousands) events in \(String(format: "%.1f", built)) s (\(rate(Double(size - measured) / built))/s, 1,000 events over up to 1,000 streams per transaction)")
        console.flush()
        let appended = try Measurement.seconds {
            try fill(store, events: measured, pool: pool, versions: &versions, generator: &generator)
        }
        figures["append"] = Double(measured) / appended
        console.output("[\(label)] batched append: \(String(measured).groupedThousands) events at \(rate(figures["append"]!))/s")
        console.flush()

        // Users to sample, the same at every size (the same seed).
        var pick = SplitMix64(seed: 99)
        let sampled = (0..<settings.samples).map { _ in Int.random(in: 0..<users, using: &pick) }

        // One durable command each, through a runner as an app server that just started holds
        // it: its snapshots (made by a first pass over the same users), no cached state.
        let warm = CommandRunner(store: store, cache: nil, snapshots: DocumentSnapshots(store: store))
        for user in Set(sampled) { _ = try warm.load(user: ActivityGenerator.userID(user)) }
        let runner = CommandRunner(store: store, snapshots: DocumentSnapshots(store: store))
        // Its parts, taken in turn with each command (the same disk, the same moment): the
        // runner's load of another sampled user's state (reads only), and one durable append of
        // one event to a stream of its own (the store alone: no runner, no read before it).
        let loader = CommandRunner(store: store, cache: nil, snapshots: DocumentSnapshots(store: store))
        var commands: [Double] = [], loads: [Double] = [], appends: [Double] = []
        for (index, user) in sampled.enumerated() {
            let search = Searched(keyword: "jazz \(index % 10)", category: .music, distance: 10, units: .miles,
                                  location: .current(latitude: 34.0224, longitude: -118.2851))
            let context = CommandContext(userID: ActivityGenerator.userID(user), source: "bench", occurredAt: Timestamp.now())
            commands.append(try Measurement.seconds {
                guard case .recorded = try runner.handle(.search(search), context: context) else {
                    throw CLIError(message: "a search was not recorded", code: .failure)
                }
            })
            let other = ActivityGenerator.userID(sampled[(index + sampled.count / 2) % sampled.count])
            loads.append(try Measurement.seconds { _ = try loader.load(user: other) })
            let event = pool.event(user: "bench-append-\(index)", milliseconds: UInt64(Timestamp.microseconds(Timestamp.now()) / 1_000), generator: &generator)
            appends.append(try Measurement.seconds { _ = try store.append([event], to: "bench-append-\(index)", expectedVersion: .noStream) })
        }
        record(&figures, "command", commands, label: label, what: "durable command through the runner (a search)", console: &console)
        record(&figures, "load", loads, label: label, what: "of which: the runner's load of a user's state (no cache)", console: &console)
        record(&figures, "append-one", appends, label: label, what: "of which: one durable one-event append (the store alone)", console: &console)

        // A full rebuild in a child process: time and peak memory.
        if kind == "sqlite", settings.compareCache {
            let old = try child(settings.evtool, ["rebuild", "--store", opened.location], environment: Self.defaultCacheEnvironment)
            console.output("[\(label)] rebuild with SQLite's default 2 MiB page cache: \(String(format: "%.1f", old.seconds)) s, peak memory \(Measurement.mebibytes(old.maxResident))")
            console.flush()
        }
        let rebuild = try child(settings.evtool, ["rebuild", "--store", opened.location])
        figures["rebuild"] = rebuild.seconds
        figures["rebuild-memory"] = Double(rebuild.maxResident)
        console.output("[\(label)] rebuild (evtool rebuild, all 4 views): \(String(format: "%.1f", rebuild.seconds)) s, peak memory \(Measurement.mebibytes(rebuild.maxResident))")
        console.flush()

        // One user's views and history.
        let projector = Projector(store: store)
        try projector.catchUp()
        var favorites: [Double] = [], recent: [Double] = [], history: [Double] = [], asOf: [Double] = []
        let head = try store.headPosition()
        for user in sampled {
            let id = ActivityGenerator.userID(user)
            favorites.append(try Measurement.seconds { _ = try projector.document(Views.favorites, key: id) })
            recent.append(try Measurement.seconds { _ = try projector.document(Views.recentSearches, key: id) })
            history.append(try Measurement.seconds {
                _ = try History.latestEntries(of: id, in: store, limit: 50)
            })
            asOf.append(try Measurement.seconds {
                _ = try TimeTravel.document(Views.favorites, key: id, asOf: .position(head / 2), in: store)
            })
        }
        record(&figures, "favorites", favorites, label: label, what: "favorites of one user", console: &console)
        record(&figures, "recent", recent, label: label, what: "recent searches of one user", console: &console)
        record(&figures, "history", history, label: label, what: "history (last 50) of one user", console: &console)
        record(&figures, "as-of", asOf, label: label, what: "favorites of one user as of the middle of the log", console: &console)
        if kind == "sqlite", settings.compareCache, let path = opened.path {
            try comparePageCaches(path: path, users: sampled.map(ActivityGenerator.userID), head: head, label: label, console: &console)
        }

        let verify = try child(settings.evtool, ["verify", "--store", opened.location])
        guard verify.output.hasPrefix("OK: ") else {
            throw CLIError(message: "evtool verify did not say OK: \(verify.output)", code: .failure)
        }
        figures["verify"] = verify.seconds
        if kind == "sqlite", settings.compareCache {
            let old = try child(settings.evtool, ["verify", "--store", opened.location], environment: Self.defaultCacheEnvironment)
            console.output("[\(label)] verify with SQLite's default 2 MiB page cache: \(String(format: "%.1f", old.seconds)) s, peak memory \(Measurement.mebibytes(old.maxResident))")
        }
        figures["verify-memory"] = Double(verify.maxResident)
        console.output("[\(label)] verify (evtool verify): \(String(format: "%.1f", verify.seconds)) s, peak memory \(Measurement.mebibytes(verify.maxResident))")

        let events = Double(try store.headPosition())
        var bytes: Double?
        if kind == "sqlite" {
            let stats = try child(settings.evtool, ["stats", "--json", "--store", opened.location])
            if let range = stats.output.range(of: #""sizeBytes":([0-9]+)"#, options: .regularExpression) {
                bytes = Double(stats.output[range].split(separator: ":")[1])
            }
        } else if let schema = opened.schema {
            // Every table of the schema with its indexes and TOAST, and the events table's indexes:
            // on a partitioned events table each index is a partitioned index of no size of its
            // own, so its size is the sum over its partitions' indexes (pg_partition_tree).
            let sizes = try child("/usr/bin/psql", [settings.postgresURL ?? "", "-X", "-q", "-A", "-t", "-F", " ", "-c", """
                SELECT 'total', sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = '\(schema)' AND c.relkind = 'r'
                UNION ALL
                SELECT i.relname, coalesce((SELECT sum(pg_relation_size(p.relid)) FROM pg_partition_tree(i.oid) p), pg_relation_size(i.oid))
                FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
                JOIN pg_class t ON t.oid = x.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
                WHERE n.nspname = '\(schema)' AND t.relname = 'events'
                """])
            var indexes: [String] = []
            for row in sizes.output.split(separator: "\n") {
                let columns = row.split(separator: " ")
                guard columns.count == 2, let value = Double(columns[1]) else { continue }
                if columns[0] == "total" { bytes = value } else { indexes.append("\(columns[0]) \(Measurement.mebibytes(Int(value)))") }
            }
            console.output("[\(label)] events indexes: \(indexes.sorted().joined(separator: ", "))")
        }
        if let bytes {
            figures["bytes-per-event"] = bytes / events
            console.output("[\(label)] size on disk: \(Measurement.mebibytes(Int(bytes))), \(String(format: "%.0f", bytes / events)) bytes per event")
        }
        console.flush()
        return figures
    }

    /// Domain events of the activity workload (``ActivityGenerator``: searches, favorites,
    /// unfavorites, details views over 20,000 listings) and their audit metadata, encoded once
    /// and drawn from at random, so that building ten million events costs the store's time,
    /// not the JSON encoder's.
    struct Pool {
        var events: [(type: String, data: Data)] = []
        /// Metadata with the user id `USER-PLACEHOLDER`, as the runner encodes it.
        var metadata: String
        /// The metadata's bytes before and after the placeholder.
        var metadataHead = Data(), metadataTail = Data()

        init() throws {
            var generator = ActivityGenerator(users: 1, listings: 20_000, seed: 13)
            for _ in 0..<20_000 {
                let event: DomainEvent
                switch generator.next().command {
                case .search(let search): event = .searched(search)
                case let .favorite(listing, summary): event = .favorited(Favorited(listingID: listing, summary: summary))
                case .unfavorite(let listing): event = .unfavorited(Unfavorited(listingID: listing))
                case let .viewDetails(listing, details): event = .detailsViewed(DetailsViewed(listingID: listing, details: details))
                }
                events.append(try event.encode())
            }
            let time = Date(timeIntervalSince1970: 1_796_000_000)
            metadata = String(decoding: try EventMetadata(userID: "USER-PLACEHOLDER", occurredAt: time, handledAt: time, correlationID: "bench",
                                                          causationID: "bench", source: "app-server-1").encoded(), as: UTF8.self)
            if let range = metadata.range(of: "USER-PLACEHOLDER") {
                metadataHead = Data(metadata[..<range.lowerBound].utf8)
                metadataTail = Data(metadata[range.upperBound...].utf8)
            }
        }

        /// One event drawn at random, with audit metadata for `user`.
        func event(user: String, milliseconds: UInt64, generator: inout SplitMix64) -> ProposedEvent {
            let (type, data) = events[Int(generator.next() % UInt64(events.count))]
            // The user id is a stream id (letters, digits, '-', '_', '.', ':'), so it needs no JSON escaping.
            var bytes = metadataHead
            bytes.append(contentsOf: user.utf8)
            bytes.append(metadataTail)
            return ProposedEvent(id: UUID.timeOrdered(milliseconds: milliseconds, using: &generator), type: type, data: data, metadata: bytes)
        }
    }

    /// Appends `events` events in transactions of 1,000, each to a user drawn uniformly.
    static func fill(_ store: any MultiStreamAppending, events: Int, pool: Pool, versions: inout [Int64], generator: inout SplitMix64) throws {
        var milliseconds = UInt64(Timestamp.microseconds(Timestamp.now()) / 1_000)
        var parts: [StreamAppend] = []
        parts.reserveCapacity(1_000)
        var done = 0
        while done < events {
            parts.removeAll(keepingCapacity: true)
            var touched: [Int: Int] = [:]   // user → index in parts
            for _ in 0..<min(1_000, events - done) {
                let user = Int.random(in: 0..<versions.count, using: &generator)
                let stream = UserStream.id(for: ActivityGenerator.userID(user))
                milliseconds += 1
                let event = pool.event(user: stream, milliseconds: milliseconds, generator: &generator)
                if let index = touched[user] {
                    parts[index].events.append(event)
                } else {
                    touched[user] = parts.count
                    parts.append(StreamAppend(stream: stream, expectedVersion: .exactly(versions[user]), events: [event]))
                }
            }
            for (user, index) in touched { versions[user] += Int64(parts[index].events.count) }
            done += parts.reduce(0) { $0 + $1.events.count }
            _ = try store.append(parts)
        }
    }

    // MARK: - Figures

    static func rate(_ perSecond: Double) -> String { String(Int(perSecond.rounded())).groupedThousands }

    static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }

    static func record(_ figures: inout Figures, _ name: String, _ samples: [Double], label: String, what: String, console: inout Console) {
        let sorted = samples.sorted()
        figures[name + "-p50"] = percentile(sorted, 0.5)
        figures[name + "-p99"] = percentile(sorted, 0.99)
        console.output("[\(label)] \(what): p50 \(String(format: "%.3f", figures[name + "-p50"]! * 1_000)) ms, p99 \(String(format: "%.3f", figures[name + "-p99"]! * 1_000)) ms")
        console.flush()
    }

    /// The large size's figures over the small one's, against the targets.
    static func ratios(small: (size: Int, figures: Figures), large: (size: Int, figures: Figures)) -> String {
        let linear = Double(large.size) / Double(small.size) * 1.1
        var rows: [(String, String, Double)] = []   // figure, target text, bound
        for name in ["command", "load", "append-one", "favorites", "recent", "history", "as-of"] {
            rows.append((name + "-p50", "1.3", 1.3))
            rows.append((name + "-p99", "1.3", 1.3))
        }
        rows.append(("append", "1.3", 1.3))   // a rate: the small size's over the large one's
        rows.append(("rebuild", String(format: "%.1f", linear), linear))
        rows.append(("verify", String(format: "%.1f", linear), linear))
        rows.append(("rebuild-memory", "-", .infinity))
        rows.append(("verify-memory", "-", .infinity))
        rows.append(("bytes-per-event", "-", .infinity))
        var text = "ratios \(String(large.size).groupedThousands) / \(String(small.size).groupedThousands) events (for the append rate: the smaller size's over the larger's)\n"
        text += "FIGURE".padded(to: 18) + "SMALL".leftPadded(to: 12, with: " ") + "LARGE".leftPadded(to: 12, with: " ") + "RATIO".leftPadded(to: 8, with: " ") + "  TARGET\n"
        for (name, target, bound) in rows {
            guard let a = small.figures[name], let b = large.figures[name] else { continue }
            let ratio = name == "append" ? a / b : b / a
            let shown: (Double) -> String = { value in
                if name.hasSuffix("memory") { return Measurement.mebibytes(Int(value)) }
                if name == "append" || name == "bytes-per-event" { return self.rate(value) }
                if name == "rebuild" || name == "verify" { return String(format: "%.1f s", value) }
                return String(format: "%.3f ms", value * 1_000)
            }
            let verdict = bound.isInfinite ? "-" : (ratio <= bound ? "≤ \(target) ok" : "≤ \(target) MISSED")
            text += name.padded(to: 18) + shown(a).leftPadded(to: 12, with: " ") + shown(b).leftPadded(to: 12, with: " ")
                + String(format: "%.2f", ratio).leftPadded(to: 8, with: " ") + "  " + verdict + "\n"
        }
        return String(text.dropLast())
    }

    // MARK: - Child processes

    /// Runs `evtool` with `arguments` (and `environment` over this process's); its seconds,
    /// its own peak resident set (bytes, ``PeakMemory``) and standard output. An interrupt
    /// while it runs ends it too.
    /// - Throws: ``CLIError`` when it cannot be started or exits with a failure.
    static func child(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws -> (seconds: Double, maxResident: Int, output: String) {
        let outputPath = NSTemporaryDirectory() + "evtool-bench-child-\(getpid()).out"
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var merged = ProcessInfo.processInfo.environment
        for (name, value) in environment { merged[name] = value }
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in envp { free(pointer) } }
        var pid: pid_t = 0
        let start = DispatchTime.now().uptimeNanoseconds
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, envp)
        guard spawned == 0 else {
            throw CLIError(message: "cannot run \(path): \(String(cString: strerror(spawned))) (build it first: swift build -c release)", code: .failure)
        }
        Cleanup.child(pid)
        defer { Cleanup.child(nil) }
        // The child's own peak, read while it runs (not wait4's ru_maxrss: PeakMemory says why).
        let peak = PeakMemory(pid: pid)
        waitForExit(pid)
        let end = DispatchTime.now().uptimeNanoseconds
        let ownPeak = peak.finish()
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw CLIError(message: "waiting for \(path): \(String(cString: strerror(errno)))", code: .failure) }
        }
        let seconds = Double(end - start) / 1e9
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        let exited = status & 0x7f == 0, code = (status >> 8) & 0xff
        guard exited, code == 0 else {
            throw CLIError(message: "evtool \(arguments.first ?? "") failed (status \(status)): \(output)", code: .failure)
        }
        return (seconds, ownPeak > 0 ? ownPeak : Int(usage.ru_maxrss) * 1_024, output)
    }
}
