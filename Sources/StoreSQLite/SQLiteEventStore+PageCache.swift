import Foundation

extension SQLiteEventStore {
    /// How much of the file a connection keeps in memory: SQLite's page cache and its
    /// memory-mapped window (`PRAGMA cache_size`, `PRAGMA mmap_size`), per connection.
    ///
    /// The rule (``rule(forFileBytes:)``): a page cache of 8 MiB, whatever the file's size, and
    /// no memory map. SQLite's own default is a 2 MiB cache. A cache of an eighth of the file
    /// (up to 256 MiB) was measured against it on a 1.2 GiB store (docs/explanation/scale.md): the same
    /// point-read p50s, since the OS page cache holds the file, and a rebuild's peak memory up
    /// by a third (it reads every page), so the cache stays small. `$EVTOOL_SQLITE_CACHE_MIB`
    /// and `$EVTOOL_SQLITE_MMAP_MIB` (read by `evtool` when it opens a store) set either by hand.
    public struct PageCache: Sendable, Hashable {
        /// The page cache's bound, in bytes (SQLite's `cache_size` in KiB, negated).
        public var cacheBytes: Int
        /// The memory-mapped window, in bytes (0: none; SQLite caps it at its `MAX_MMAP_SIZE`).
        public var mmapBytes: Int

        /// A page cache of `cacheBytes` and a memory map of `mmapBytes`.
        public init(cacheBytes: Int, mmapBytes: Int = 0) {
            self.cacheBytes = cacheBytes
            self.mmapBytes = mmapBytes
        }

        /// SQLite's own defaults (a 2,000 KiB cache, no memory map): what stores used before.
        public static let sqliteDefault = PageCache(cacheBytes: 2_000 * 1_024)

        /// The rule for a file of `bytes`: 8 MiB, whatever its size (see the type's comment).
        public static func rule(forFileBytes bytes: Int) -> PageCache {
            PageCache(cacheBytes: 8 << 20)
        }
    }

    /// The page cache and memory map the store's connection uses (read back from SQLite).
    public func pageCache() throws -> PageCache {
        try withConnection { connection in
            let size = try connection.scalarInt("PRAGMA cache_size") ?? 0
            let mmap = try connection.scalarInt("PRAGMA mmap_size") ?? 0
            // A negative cache_size is KiB; a positive one is pages.
            let page = try connection.scalarInt("PRAGMA page_size") ?? 4_096
            return PageCache(cacheBytes: Int(size < 0 ? -size * 1_024 : size * page), mmapBytes: Int(mmap))
        }
    }

    /// Sets the connection's page cache and memory map, before its first read.
    static func applyPageCache(_ cache: PageCache, _ connection: SQLiteConnection) throws {
        try connection.execute("PRAGMA cache_size = -\(max(cache.cacheBytes / 1_024, 1))")
        try connection.execute("PRAGMA mmap_size = \(max(cache.mmapBytes, 0))")
    }

    /// The size of the file at `path` and its WAL (0 when there is none yet).
    static func fileBytes(_ path: String) -> Int {
        guard path != ":memory:" else { return 0 }
        return ["", "-wal"].reduce(0) { total, suffix in
            var status = stat()
            return total + (stat(path + suffix, &status) == 0 ? Int(status.st_size) : 0)
        }
    }
}
