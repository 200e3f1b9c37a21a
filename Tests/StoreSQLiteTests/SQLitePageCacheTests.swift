import EventLog
import Foundation
@testable import StoreSQLite
import TestSupport
import Testing

@Suite("SQLite: the page cache is sized by the file, and one user's reads are index range reads")
struct SQLitePageCacheTests {
    @Test("the rule: 8 MiB whatever the file's size")
    func rule() {
        #expect(SQLiteEventStore.PageCache.rule(forFileBytes: 0) == .init(cacheBytes: 8 << 20))
        #expect(SQLiteEventStore.PageCache.rule(forFileBytes: 100 << 20) == .init(cacheBytes: 8 << 20))
        #expect(SQLiteEventStore.PageCache.rule(forFileBytes: 1 << 30) == .init(cacheBytes: 8 << 20))
        #expect(SQLiteEventStore.PageCache.rule(forFileBytes: 12 << 30) == .init(cacheBytes: 8 << 20))
        #expect(SQLiteEventStore.PageCache.sqliteDefault == .init(cacheBytes: 2_000 << 10))
    }

    @Test("a store opens with the rule's cache for its file, or with the one it is given")
    func opened() throws {
        let made = try TestStores.sqliteFile()
        defer { made.cleanup() }
        #expect(try made.store.pageCache() == .init(cacheBytes: 8 << 20), "a new file: the least, not SQLite's 2 MB")
        var options = SQLiteEventStore.Options()
        options.pageCache = .init(cacheBytes: 3 << 20, mmapBytes: 1 << 20)
        let given = try SQLiteEventStore(path: made.path, options: options)
        #expect(try given.pageCache() == .init(cacheBytes: 3 << 20, mmapBytes: 1 << 20))
        options.pageCache = .sqliteDefault
        #expect(try SQLiteEventStore(path: made.path, options: options).pageCache() == .sqliteDefault)
    }

    /// The query plan of `sql`, one detail line per step.
    func plan(_ sql: String, in store: SQLiteEventStore) throws -> [String] {
        try store.withConnection { connection in
            let statement = try connection.statement("EXPLAIN QUERY PLAN " + sql)
            defer { statement.reset() }
            var lines: [String] = []
            while try statement.step() { lines.append(statement.string(3)) }
            return lines
        }
    }

    @Test("one user's stream is read through the (stream, version) index from either end, with no scan and no sort")
    func plans() throws {
        let made = try TestStores.sqliteFile()
        defer { made.cleanup() }
        let columns = SQLiteEventStore.columns
        let expected = [
            // read(stream:from:direction: .backwards, limit:): history's latest entries
            "SELECT \(columns) FROM events WHERE stream_id = ?1 AND version <= ?2 ORDER BY version DESC LIMIT ?3":
                "SEARCH events USING INDEX events_stream_version (stream_id=? AND version<?)",
            // .forwards: as-of and history pages, StreamSearch's one-event reads
            "SELECT \(columns) FROM events WHERE stream_id = ?1 AND version >= ?2 ORDER BY version LIMIT ?3":
                "SEARCH events USING INDEX events_stream_version (stream_id=? AND version>?)",
            // an append's head of the stream
            "SELECT version, hash FROM events WHERE stream_id = ?1 ORDER BY version DESC LIMIT 1":
                "SEARCH events USING INDEX events_stream_version (stream_id=?)",
            // a view's document of one key (the unique index of schema 4)
            "SELECT document FROM view_documents WHERE projection = ?1 AND generation = ?2 AND key = ?3":
                "SEARCH view_documents USING INDEX view_documents_key (projection=? AND generation=? AND key=?)",
        ]
        for (sql, step) in expected {
            let lines = try plan(sql, in: made.store)
            #expect(lines == [step], "\(sql)")
        }
        let version = try plan("SELECT max(version) FROM events WHERE stream_id = ?1", in: made.store)
        #expect(version.count == 1 && version[0].hasPrefix("SEARCH events USING COVERING INDEX events_stream_version (stream_id=?)"), "\(version)")
    }
}
