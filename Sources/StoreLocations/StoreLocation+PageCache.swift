import Foundation
import StoreSQLite

extension StoreLocation {
    /// The SQLite page cache `evtool` opens a store with: the store's rule
    /// (``SQLiteEventStore/PageCache/rule(forFileBytes:)``) unless `$EVTOOL_SQLITE_CACHE_MIB`
    /// or `$EVTOOL_SQLITE_MMAP_MIB` sets the page cache or the memory map, in MiB (nil: the rule).
    /// - Throws: ``StoreLocationError/invalidLocation(_:)`` when either is not a whole number
    ///   from 0 to 65,536 (the cache at least 1).
    public static func sqlitePageCache(path: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> SQLiteEventStore.PageCache? {
        func mebibytes(_ name: String, least: Int) throws -> Int? {
            guard let text = environment[name], !text.isEmpty else { return nil }
            guard let value = Int(text), (least...65_536).contains(value) else {
                throw StoreLocationError.invalidLocation("$\(name) must be a whole number of MiB from \(least) to 65536, not '\(text)'")
            }
            return value << 20
        }
        let cache = try mebibytes("EVTOOL_SQLITE_CACHE_MIB", least: 1)
        let mmap = try mebibytes("EVTOOL_SQLITE_MMAP_MIB", least: 0)
        guard cache != nil || mmap != nil else { return nil }
        var chosen = SQLiteEventStore.PageCache.rule(forFileBytes: StoreLocation.sqlite(path: path).sizeInBytes ?? 0)
        if let cache { chosen.cacheBytes = cache }
        if let mmap { chosen.mmapBytes = mmap }
        return chosen
    }
}
