import Foundation
import Testing
import TestSupport

@Suite("evtool: $EVTOOL_SQLITE_CACHE_MIB and $EVTOOL_SQLITE_MMAP_MIB set the SQLite page cache, and a bad value is refused")
struct PageCacheEnvironmentTests {
    @Test("a whole number of MiB is used; anything else is one Error line, exit 64, and no store made")
    func environment() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let store = "sqlite:" + directory.path + "/cache.sqlite"
        let good = try CLI.bare("init", "--store", store, environment: ["EVTOOL_SQLITE_CACHE_MIB": "2", "EVTOOL_SQLITE_MMAP_MIB": "64"])
        #expect(good.status == 0, "\(good)")
        for (name, value, least) in [("EVTOOL_SQLITE_CACHE_MIB", "abc", 1), ("EVTOOL_SQLITE_CACHE_MIB", "0", 1), ("EVTOOL_SQLITE_MMAP_MIB", "-1", 0),
                                     ("EVTOOL_SQLITE_MMAP_MIB", "65537", 0)] {
            let bad = try CLI.bare("init", "--store", "sqlite:" + directory.path + "/bad.sqlite", environment: [name: value])
            #expect(bad.status == 64, "\(name)=\(value): \(bad)")
            #expect(bad.errors == "Error: $\(name) must be a whole number of MiB from \(least) to 65536, not '\(value)'\nSee 'evtool --help'.\n", "\(bad)")
            #expect(!FileManager.default.fileExists(atPath: directory.path + "/bad.sqlite"), "nothing made")
        }
    }
}
