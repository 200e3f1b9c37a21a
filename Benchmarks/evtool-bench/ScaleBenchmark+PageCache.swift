import Commands
import EventLog
import Foundation
import Projections
import StoreLocations
import StoreSQLite

extension ScaleBenchmark {
    /// The environment that makes `evtool` open SQLite with (about) SQLite's default page cache
    /// instead of the store's rule: 2 MiB, no memory map.
    static let defaultCacheEnvironment = ["EVTOOL_SQLITE_CACHE_MIB": "2", "EVTOOL_SQLITE_MMAP_MIB": "0"]

    /// The same reads as the suite's (favorites, history of the last 50, favorites as of the
    /// middle) of `users`, through one handle per page-cache setting on the same file, the
    /// settings taken in turn for each user (so that the load and the OS cache fall on each alike).
    static func comparePageCaches(path: String, users: [String], head: Int64, label: String, console: inout Console) throws {
        var options = SQLiteEventStore.Options()
        options.createIfMissing = false
        let rule = SQLiteEventStore.PageCache.rule(forFileBytes: StoreLocation.sqlite(path: path).sizeInBytes ?? 0)
        let settings: [(String, SQLiteEventStore.PageCache)] = [
            ("SQLite's default 2 MiB page cache", .sqliteDefault),
            ("the rule's \(Measurement.mebibytes(rule.cacheBytes)) page cache", rule),
            ("SQLite's default page cache and a 2 GiB memory map", SQLiteEventStore.PageCache(cacheBytes: SQLiteEventStore.PageCache.sqliteDefault.cacheBytes, mmapBytes: 2 << 30)),
        ]
        var stores: [(store: SQLiteEventStore, projector: Projector)] = []
        for (_, cache) in settings {
            options.pageCache = cache
            let store = try SQLiteEventStore(path: path, options: options)
            stores.append((store, Projector(store: store)))
        }
        var samples = [[[Double]]](repeating: [[], [], []], count: settings.count)   // setting → figure → seconds
        for (index, user) in users.enumerated() {
            for turn in 0..<settings.count {
                let which = (index + turn) % settings.count
                let (store, projector) = stores[which]
                samples[which][0].append(try Measurement.seconds { _ = try projector.document(Views.favorites, key: user) })
                samples[which][1].append(try Measurement.seconds { _ = try History.latestEntries(of: user, in: store, limit: 50) })
                samples[which][2].append(try Measurement.seconds {
                    _ = try TimeTravel.document(Views.favorites, key: user, asOf: .position(head / 2), in: store)
                })
            }
        }
        for (which, (name, _)) in settings.enumerated() {
            let p50 = samples[which].map { percentile($0.sorted(), 0.5) * 1_000 }
            console.output("[\(label)] reads with \(name): p50 favorites \(String(format: "%.3f", p50[0])) ms, history (last 50) \(String(format: "%.3f", p50[1])) ms, as-of \(String(format: "%.3f", p50[2])) ms")
        }
        console.flush()
    }
}

