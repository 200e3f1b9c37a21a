import CSQLite
import EventLog
import Foundation

/// The embedded event store: one SQLite file (or `:memory:`), shared safely by threads of
/// one process and by several processes.
///
/// - WAL mode, so readers never block the writer: a read that comes while the store's
///   connection is busy (an append waiting for the disk) runs on a reader connection of its
///   own (``withReadConnection(_:)``).
/// - Durable by default: an append that returned survives a power loss (`synchronous=FULL`).
/// - The WAL is copied back into the file on a thread of its own (``WALCheckpointer``), not
///   inside the commit that fills it.
/// - Each append is one `BEGIN IMMEDIATE` transaction: the version check and the inserts
///   happen under SQLite's single write lock, and unique indexes on (stream, version) and
///   event id make a duplicate impossible even if a check were bypassed.
public final class SQLiteEventStore: MultiStreamAppending {
    /// How an append trades safety for speed.
    public enum Durability: String, Sendable {
        /// `synchronous=FULL`: an append that returned survives a power loss (the default).
        case full
        /// `synchronous=NORMAL`: an append that returned survives a crash of the process, but
        /// the last appends before a power loss may be lost. Several times faster for
        /// one-event appends, since a commit no longer waits for the disk.
        case normal
    }

    /// Settings for opening a store.
    public struct Options: Sendable {
        /// See ``Durability``; `.full` by default.
        public var durability: Durability = .full
        /// How long to wait for another process's write lock before failing, in milliseconds.
        public var busyTimeoutMilliseconds: Int32 = 10_000
        /// Whether to create the file when it does not exist (true by default).
        public var createIfMissing = true
        /// The connection's page cache and memory map; nil (the default): ``PageCache/rule(forFileBytes:)``
        /// for the file's size when it is opened.
        public var pageCache: PageCache?

        /// Default options: durable, 10 s busy timeout, create when missing.
        public init() {}
    }

    /// The file's path, or `:memory:`.
    public let path: String
    /// The store's connection; a waiter sleeps (``Locked``): an append or a view commit holds it for milliseconds.
    private let connection: Locked<SQLiteConnection>
    // Connections that only read, for reads that come while the store's connection is busy:
    // opened when first needed, kept for the next, at most `maximumReaders`.
    private let readers = Locked(ReaderPool())
    private let readerSettings: (busyTimeoutMilliseconds: Int32, pageCache: PageCache)
    // Checkpoints the WAL beside the commits, not in them (none for `:memory:`, which has no WAL).
    let checkpointer: WALCheckpointer?

    /// How many reader connections a store opens at most (each with its own page cache).
    static let maximumReaders = 4

    private struct ReaderPool {
        var idle: [SQLiteConnection] = []
        var opened = 0
    }

    /// Opens the store at `path`, creating or upgrading its schema.
    ///
    /// Only a regular file (or a path where none exists yet) is opened: a folder, a device
    /// (`/dev/null`), a FIFO or a socket is refused before SQLite touches it, so SQLite never
    /// creates a `-journal` or `-wal` file beside it. With `createIfMissing` off, a missing
    /// or empty file is refused and nothing is created.
    /// - Throws: ``EventStoreError/unavailable(_:)`` when the file cannot be opened, is not a
    ///   regular file, or (with `createIfMissing` off) is missing or empty,
    ///   ``EventStoreError/corrupt(_:)`` when it is not an evtool store,
    ///   ``EventStoreError/newerSchema(found:supported:)`` when a newer evtool wrote it.
    public init(path: String, options: Options = Options()) throws {
        self.path = path
        let connection: SQLiteConnection
        do {
            if path != ":memory:" { try Self.checkLocation(path, createIfMissing: options.createIfMissing) }
            connection = try SQLiteConnection(path: path, create: options.createIfMissing)
            sqlite3_busy_timeout(connection.handle, options.busyTimeoutMilliseconds)
            let pageCache = options.pageCache ?? .rule(forFileBytes: Self.fileBytes(path))
            try Self.applyPageCache(pageCache, connection)
            try Self.prepare(connection, path: path, options: options)
            readerSettings = (options.busyTimeoutMilliseconds, pageCache)
        } catch let error as SQLiteError {
            throw Self.storeError(error, path: path)
        }
        checkpointer = path == ":memory:" ? nil : WALCheckpointer(path: path)
        checkpointer?.install(on: connection)
        self.connection = Locked(connection)
    }

    deinit {
        guard let checkpointer else { return }
        connection.withLock { _ = sqlite3_wal_hook($0.handle, nil, nil) }
        checkpointer.stop()
    }

    /// How many WAL checkpoints this store has run beside its commits (for the tests).
    var checkpointsRun: Int { checkpointer?.completed ?? 0 }

    /// Stops the checkpointer's thread, as if it never kept up (for the tests).
    func stopCheckpointerThread() { checkpointer?.stop() }

    /// Asks the checkpointer's thread for a checkpoint now (for the tests).
    func requestCheckpoint() { checkpointer?.wake() }

    /// Refuses a path that is not a regular file (or not there, when it may not be created).
    /// Other failures (a missing folder, a path too long, no permission) are left to SQLite,
    /// which names them.
    private static func checkLocation(_ path: String, createIfMissing: Bool) throws {
        var status = stat()
        guard stat(path, &status) == 0 else {
            if errno == ENOENT, !createIfMissing {
                throw EventStoreError.unavailable("no store at '\(path)' (the file does not exist)")
            }
            return
        }
        let kind: String
        switch status.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: throw EventStoreError.unavailable("'\(path)' is a directory, not an SQLite file")
        case S_IFCHR, S_IFBLK: kind = "a device"
        case S_IFIFO: kind = "a FIFO (named pipe)"
        case S_IFSOCK: kind = "a socket"
        default: kind = "not a regular file"
        }
        throw EventStoreError.unavailable("'\(path)' is \(kind), not an SQLite file; a store is a regular file")
    }

    /// Opens a private in-memory store (gone when released).
    public static func inMemory() throws -> SQLiteEventStore {
        try SQLiteEventStore(path: ":memory:")
    }

    // MARK: - Schema

    /// Checks, creates or upgrades the schema and sets the journal mode, trying again while
    /// another process holds the file's lock, for up to the busy timeout.
    ///
    /// SQLite's busy handler does not cover every wait: where waiting could deadlock, such as
    /// `PRAGMA journal_mode=WAL` (which reads the header, then must write it) while another
    /// process is committing a new store's schema, SQLite returns SQLITE_BUSY at once. The
    /// failed statement has released its lock by then, so the other process finishes, and the
    /// whole step, which has no effect until its transaction commits, is simply run again.
    private static func prepare(_ connection: SQLiteConnection, path: String, options: Options) throws {
        let deadline = ContinuousClock.now + .milliseconds(Int(options.busyTimeoutMilliseconds))
        while true {
            do {
                return try prepareOnce(connection, path: path, options: options)
            } catch let error as SQLiteError where error.code.primary == .busy && ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: Double.random(in: 0.005...0.05))
            }
        }
    }

    private static func prepareOnce(_ connection: SQLiteConnection, path: String, options: Options) throws {
        // One snapshot: another process may commit a new store's schema at any moment.
        let found = try connection.transaction("DEFERRED") { try identity(connection) }
        try check(found, path: path)
        if found.isEmpty, !options.createIfMissing, path != ":memory:" {
            throw EventStoreError.unavailable("no store at '\(path)' (the file is empty; nothing was created in it)")
        }
        if !found.isEmpty, found.version < SQLiteSchema.currentVersion, !options.createIfMissing, path != ":memory:" {
            // A read changes nothing, an upgrade included: the operator upgrades on purpose.
            throw EventStoreError.unavailable("the store at '\(path)' has schema version \(found.version) and this release uses \(SQLiteSchema.currentVersion); a read changes nothing, so upgrade it first with 'evtool init' (or any recording command)")
        }
        if path != ":memory:" {
            try connection.execute("PRAGMA journal_mode=WAL")
        }
        try connection.execute("PRAGMA synchronous=\(options.durability == .full ? "FULL" : "NORMAL")")
        if found.version < SQLiteSchema.currentVersion {
            try upgrade(connection, path: path)
        }
    }

    /// What a file holds, read in one statement (so in one snapshot).
    private struct Identity {
        var applicationID: Int64
        var version: Int
        var tables: Int64
        /// No schema at all: a new file, or one another process is creating right now
        /// (its schema appears whole when that process commits).
        var isEmpty: Bool { applicationID == 0 && tables == 0 }
    }

    private static func identity(_ connection: SQLiteConnection) throws -> Identity {
        let statement = try connection.statement("""
            SELECT (SELECT application_id FROM pragma_application_id), (SELECT user_version FROM pragma_user_version),
                   (SELECT count(*) FROM sqlite_schema)
            """)
        defer { statement.reset() }
        guard try statement.step() else { return Identity(applicationID: 0, version: 0, tables: 0) }
        return Identity(applicationID: statement.int64(0), version: Int(statement.int64(1)), tables: statement.int64(2))
    }

    /// Refuses a file that is another program's database or a newer evtool's store.
    private static func check(_ found: Identity, path: String) throws {
        if !found.isEmpty, found.applicationID != SQLiteSchema.applicationID {
            throw EventStoreError.corrupt("'\(path)' is an SQLite database, but not an evtool store")
        }
        if found.version > SQLiteSchema.currentVersion {
            throw EventStoreError.newerSchema(found: found.version, supported: SQLiteSchema.currentVersion)
        }
    }

    /// Creates or upgrades the schema in one write transaction (`BEGIN IMMEDIATE`), and
    /// decides what to do only inside it: of several processes opening a new file at once,
    /// one creates the store and the others, waiting for the lock, find it made and do nothing.
    private static func upgrade(_ connection: SQLiteConnection, path: String) throws {
        try connection.transaction {
            let found = try identity(connection)
            try check(found, path: path)
            let version = found.version
            guard version < SQLiteSchema.currentVersion else { return }
            for (index, step) in SQLiteSchema.steps.enumerated() where index >= version {
                try connection.execute(step)
                if index == 2 {
                    try fillHashes(connection)
                    try connection.execute(SQLiteSchema.appendOnlyTriggers)
                }
            }
            let current = SQLiteSchema.currentVersion
            try connection.execute("""
                PRAGMA application_id = \(SQLiteSchema.applicationID);
                PRAGMA user_version = \(current);
                INSERT OR REPLACE INTO evtool_meta (key, value) VALUES
                    ('application', 'evtool event log'), ('schema_version', '\(current)');
                """)
        }
    }

    /// Computes the chain hash of every event a version 2 file holds, stream by stream in
    /// version order (step 3 of the schema). Memory: one previous hash per stream.
    private static func fillHashes(_ connection: SQLiteConnection) throws {
        // Batches, so that no SELECT is open on the table while its rows are updated.
        let select = try connection.statement("SELECT \(columns) FROM events WHERE position > ?1 ORDER BY position LIMIT 1000")
        let update = try connection.statement("UPDATE events SET hash = ?1 WHERE position = ?2")
        let hasher = EventChain.Hasher()
        var heads: [StreamKey: [UInt8]] = [:]   // by the ids' bytes, as the table's index
        var cursor: Int64 = 0
        while true {
            try select.bind(cursor, at: 1)
            let batch = try events(from: select, capacity: 1_000)
            select.reset()
            guard let last = batch.last else { return }
            cursor = last.position
            for event in batch {
                let previous = heads[StreamKey(event.streamID)] ?? EventChain.genesis
                let hash = hasher.hash(previous: previous, stream: event.streamID, version: event.version, id: event.id, type: event.type,
                                       recordedAt: Timestamp.format(event.recordedAt), data: event.data, metadata: event.metadata)
                heads[StreamKey(event.streamID)] = hash
                try update.bind(hash.hexString, at: 1)
                try update.bind(event.position, at: 2)
                try update.run()
            }
        }
    }

    /// The schema version of the open file.
    public func schemaVersion() throws -> Int {
        try withConnection { try Self.identity($0).version }
    }

    // MARK: - EventStore

    @discardableResult
    public func append(_ events: [ProposedEvent], to stream: String, expectedVersion: ExpectedVersion) throws -> AppendResult {
        try append([StreamAppend(stream: stream, expectedVersion: expectedVersion, events: events)])[0]
    }

    @discardableResult
    public func append(_ parts: [StreamAppend]) throws -> [AppendResult] {
        for part in parts { try AppendValidation.validate(part.events, stream: part.stream, copiesLog: part.copiesLog) }
        return try withConnection { connection in
            connection.appendedChain.begin()
            let results: [AppendResult]
            do {
                results = try connection.transaction {
                    let now = Timestamp.format(Date())
                    let hasher = EventChain.Hasher()
                    return try parts.map { try Self.insert($0, now: now, hasher: hasher, connection) }
                }
            } catch {
                connection.appendedChain.discard()
                throw error
            }
            connection.appendedChain.commit()
            return results
        }
    }

    /// Checks one part's expected version and inserts its events, inside the caller's transaction.
    static func insert(_ part: StreamAppend, now: String, hasher: EventChain.Hasher, _ connection: SQLiteConnection) throws -> AppendResult {
        let (stream, expectedVersion, events) = (part.stream, part.expectedVersion, part.events)
        // The stream's head and its hash, read under the write lock with the version check.
        let head = try connection.statement("SELECT version, hash FROM events WHERE stream_id = ?1 ORDER BY version DESC LIMIT 1")
        try head.bind(stream, at: 1)
        var actual: Int64 = 0
        var previous = EventChain.genesis
        if try head.step() {
            actual = head.int64(0)
            guard let bytes = [UInt8](hexadecimal: head.string(1)), bytes.count == 32 else {
                head.reset()
                throw EventStoreError.corrupt("stream '\(stream)' has a malformed hash at version \(actual)")
            }
            previous = bytes
            head.reset()
        } else {
            head.reset()
            // A stream whose events were all archived carries on from its archived head.
            if let archived = try archivedHead(of: stream, connection) {
                actual = archived.version
                previous = archived.hash
            }
        }
        guard expectedVersion.isSatisfied(by: actual) else {
            throw EventStoreError.wrongExpectedVersion(stream: stream, expected: expectedVersion, actual: actual)
        }
        let insert = try connection.statement("""
            INSERT INTO events (stream_id, version, event_id, type, data, metadata, recorded_at, hash)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
            """)
        try insert.bind(stream, at: 1)
        try insert.bind(now, at: 7)
        var first: Int64 = 0
        // The chain runs in one buffer: the link (32 bytes, each event's hash written over its
        // predecessor's) and its hex text (64 bytes, bound as the row's hash): no allocation
        // per event for the hash.
        var (streamText, nowText) = (stream, now)
        try withUnsafeTemporaryAllocation(byteCount: 96, alignment: 8) { chain in
            let link = chain.baseAddress!
            link.initializeMemory(as: UInt8.self, repeating: 0, count: 32)
            previous.withUnsafeBytes { link.copyMemory(from: $0.baseAddress!, byteCount: min($0.count, 32)) }
            try streamText.withUTF8 { streamBytes in
                try nowText.withUTF8 { nowBytes in
                    for (offset, event) in events.enumerated() {
                        let version = actual + Int64(offset) + 1
                        var type = event.type
                        var recordedAt = event.recordedAt.map { Timestamp.format($0) } ?? ""
                        try type.withUTF8 { typeBytes in
                            try recordedAt.withUTF8 { ownTime in
                                let timeBytes = event.recordedAt == nil ? UnsafeRawBufferPointer(nowBytes) : UnsafeRawBufferPointer(ownTime)
                                try event.data.withUnsafeBytes { data in
                                    try event.metadata.withUnsafeBytes { metadata in
                                        if let erasure = event.erasure {
                                            // Copied erased: chained from the digests its source kept.
                                            erasure.dataSHA256.withUnsafeBytes { dataSHA256 in
                                                erasure.metadataSHA256.withUnsafeBytes { metadataSHA256 in
                                                    hasher.hash(previous: UnsafeRawBufferPointer(start: link, count: 32), stream: UnsafeRawBufferPointer(streamBytes),
                                                                version: version, id: event.id, type: UnsafeRawBufferPointer(typeBytes), recordedAt: timeBytes,
                                                                dataSHA256: dataSHA256, metadataSHA256: metadataSHA256, into: link)
                                                }
                                            }
                                        } else {
                                            hasher.hash(previous: UnsafeRawBufferPointer(start: link, count: 32), stream: UnsafeRawBufferPointer(streamBytes),
                                                        version: version, id: event.id, type: UnsafeRawBufferPointer(typeBytes), recordedAt: timeBytes,
                                                        data: data, metadata: metadata, into: link)
                                        }
                                        try insert.bind(version, at: 2)
                                        try insert.bind(event.id.lowercaseString, at: 3)
                                        try insert.bindText(UnsafeRawBufferPointer(typeBytes), at: 4)
                                        try insert.bindText(data, at: 5)
                                        try insert.bindText(metadata, at: 6)
                                        if event.recordedAt != nil { try insert.bindText(timeBytes, at: 7) }
                                    }
                                }
                            }
                        }
                        HexEncoding.encode(UnsafeRawBufferPointer(start: link, count: 32), into: link + 32)
                        try insert.bindText(UnsafeRawBufferPointer(start: link + 32, count: 64), at: 8)
                        do {
                            try insert.run()
                        } catch let error as SQLiteError where error.code == .uniqueConstraint {
                            // The indexes are the last line of defence; the check above normally
                            // catches a version conflict first, since the write lock is held.
                            if error.message.contains("events.event_id") { throw EventStoreError.duplicateEventID(event.id) }
                            throw EventStoreError.wrongExpectedVersion(stream: stream, expected: expectedVersion, actual: actual)
                        }
                        if event.recordedAt != nil { try insert.bind(now, at: 7) }
                        if let erasure = event.erasure { try keepCopiedErasure(erasure, of: event.id, at: connection.lastInsertRowID, now: now, connection) }
                        if offset == 0 { first = connection.lastInsertRowID }
                        connection.appendedChain.record(position: connection.lastInsertRowID, hash: link)
                    }
                }
            }
        }
        let last = connection.lastInsertRowID
        guard last - first == Int64(events.count - 1) else {
            throw EventStoreError.corrupt("positions of one append are not contiguous (\(first)…\(last))")
        }
        return AppendResult(streamVersion: actual + Int64(events.count), positions: first...last)
    }

    /// Records the erasure of an event copied erased (``EventLog/ProposedEvent/erasure``), as
    /// `forget` records its own: the digests and the `UserErased` event that covers it.
    static func keepCopiedErasure(_ erasure: CopiedErasure, of id: UUID, at position: Int64, now: String, _ connection: SQLiteConnection) throws {
        let keep = try connection.statement("""
            INSERT INTO erasures (event_id, position, data_sha256, metadata_sha256, erased_at, erasure_event_id)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6)
            """)
        try keep.bind(id.lowercaseString, at: 1)
        try keep.bind(position, at: 2)
        try keep.bind(erasure.dataSHA256.hexString, at: 3)
        try keep.bind(erasure.metadataSHA256.hexString, at: 4)
        try keep.bind(now, at: 5)
        try keep.bind(erasure.erasureEventID.lowercaseString, at: 6)
        try keep.run()
    }

    public func read(stream: String, from version: Int64, direction: ReadDirection, limit: Int) throws -> [RecordedEvent] {
        try AppendValidation.validateStreamID(stream)
        guard limit > 0 else { return [] }
        let sql = direction == .forwards
            ? "SELECT \(Self.columns) FROM events WHERE stream_id = ?1 AND version >= ?2 ORDER BY version LIMIT ?3"
            : "SELECT \(Self.columns) FROM events WHERE stream_id = ?1 AND version <= ?2 ORDER BY version DESC LIMIT ?3"
        return try withReadConnection { connection in
            let statement = try connection.statement(sql)
            defer { statement.reset() }
            try statement.bind(stream, at: 1)
            try statement.bind(version, at: 2)
            try statement.bind(Int64(limit), at: 3)
            return try Self.events(from: statement, capacity: min(limit, 1_024))
        }
    }

    public func readAll(after position: Int64, limit: Int) throws -> [RecordedEvent] {
        guard limit > 0 else { return [] }
        return try withReadConnection { connection in
            let statement = try connection.statement(
                "SELECT \(Self.columns) FROM events WHERE position > ?1 ORDER BY position LIMIT ?2")
            defer { statement.reset() }
            try statement.bind(position, at: 1)
            try statement.bind(Int64(limit), at: 2)
            return try Self.events(from: statement, capacity: min(limit, 10_000))
        }
    }

    public func scanAll(after position: Int64, limit: Int, _ body: (LentEvent) throws -> Void) throws -> Int {
        guard limit > 0 else { return 0 }
        return try withReadConnection { connection in
            let statement = try connection.statement(
                "SELECT position, stream_id, type, data, recorded_at FROM events WHERE position > ?1 ORDER BY position LIMIT ?2")
            defer { statement.reset() }
            try statement.bind(position, at: 1)
            try statement.bind(Int64(limit), at: 2)
            var times = RecordingTimes()
            var count = 0
            while try statement.step() {
                guard let recordedAt = times.date(statement.textBytes(4)) else {
                    throw EventStoreError.corrupt("event at position \(statement.int64(0)) has a malformed recorded_at")
                }
                try body(LentEvent(position: statement.int64(0), streamID: statement.string(1), type: statement.string(2),
                                   recordedAt: recordedAt, data: UnsafeRawBufferPointer(statement.textBytes(3))))
                count += 1
            }
            return count
        }
    }

    public func events(withIDs ids: [UUID]) throws -> [RecordedEvent] {
        guard !ids.isEmpty else { return [] }
        // One statement: the ids as a JSON array, each looked up through the event_id index.
        let list = Data(("[" + ids.map { "\"\($0.lowercaseString)\"" }.joined(separator: ",") + "]").utf8)
        return try withReadConnection { connection in
            let statement = try connection.statement(
                "SELECT \(Self.columns) FROM events WHERE event_id IN (SELECT value FROM json_each(?1))")
            defer { statement.reset() }
            try statement.bindText(list, at: 1)
            return try Self.events(from: statement, capacity: 16)
        }
    }

    public func headPosition() throws -> Int64 {
        try withReadConnection { try $0.scalarInt("SELECT max(position) FROM events") ?? 0 }
    }

    public func version(of stream: String) throws -> Int64 {
        try AppendValidation.validateStreamID(stream)
        return try withReadConnection { connection in
            // A stream whose events were all archived has its archived head's version.
            try connection.scalarInt("SELECT coalesce((SELECT max(version) FROM events WHERE stream_id = ?1), (SELECT version FROM archived_heads WHERE stream_id = ?1))") { try $0.bind(stream, at: 1) } ?? 0
        }
    }

    // MARK: - Rows

    static let columns = "position, stream_id, version, event_id, type, data, metadata, recorded_at, hash"

    static func events(from statement: SQLiteStatement, capacity: Int) throws -> [RecordedEvent] {
        var events: [RecordedEvent] = []
        events.reserveCapacity(capacity)
        var times = RecordingTimes()
        while try statement.step() {
            events.append(try event(from: statement, times: &times))
        }
        return events
    }

    /// The event on the statement's current row (selected with ``columns``).
    static func event(from statement: SQLiteStatement) throws -> RecordedEvent {
        var times = RecordingTimes()
        return try event(from: statement, times: &times)
    }

    private static func event(from statement: SQLiteStatement, times: inout RecordingTimes) throws -> RecordedEvent {
        guard let id = UUID(utf8: statement.textBytes(3)) else {
            throw EventStoreError.corrupt("event at position \(statement.int64(0)) has a malformed event id")
        }
        guard let recordedAt = times.date(statement.textBytes(7)) else {
            throw EventStoreError.corrupt("event at position \(statement.int64(0)) has a malformed recorded_at")
        }
        return RecordedEvent(
            position: statement.int64(0), streamID: statement.string(1), version: statement.int64(2),
            id: id, type: statement.string(4), data: statement.data(5), metadata: statement.data(6),
            recordedAt: recordedAt, hash: statement.string(8))
    }

    /// Parses recording times, reusing the last one: the events of one append share their
    /// time, so consecutive rows often hold the same 27 bytes. The last text is kept inline
    /// (no allocation per row when times differ).
    private struct RecordingTimes {
        private var last: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        private var lastCount = -1
        private var lastDate = Date(timeIntervalSince1970: 0)

        mutating func date(_ text: UnsafeBufferPointer<UInt8>) -> Date? {
            let fits = text.count <= MemoryLayout.size(ofValue: last)
            if fits, text.count == lastCount, withUnsafeBytes(of: &last, { memcmp($0.baseAddress!, text.baseAddress!, text.count) }) == 0 {
                return lastDate
            }
            guard let micros = Timestamp.parseMicroseconds(utf8: text) else { return nil }
            lastDate = Timestamp.date(microseconds: micros)
            if fits, let base = text.baseAddress {
                withUnsafeMutableBytes(of: &last) { $0.baseAddress!.copyMemory(from: base, byteCount: text.count) }
                lastCount = text.count
            } else {
                lastCount = -1
            }
            return lastDate
        }
    }

    // MARK: - Errors

    /// Runs `body` with the connection, turning SQLite's errors into ``EventStoreError``.
    func withConnection<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        do {
            return try connection.withLock { try body($0) }
        } catch let error as SQLiteError {
            throw Self.storeError(error, path: path)
        }
    }

    /// Runs `body`, which only reads (one statement, or a `DEFERRED` transaction for one
    /// snapshot), on the store's connection when it is free, and otherwise on a reader
    /// connection instead of waiting: in WAL mode a reader sees every transaction committed
    /// before its statement starts, so what an append that returned wrote is read, on any
    /// thread. A reader is opened when first needed (at most ``maximumReaders``; when all are
    /// busy, or one cannot be opened, the read waits for the store's connection, as every read
    /// did before). None for `:memory:`, whose database is the one connection's.
    func withReadConnection<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        do {
            if let result = try connection.withLockIfAvailable({ try body($0) }) { return result }
            if path != ":memory:", let reader = takeReader() {
                defer { readers.withLock { $0.idle.append(reader) } }
                return try body(reader)
            }
            return try connection.withLock { try body($0) }
        } catch let error as SQLiteError {
            throw Self.storeError(error, path: path)
        }
    }

    /// An idle reader, or a new one while fewer than ``maximumReaders`` are open; nil otherwise.
    private func takeReader() -> SQLiteConnection? {
        let (idle, mayOpen) = readers.withLock { pool -> (SQLiteConnection?, Bool) in
            if let idle = pool.idle.popLast() { return (idle, false) }
            guard pool.opened < Self.maximumReaders else { return (nil, false) }
            pool.opened += 1   // counted before it is opened, so that no more than the most are
            return (nil, true)
        }
        if let idle { return idle }
        guard mayOpen else { return nil }
        do {
            let reader = try SQLiteConnection(path: path, create: false)
            sqlite3_busy_timeout(reader.handle, readerSettings.busyTimeoutMilliseconds)
            try Self.applyPageCache(readerSettings.pageCache, reader)
            try reader.execute("PRAGMA query_only = 1")
            return reader
        } catch {
            readers.withLock { $0.opened -= 1 }
            return nil
        }
    }

    /// How many reader connections are open (for the tests).
    var openReaders: Int { readers.withLock { $0.opened } }

    /// The ``EventStoreError`` a caller can act on for an SQLite failure.
    static func storeError(_ error: SQLiteError, path: String) -> EventStoreError {
        if error.meansPermissionDenied {
            if error.code.primary == .readOnly {
                return .permissionDenied("'\(path)' is read-only for this user (write access to the file and its folder is needed): \(error.message)")
            }
            return .permissionDenied("this user may not read or write '\(path)' (read and write access to the file and its folder is needed): \(error.message)")
        }
        switch error.code.primary {
        case .busy, .locked:
            return .unavailable("'\(path)' is locked by another process (waited for its write lock and gave up)")
        case .cantOpen, .permission:
            return .unavailable("cannot open '\(path)': \(error.message)")
        case .readOnly:
            return .unavailable("'\(path)' is read-only: \(error.message)")
        case .full:
            return .unavailable("the disk holding '\(path)' is full; nothing of the failed write was kept")
        case .ioError:
            return .unavailable("I/O error on '\(path)': \(error.message)")
        case .notADatabase:
            return .corrupt("'\(path)' is not an SQLite database")
        case .corrupt:
            return .corrupt("'\(path)' is damaged: \(error.message)")
        default:
            // The message and code, never the statement (evtool's, not the user's).
            return .unavailable("SQLite failed on '\(path)': \(error.message) (SQLite error \(error.code.rawValue))")
        }
    }
}
