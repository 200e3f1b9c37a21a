import EventLog
import Foundation
import Synchronization

/// An event store in a PostgreSQL database, safe for many threads and many processes
/// (app servers) appending at once.
///
/// Events live in `SCHEMA.events`; `data` and `metadata` are `json` columns, which keep the
/// exact appended bytes and can be queried with `->` and `->>` in `psql`. The store installs
/// and upgrades its schema itself when it opens. Global order is gap-safe: a reader that
/// follows the log by position never skips an event that commits late (see
/// docs/explanation/ordering.md).
public final class PostgresEventStore: EventStore, MultiStreamAppending {
    /// The newest schema version this release can use.
    public static let supportedSchemaVersion = PostgresSchema.currentVersion

    /// The schema holding the store's tables.
    public var schemaName: String { schema.name }

    let schema: PostgresSchema
    let pool: ConnectionPool
    /// How long ``readAll(after:limit:)`` waits for an older transaction that still holds
    /// back committed events before it returns what is safe so far.
    let holdBackWait: Duration
    /// Sends the NOTIFY that wakes ``PostgresFollower``s after appends; nil when appends
    /// do not notify.
    let notifier: PostgresNotifier?
    /// The chain hashes of the recent batched appends this handle committed, for the kept
    /// tree's follower (``PostgresAppendedBlocks``).
    let appendedChain = Mutex(PostgresAppendedBlocks())
    /// Whether the kept tree has been extended through this handle: its one-event appends then
    /// return their chain hash too (the batched function, not `append_one`), so that the
    /// follower finds no gap between this handle's runs.
    let extendsTree = Atomic<Bool>(false)
    /// What the kept tree's follower on this handle last wrote (``PostgresTreeFrontier``).
    let treeFrontier = Mutex<PostgresTreeFrontier?>(nil)

    /// Opens (and if needed installs or upgrades) a store.
    ///
    /// - Parameters:
    ///   - url: a `postgres://` or `postgresql://` URL, or a libpq `key=value` string; an empty
    ///     string uses libpq's environment variables (PGHOST, PGPORT, PGUSER, PGPASSWORD,
    ///     PGDATABASE, PGSSLMODE …). Every libpq option, TLS included, works.
    ///   - schema: the PostgreSQL schema for the store's tables (default `evtool`); several
    ///     stores can share one database under different names.
    ///   - maximumIdleConnections: how many connections the store keeps open between calls.
    ///   - notifiesFollowers: whether appends wake followers with a NOTIFY, sent from a
    ///     connection of the store's own at most every 2 ms (not one statement per append).
    ///   - createIfMissing: whether to install the store when the schema holds none (true by
    ///     default); readers pass false, so that a mistyped schema name is an error and no
    ///     empty store is created.
    ///   - partitionSize: for a store made now, the partitioned layout with partitions of this
    ///     many positions instead of the single table (``PostgresLayout``); nil leaves the
    ///     choice to the session's `evtool.layout` and `evtool.partition_size` settings (the
    ///     single table when neither is set). A store that exists keeps its layout; naming a
    ///     size for one with the single table is an error.
    /// - Throws: ``EventStoreError/unavailable(_:)`` when the server cannot be reached or
    ///   refuses the login, or (with `createIfMissing` off) the schema holds no store,
    ///   ``EventStoreError/newerSchema(found:supported:)`` when a newer evtool installed the
    ///   schema, ``EventStoreError/invalidInput(_:)`` for a bad schema name or a system schema
    ///   (`information_schema`, `pg_catalog`, `pg_toast`, `pg_temp…`, any `pg_…`).
    public init(url: String, schema: String = "evtool", maximumIdleConnections: Int = 8, notifiesFollowers: Bool = true,
                createIfMissing: Bool = true, partitionSize: Int64? = nil) throws {
        // PostgresSchema refuses names starting with pg_; information_schema is the other system schema.
        guard schema != "information_schema" else {
            throw EventStoreError.invalidInput("schema 'information_schema' belongs to PostgreSQL itself; choose another schema for the store")
        }
        do {
            self.schema = try PostgresSchema(name: schema)
        } catch {
            throw EventStoreError.invalidInput(String(describing: error))
        }
        self.pool = ConnectionPool(conninfo: url, maximumIdle: max(1, maximumIdleConnections))
        self.holdBackWait = .seconds(2)
        self.notifier = notifiesFollowers ? PostgresNotifier(conninfo: url, channel: self.schema.channel) : nil
        if let partitionSize, partitionSize < 1 {
            throw EventStoreError.invalidInput("a partition size of \(partitionSize) positions: it must be at least 1")
        }
        try installSchema(createIfMissing: createIfMissing, partitionSize: partitionSize)
        if partitionSize != nil, try layout() == .singleTable {
            throw EventStoreError.invalidInput("the store in schema '\(self.schema.name)' exists with the single-table layout: a layout is chosen when a store is made, so it has no partitions to size (make a partitioned store in a new schema and copy this log into it with evtool migrate)")
        }
    }

    deinit { notifier?.stop() }

    /// Drops a store's schema and everything in it (for tests and for deleting a store).
    ///
    /// - Throws: ``EventStoreError/unavailable(_:)`` when the server cannot be reached.
    public static func dropSchema(url: String, schema: String) throws {
        let checked: PostgresSchema
        do { checked = try PostgresSchema(name: schema) } catch { throw EventStoreError.invalidInput(String(describing: error)) }
        do {
            let connection = try PostgresConnection(conninfo: url)
            try connection.execute("DROP SCHEMA IF EXISTS \(checked.quoted) CASCADE")
        } catch let error as PostgresError {
            throw error.storeError(appending: false)
        }
    }

    // MARK: - Schema

    /// Installs or upgrades the schema under an advisory lock, so that two processes
    /// opening the same store at once are safe. A store that is already current is opened
    /// without taking that lock (any role can take an advisory lock: one held by another
    /// role must not stop app servers from opening the store), and an upgrade waits for it
    /// at most `lock_timeout` (10 s), then fails with the server's message. With
    /// `createIfMissing` off, a schema that holds no store is an error, and nothing is created.
    private func installSchema(createIfMissing: Bool, partitionSize: Int64?) throws {
        do {
            let lease = try pool.take()
            let connection = lease.connection
            let current = try installedVersion(connection)
            if current == PostgresSchema.currentVersion || !createIfMissing {
                defer { pool.giveBack(lease) }
                if current == 0 { throw try noStore(connection) }
                if current < PostgresSchema.currentVersion {
                    // A read changes nothing, an upgrade included: the operator upgrades on purpose.
                    throw EventStoreError.unavailable("the store in schema '\(schema.name)' has schema version \(current) and this release uses \(PostgresSchema.currentVersion); a read changes nothing, so upgrade it first with 'evtool init' (or any recording command)")
                }
                if current > PostgresSchema.currentVersion {
                    throw EventStoreError.newerSchema(found: current, supported: PostgresSchema.currentVersion)
                }
                return
            }
            try connection.execute("BEGIN")
            do {
                try connection.execute("SET LOCAL lock_timeout = '10s'")
                try connection.execute("SELECT pg_advisory_xact_lock(\(PostgresSchema.installLockClass), \(schema.lockKey))")
                let found = try installedVersion(connection)
                if found == 0, !createIfMissing { throw try noStore(connection) }
                if found == 0 { try refuseForeignTables(connection) }
                if found == 0, let partitionSize {
                    // Read by schema 10 (the size) and 18 (the layout) as they install.
                    try connection.execute("SET LOCAL evtool.layout = 'partitioned'")
                    try connection.execute("SET LOCAL evtool.partition_size = '\(partitionSize)'")
                }
                if found > PostgresSchema.currentVersion {
                    throw EventStoreError.newerSchema(found: found, supported: PostgresSchema.currentVersion)
                }
                for version in found..<PostgresSchema.currentVersion {
                    try connection.execute(schema.migrations[version])
                    try connection.execute("UPDATE \(schema.quoted).schema_version SET version = \(version + 1) WHERE id = 1")
                }
                try connection.execute("COMMIT")
            } catch {
                _ = try? connection.execute("ROLLBACK")
                throw error
            }
            pool.giveBack(lease)
        } catch let error as PostgresError {
            throw error.storeError(appending: false)
        }
    }

    /// Refuses to install a store into a schema that holds no store but tables (or views,
    /// sequences) of something else: evtool's tables would be mixed in with them, or clash
    /// with one of the same name. SQLite refuses a database that is not a store likewise.
    private func refuseForeignTables(_ connection: PostgresConnection) throws {
        let found = try connection.execute("""
            SELECT count(*), min(c.relname) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = '\(schema.name)' AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')
            """)
        guard let count = Int(PostgresResultText.value(found) ?? "0"), count > 0 else { return }
        let first = found.isNull(row: 0, column: 1) ? "" : found.string(row: 0, column: 1)
        throw EventStoreError.invalidInput("schema '\(schema.name)' holds \(count == 1 ? "a table" : "\(count) tables") of something else ('\(first)'\(count > 1 ? ", …" : "")) and no evtool store: a store is made only in a new or empty schema (give another one: ?schema=NAME); nothing was created")
    }

    /// The error for a read of a schema that holds no store (nothing is created).
    private func noStore(_ connection: PostgresConnection) throws -> EventStoreError {
        let database = PostgresResultText.value(try connection.execute("SELECT current_database()")) ?? "the database"
        return EventStoreError.unavailable("no store in schema '\(schema.name)' of database '\(database)' (it holds no evtool store); nothing was created")
    }

    /// The schema version the store's `schema_version` row records; 0 when there is none.
    private func installedVersion(_ connection: PostgresConnection) throws -> Int {
        // A catalog query, not to_regclass: a name lookup would leave a negative cache entry
        // that the re-check under the install lock would then trust.
        let exists = try connection.execute("""
            SELECT EXISTS (SELECT FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                           WHERE n.nspname = '\(schema.name)' AND c.relname = 'schema_version')
            """)
        guard PostgresResultText.value(exists) == "t" else { return 0 }
        let row = try connection.execute("SELECT version FROM \(schema.quoted).schema_version WHERE id = 1")
        return Int(PostgresResultText.value(row) ?? "") ?? 0
    }

    // MARK: - EventStore

    @discardableResult
    public func append(_ events: [ProposedEvent], to stream: String, expectedVersion: ExpectedVersion) throws -> AppendResult {
        try append([StreamAppend(stream: stream, expectedVersion: expectedVersion, events: events)])[0]
    }

    /// Appends to several streams in one transaction: all parts or none. One round trip.
    ///
    /// - Throws: what ``append(_:to:expectedVersion:)`` throws, for the first part that fails.
    @discardableResult
    public func append(_ parts: [StreamAppend]) throws -> [AppendResult] {
        guard !parts.isEmpty else { throw EventStoreError.invalidInput("a multi-stream append needs at least one part") }
        var seen = Set<UUID>()
        for part in parts {
            try AppendValidation.validate(part.events, stream: part.stream, copiesLog: part.copiesLog)
            for event in part.events where !seen.insert(event.id).inserted {
                throw EventStoreError.duplicateEventID(event.id)
            }
        }
        let events = parts.flatMap(\.events)
        let (sql, types, binds) = Self.appendStatement(parts, events: events, schema: schema,
                                                       returningHashes: extendsTree.load(ordering: .relaxed))

        let lease: ConnectionPool.Lease
        do {
            lease = try pool.take()
        } catch let error as PostgresError {
            throw error.storeError(appending: false)
        }
        let connection = lease.connection
        var status: Int32 = 0, failedPart: Int32 = 0, actual: Int64 = 0, versions: [Int64] = [], first: Int64 = 0
        var block: PostgresAppendedChain?
        do {
            // A writer of the same stream that reserved later positions can commit first, or
            // (one event) another append can take a position during this one's reservation;
            // the function then refuses (EV001, nothing written) and the call is repeated in
            // a new transaction with new positions (docs/explanation/ordering.md).
            for attempt in 1...Self.appendAttempts {
                let result: PostgresResult
                do {
                    result = try connection.query(sql, types: types, binds: binds)
                } catch let error as PostgresError where error.sqlState == .appendRetry && attempt < Self.appendAttempts {
                    continue
                }
                guard result.rowCount == 1 else { throw EventStoreError.corrupt("the append function returned \(result.rowCount) rows") }
                status = try result.int32(row: 0, column: 0)
                failedPart = result.isNull(row: 0, column: 1) ? 0 : try result.int32(row: 0, column: 1)
                actual = result.isNull(row: 0, column: 2) ? 0 : try result.int64(row: 0, column: 2)
                versions = result.isNull(row: 0, column: 3) ? [] : try result.int64Array(row: 0, column: 3)
                first = try result.int64(row: 0, column: 4)
                if status == 0 { block = PostgresAppendedChain.returned(by: result, column: 5, first: first, count: events.count) }
                break
            }
        } catch let error as PostgresError {
            if error.kind == .connectionLost {
                throw EventStoreError.outcomeUnknown("the connection to \(connection.server) was lost during the append: \(error.message)")
            }
            defer { pool.giveBack(lease) }
            do {
                throw try mapAppendFailure(error, parts: parts, connection: connection)
            } catch let lookup as PostgresError {
                throw lookup.storeError(appending: false)   // the follow-up query failed
            }
        } catch {
            pool.giveBack(lease)
            throw error
        }
        if status != 0 {
            pool.giveBack(lease)
            let part = parts[Int(max(1, failedPart)) - 1]
            throw EventStoreError.wrongExpectedVersion(stream: part.stream, expected: part.expectedVersion, actual: actual)
        }
        guard versions.count == parts.count else {
            pool.giveBack(lease)
            throw EventStoreError.corrupt("the append function returned \(versions.count) versions for \(parts.count) parts")
        }
        var results: [AppendResult] = []
        var next = first
        for (part, version) in zip(parts, versions) {
            let count = Int64(part.events.count)
            results.append(AppendResult(streamVersion: version, positions: next...(next + count - 1)))
            next += count
        }
        pool.giveBack(lease)
        // The block of this append, for the tree's follower; a one-event append returns no
        // hash, and the follower takes its event from the rows (merkle_extend).
        if let block { appendedChain.withLock { $0.keep(block) } }
        // Followers are woken by a NOTIFY from another connection, at most one per few
        // milliseconds however many appends commit meanwhile (PostgresNotifier).
        notifier?.announce(next - 1)
        return results
    }

    /// The statement for one append: `append_one` with plain values for one event to one
    /// stream (the path every user action takes) unless `returningHashes`, `append_copied` for a
    /// batch holding events copied erased, `append_returning_hashes` with arrays otherwise.
    static func appendStatement(_ parts: [StreamAppend], events: [ProposedEvent], schema: PostgresSchema,
                                returningHashes: Bool = false) -> (String, [UInt32], PostgresBinds) {
        if events.contains(where: { $0.erasure != nil }) {
            // A copy of a log with erased events (migrate): chained from their kept digests.
            var binds = appendBinds(parts, events: events)
            binds.append(textArray: events.map { $0.erasure?.dataSHA256.hexString ?? "" })
            binds.append(textArray: events.map { $0.erasure?.metadataSHA256.hexString ?? "" })
            binds.append(nullableUUIDArray: events.map { $0.erasure?.erasureEventID })
            return (schema.appendCopiedSQL, PostgresSchema.appendCopiedTypes, binds)
        }
        if !returningHashes, parts.count == 1, events.count == 1, let part = parts.first, let event = events.first {
            var binds = PostgresBinds(capacity: event.data.count + event.metadata.count + event.type.utf8.count + part.stream.utf8.count + 80)
            binds.append(text: part.stream)
            binds.append(int4: expectationKind(part.expectedVersion))
            binds.append(int8: expectedNumber(part.expectedVersion))
            binds.append(uuid: event.id)
            binds.append(text: event.type)
            binds.append(json: event.data)
            binds.append(json: event.metadata)
            binds.append(timestamptz: event.recordedAt.map(Timestamp.microseconds))
            return (schema.appendOneSQL, PostgresSchema.appendOneTypes, binds)
        }
        return (schema.appendSQL, PostgresSchema.appendTypes, appendBinds(parts, events: events))
    }

    /// The parameters of the batch append function (``PostgresSchema/appendSQL``) for `parts`,
    /// whose events, in order, are `events`.
    static func appendBinds(_ parts: [StreamAppend], events: [ProposedEvent]) -> PostgresBinds {
        var binds = PostgresBinds(capacity: events.reduce(256) { $0 + $1.data.count + $1.metadata.count + $1.type.utf8.count + 40 })
        binds.append(textArray: parts.map(\.stream))
        binds.append(int4Array: parts.map { expectationKind($0.expectedVersion) })
        binds.append(int8Array: parts.map { expectedNumber($0.expectedVersion) })
        binds.append(int4Array: parts.map { Int32($0.events.count) })
        binds.append(uuidArray: events.map(\.id))
        binds.append(textArray: events.map(\.type))
        binds.append(jsonArray: events.map(\.data))
        binds.append(jsonArray: events.map(\.metadata))
        binds.append(timestamptzArray: events.map { $0.recordedAt.map(Timestamp.microseconds) })
        return binds
    }

    /// The append functions' expectation codes: 0 any, 1 no stream, 2 stream exists, 3 exactly.
    static func expectationKind(_ expected: ExpectedVersion) -> Int32 {
        switch expected {
        case .any: return 0
        case .noStream: return 1
        case .streamExists: return 2
        case .exactly: return 3
        }
    }

    static func expectedNumber(_ expected: ExpectedVersion) -> Int64 {
        if case .exactly(let version) = expected { return version }
        return 0
    }


    /// How many times one append is tried when the function answers EV001: writers of its
    /// stream keep committing later positions first, or (a one-event append, schema 14)
    /// another append took a position during its reservation. Each try is one round trip;
    /// more than two is rare.
    static let appendAttempts = 100


    /// Turns a refused append into the store error a caller can act on.
    private func mapAppendFailure(_ error: PostgresError, parts: [StreamAppend], connection: PostgresConnection) throws -> EventStoreError {
        let events = parts.flatMap(\.events)
        if error.sqlState == .insufficientPrivilege, events.contains(where: { $0.erasure != nil }) {
            return .permissionDenied("copying events that were erased, with the digests their source kept, records erasures, which only the schema's owner may do: migrate as the owner role (\(error.message)); nothing was written")
        }
        if error.sqlState == .lockNotAvailable {
            return .unavailable("the append waited too long for a lock and was cancelled, nothing was written (\(error.message)); is a session of the store's owner holding one?")
        }
        guard error.sqlState == .uniqueViolation else { return error.storeError(appending: true) }
        if error.constraint == "events_event_id_key" {
            var binds = PostgresBinds()
            binds.append(uuidArray: events.map(\.id))
            let found = try connection.query(schema.existingIDsSQL, types: [PostgresType.uuidArray], binds: binds)
            let existing = Set((0..<found.rowCount).compactMap { try? found.uuid(row: $0, column: 0) })
            let duplicate = events.first(where: { existing.contains($0.id) })?.id ?? events[0].id
            return .duplicateEventID(duplicate)
        }
        if error.constraint == "events_stream_version_key" {
            // Not expected (writers of a stream take turns), but never swallowed.
            let part = parts[0]
            let actual = try version(of: part.stream, on: connection)
            return .wrongExpectedVersion(stream: part.stream, expected: part.expectedVersion, actual: actual)
        }
        return error.storeError(appending: true)
    }

    public func read(stream: String, from version: Int64, direction: ReadDirection, limit: Int) throws -> [RecordedEvent] {
        try AppendValidation.validateStreamID(stream)
        guard limit > 0 else { return [] }
        var binds = PostgresBinds()
        binds.append(text: stream)
        binds.append(int8: version)
        binds.append(int8: Int64(limit))
        let sql = direction == .forwards ? schema.readForwardsSQL : schema.readBackwardsSQL
        return try withRetry { connection in
            let result = try connection.query(sql, types: [PostgresType.text, PostgresType.int8, PostgresType.int8], binds: binds)
            return try (0..<result.rowCount).map { try Self.event(result, row: $0) }
        }
    }

    public func readAll(after position: Int64, limit: Int) throws -> [RecordedEvent] {
        guard limit > 0 else { return [] }
        let clock = ContinuousClock()
        let deadline = clock.now + holdBackWait
        var pause = Duration.microseconds(50)
        while true {
            let (events, heldBack) = try readSafe(after: position, limit: limit)
            if !heldBack || clock.now >= deadline { return events }
            // Committed events are held back because an older transaction is still running;
            // it usually finishes within milliseconds.
            Thread.sleep(forTimeInterval: pause.timeInterval)
            pause = min(pause * 2, .milliseconds(5))
        }
    }

    /// One read of the log after `position`: the events that are safe to hand out, and
    /// whether committed events after them were held back.
    /// Cost: O(log n + limit).
    func readSafe(after position: Int64, limit: Int) throws -> (events: [RecordedEvent], heldBack: Bool) {
        var binds = PostgresBinds()
        binds.append(int8: position)
        binds.append(int8: Int64(limit))
        return try withRetry { connection in
            try Self.readSafe(connection: connection, sql: schema.readAllSQL, binds: binds)
        }
    }

    static func readSafe(connection: PostgresConnection, sql: String, binds: PostgresBinds) throws -> (events: [RecordedEvent], heldBack: Bool) {
        let result = try connection.query(sql, types: [PostgresType.int8, PostgresType.int8], binds: binds)
        var events: [RecordedEvent] = []
        events.reserveCapacity(result.rowCount)
        for row in 0..<result.rowCount {
            // Positions and transaction ids rise together, so the safe rows are a prefix.
            guard try result.bool(row: row, column: 9) else { return (events, true) }
            events.append(try event(result, row: row))
        }
        return (events, false)
    }

    public func events(withIDs ids: [UUID]) throws -> [RecordedEvent] {
        guard !ids.isEmpty else { return [] }
        var binds = PostgresBinds()
        binds.append(uuidArray: ids)
        return try withRetry { connection in
            let result = try connection.query(schema.eventsWithIDsSQL, types: [PostgresType.uuidArray], binds: binds)
            return try (0..<result.rowCount).map { try Self.event(result, row: $0) }
        }
    }

    public func headPosition() throws -> Int64 {
        try withRetry { connection in
            let result = try connection.query(schema.headSQL, types: [], binds: PostgresBinds())
            return try result.int64(row: 0, column: 0)
        }
    }

    public func version(of stream: String) throws -> Int64 {
        try AppendValidation.validateStreamID(stream)
        return try withRetry { try version(of: stream, on: $0) }
    }

    func version(of stream: String, on connection: PostgresConnection) throws -> Int64 {
        var binds = PostgresBinds()
        binds.append(text: stream)
        let result = try connection.query(schema.versionSQL, types: [PostgresType.text], binds: binds)
        return try result.int64(row: 0, column: 0)
    }

    // MARK: - Helpers

    /// Runs a read on a pooled connection; when the connection turns out to be broken
    /// (the server restarted), retries once on a new one. Reads are safe to repeat.
    func withRetry<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        do {
            do {
                return try pool.withConnection(body)
            } catch let error as PostgresError where error.kind == .connectionLost {
                pool.drain()
                return try pool.withConnection(body)
            }
        } catch let error as PostgresError {
            throw error.storeError(appending: false)
        }
    }

    /// Decodes one row of the columns `position … recorded_at, hash`.
    static func event(_ result: PostgresResult, row: Int) throws -> RecordedEvent {
        RecordedEvent(
            position: try result.int64(row: row, column: 0),
            streamID: result.string(row: row, column: 1),
            version: try result.int64(row: row, column: 2),
            id: try result.uuid(row: row, column: 3),
            type: result.string(row: row, column: 4),
            data: result.data(row: row, column: 5),
            metadata: result.data(row: row, column: 6),
            recordedAt: Timestamp.date(microseconds: try result.unixMicroseconds(row: row, column: 7)),
            hash: result.string(row: row, column: 8))
    }
}

extension PostgresError {
    /// The store error for this failure: connection problems are `unavailable` (or, for an
    /// append whose statement was sent, `outcomeUnknown`), anything else names the server's
    /// message and code.
    func storeError(appending: Bool) -> EventStoreError {
        switch kind {
        case .connectionFailed:
            return .unavailable("cannot connect to \(server ?? "the server"): \(message)")
        case .connectionLost:
            if appending { return .outcomeUnknown("the connection to \(server ?? "the server") was lost: \(message)") }
            return .unavailable("lost the connection to \(server ?? "the server"): \(message)")
        case .statementFailed:
            if sqlState == .insufficientPrivilege {
                return .permissionDenied("the role may not do this: \(message) (SQLSTATE 42501)")
            }
            if sqlState?.rawValue == "25006" {
                // A hot standby (or a server with default_transaction_read_only on).
                return .unavailable("\(server ?? "the server") is read-only (a hot standby, or default_transaction_read_only is on): it takes no appends and no view updates; write to the primary (a multi-host URL with target_session_attrs=read-write finds it) (SQLSTATE 25006)")
            }
            if sqlState?.rawValue == "XX001" {
                // data_corrupted: raised by the store's own functions (a chain hash the kept
                // tree cannot cover, a kept tile missing) and by the server on a damaged page.
                return .corrupt("\(message) (SQLSTATE XX001)")
            }
            if sqlState?.rawValue == "42P01" || sqlState?.rawValue == "42883" {
                return .corrupt("\(message) (SQLSTATE \(sqlState?.rawValue ?? "")); was the schema dropped?")
            }
            return .unavailable(summary)
        case .unexpectedResult:
            return .corrupt(message)
        }
    }
}

/// Reading single text values from results of `PQexec` (text format), for schema work.
enum PostgresResultText {
    static func value(_ result: PostgresResult) -> String? {
        guard result.rowCount > 0, !result.isNull(row: 0, column: 0) else { return nil }
        return result.string(row: 0, column: 0)
    }
}
