import EventLog
import Foundation

// MARK: - An unfinished copy into this file (`migrate`), recorded in `evtool_meta`

extension SQLiteEventStore: CopyRecording {
    /// The key of `evtool_meta` whose value names the source of an unfinished copy.
    static let unfinishedCopyKey = "unfinished_copy_from"

    public func unfinishedCopy() throws -> String? {
        try withConnection { connection in
            let statement = try connection.statement("SELECT value FROM evtool_meta WHERE key = ?1")
            defer { statement.reset() }
            try statement.bind(Self.unfinishedCopyKey, at: 1)
            return try statement.step() ? statement.string(0) : nil
        }
    }

    public func recordUnfinishedCopy(from source: String) throws {
        try withConnection { connection in
            try connection.transaction {
                let statement = try connection.statement("INSERT OR REPLACE INTO evtool_meta (key, value) VALUES (?1, ?2)")
                try statement.bind(Self.unfinishedCopyKey, at: 1)
                try statement.bind(source, at: 2)
                try statement.run()
            }
        }
    }

    public func finishCopy() throws {
        try withConnection { connection in
            try connection.transaction {
                let statement = try connection.statement("DELETE FROM evtool_meta WHERE key = ?1")
                try statement.bind(Self.unfinishedCopyKey, at: 1)
                try statement.run()
            }
        }
    }
}
