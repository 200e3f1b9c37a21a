import Dispatch
import Foundation

/// Re-checks a log against its hash chains and seals, streaming, in bounded memory: one
/// batch of events plus each stream's head (version and hash), so memory grows with the
/// number of streams, not of events.
///
/// It proves that every event up to the head is the one appended at its place in its
/// stream (content, version, id, type, time) and that the log up to each seal has exactly
/// the streams, heads and event count the seal recorded. See docs/explanation/audit.md for what it cannot.
public struct LogVerifier {
    private let store: any EventStore
    private let audit: (any AuditableEventStore)?
    private let hasher = EventChain.Hasher()
    var heads = StreamHeads()
    /// Per erased stream (by the id's bytes, as the stores tell streams apart), the `UserErased`
    /// events that cover it: (event id, through position, its own position).
    private var coverage: [StreamKey: [(id: UUID, through: Int64, position: Int64)]] = [:]
    /// The ids of the `UserErased` events known so far: the store's, read first, and those the
    /// walk met (in an archive file).
    private var knownErasures: Set<UUID> = []
    /// Tombstones that chain by their kept digests and whose erasure row names a `UserErased`
    /// event not known yet, by that event's id: the walk accepts them when it meets the event
    /// (an erasure whose record was archived after them) and fails on them when it never does
    /// (``VerificationFailure/awaitedErasure``: a copy cut short before the record, or a
    /// tombstone written by hand).
    private var awaited: [UUID: [(stream: String, version: Int64, position: Int64)]] = [:]
    var events: Int64 = 0
    private var erased: Int64 = 0
    /// Where the log starts after an archive (``carryOver(_:heads:)``): the boundary and the
    /// heads carried over; nil for a log that starts at position 1.
    var carried: (boundary: ArchiveBoundary, heads: StreamHeads)?
    /// The archived events to verify before the store's (``verifyArchivesFirst(_:)``).
    var archivedPrefix: (next: () throws -> [RecordedEvent], end: ArchiveBoundary?, stillInTable: Bool)?

    /// Prepares to verify `store`; reads the (few) `UserErased` events first.
    public init(store: any EventStore) throws {
        self.store = store
        self.audit = store as? any AuditableEventStore
        for event in try store.read(stream: Erasure.stream) where event.type == Erasure.eventType {
            learnErasure(event)
        }
    }

    /// Records the coverage of a `UserErased` event (once per id).
    private mutating func learnErasure(_ event: RecordedEvent) {
        guard event.type == Erasure.eventType, event.streamID == Erasure.stream, !knownErasures.contains(event.id),
              let covered = Erasure.coverage(of: event.data) else { return }
        knownErasures.insert(event.id)
        coverage[StreamKey(covered.stream), default: []].append((event.id, covered.throughPosition, event.position))
    }

    /// After the walk met a `UserErased` event: the tombstones before it that waited for it are
    /// accepted when it covers their stream (they precede it), and fail otherwise.
    private mutating func settleAwaited(by event: RecordedEvent) throws {
        guard let waiting = awaited.removeValue(forKey: event.id) else { return }
        let stream = Erasure.coverage(of: event.data).map { StreamKey($0.stream) }
        for tombstone in waiting where stream != StreamKey(tombstone.stream) {
            throw VerificationFailure(.modified, position: tombstone.position, stream: tombstone.stream,
                                      "version \(tombstone.version) was replaced with a tombstone that no UserErased event in the log covers")
        }
    }

    /// Fails on the first tombstone still waiting for its `UserErased` event once the walk ended.
    private func checkNothingAwaited() throws {
        let first = awaited.flatMap { erasure in erasure.value.map { (erasure.key, $0) } }.min { $0.1.position < $1.1.position }
        guard let (erasure, tombstone) = first else { return }
        let count = awaited.values.reduce(0) { $0 + $1.count }
        var failure = VerificationFailure(.modified, position: tombstone.position, stream: tombstone.stream,
                                          "version \(tombstone.version) was replaced with a tombstone that no UserErased event in the log covers")
        failure.awaitedErasure = VerificationFailure.AwaitedErasure(erasureEventID: erasure, tombstones: count)
        throw failure
    }

    /// Verifies the whole log in position order, and every seal.
    /// - Parameter progress: called after each batch with the last position verified.
    /// - Returns: the counts; throws the first ``VerificationFailure``.
    /// Cost: O(n) reads and three SHA-256 digests per event. A store that hands over its rows'
    /// bytes (``ChainRowReading``) is hashed in place; otherwise the next batch is read while
    /// the current one is hashed.
    public mutating func verifyLog(batchSize: Int = 1_000, progress: (Int64) throws -> Void = { _ in }) throws -> VerificationReport {
        let seals = try audit?.seals() ?? []
        var nextSeal = 0
        var previousSeal: Seal?
        var cursor: Int64 = 0
        // After an archive: the heads carried over, then the archived events of files.
        var linkOnlyBelow: Int64 = 0
        if let carried {
            guard carried.heads.digest().hexString == carried.boundary.headsSHA256 else {
                throw VerificationFailure(.modified, position: carried.boundary.position, stream: nil,
                                          "the streams' heads the store carried over at archive \(carried.boundary.number) (position \(carried.boundary.position)) differ from those the archive recorded: they were changed")
            }
            heads = carried.heads
            events = carried.boundary.events
            cursor = carried.boundary.position - 1
            linkOnlyBelow = cursor
        }
        var archivedEvents = events
        if let prefix = archivedPrefix {
            if let carried { cursor = carried.boundary.position - 1 }
            while true {
                let batch = try prefix.next()
                guard !batch.isEmpty else { break }
                let digests = try erasedDigests(for: batch)
                for event in batch {
                    guard event.position > cursor else {
                        throw VerificationFailure(.reordered, position: event.position, stream: event.streamID,
                                                  "the archived events hold position \(event.position) after position \(cursor): they are out of order or overlap what is archived")
                    }
                    while nextSeal < seals.count, seals[nextSeal].position < event.position {
                        try check(seals[nextSeal], after: previousSeal, lastPosition: cursor, linkOnly: seals[nextSeal].position < linkOnlyBelow)
                        previousSeal = seals[nextSeal]; nextSeal += 1
                    }
                    try check(event, erased: digests[event.position])
                    cursor = event.position
                }
                try progress(cursor)
            }
            if let end = prefix.end { try checkArchiveEnd(end, lastPosition: cursor) }
            if !prefix.stillInTable { archivedEvents = events }
        }
        if let rows = store as? any ChainRowReading {
            // The fast path: another thread copies the next batch's stored bytes into an arena
            // while this one hashes the current batch in place; a row it cannot accept at once
            // (an erased event, or any problem) goes through the ordinary check, which names it.
            var pending = ArenaPrefetch(store: rows, after: cursor, limit: batchSize)
            while true {
                let arena = try pending.wait()
                guard let last = arena.rows.last else { break }
                if arena.rows.count == batchSize { pending = ArenaPrefetch(store: rows, after: last.position, limit: batchSize) }
                for index in arena.rows.indices {
                    let position = arena.rows[index].position
                    try checkOrder(position, after: cursor)
                    while nextSeal < seals.count, seals[nextSeal].position < position {
                        try check(seals[nextSeal], after: previousSeal, lastPosition: cursor, linkOnly: seals[nextSeal].position < linkOnlyBelow)
                        previousSeal = seals[nextSeal]; nextSeal += 1
                    }
                    if !arena.withRow(index, { accept($0) }) {
                        guard let event = try store.readAll(after: cursor, limit: 1).first, event.position == position else {
                            throw VerificationFailure(.modified, position: position, stream: nil, "the event at this position changed while it was verified")
                        }
                        try check(event, erased: try erasedDigests(for: [event])[event.position])
                    }
                    cursor = position
                }
                try progress(cursor)
                if arena.rows.count < batchSize { break }
            }
            while nextSeal < seals.count {
                try check(seals[nextSeal], after: previousSeal, lastPosition: cursor, linkOnly: seals[nextSeal].position < linkOnlyBelow)
                previousSeal = seals[nextSeal]; nextSeal += 1
            }
            try checkCensus(through: cursor, archived: archivedEvents)
            try checkNothingAwaited()
            return logReport(seals: seals.count, head: cursor)
        }
        var pending = Prefetch(store: store, after: cursor, limit: batchSize)
        while true {
            let batch = try pending.wait()
            guard let last = batch.last else { break }
            if batch.count == batchSize { pending = Prefetch(store: store, after: last.position, limit: batchSize) }
            let digests = try erasedDigests(for: batch)
            for event in batch {
                try checkOrder(event.position, after: cursor)
                while nextSeal < seals.count, seals[nextSeal].position < event.position {
                    try check(seals[nextSeal], after: previousSeal, lastPosition: cursor, linkOnly: seals[nextSeal].position < linkOnlyBelow)
                    previousSeal = seals[nextSeal]; nextSeal += 1
                }
                try check(event, erased: digests[event.position])
                cursor = event.position
            }
            try progress(cursor)
            if batch.count < batchSize { break }
        }
        while nextSeal < seals.count {
            try check(seals[nextSeal], after: previousSeal, lastPosition: cursor, linkOnly: seals[nextSeal].position < linkOnlyBelow)
            previousSeal = seals[nextSeal]; nextSeal += 1
        }
        try checkCensus(through: cursor, archived: archivedEvents)
        try checkNothingAwaited()
        return logReport(seals: seals.count, head: cursor)
    }

    /// The report of a whole-log walk: the events below an archive boundary carried over
    /// (``carried``) were counted, not checked, and the report says so.
    private func logReport(seals: Int, head: Int64) -> VerificationReport {
        var report = VerificationReport(events: events, streams: heads.count, seals: seals, erasedEvents: erased, head: head, heads: heads)
        if let carried {
            report.uncheckedArchivedEvents = carried.boundary.events
            report.firstCheckedPosition = carried.boundary.position
        }
        return report
    }

    /// The store must hand its events over in strictly rising positions: a position read again,
    /// or lower than the one before, is a damaged file or table (an SQLite page whose row ids
    /// are out of order reads them so, and the rows' hashes, which do not cover positions,
    /// still chain), never a log evtool wrote.
    private func checkOrder(_ position: Int64, after previous: Int64) throws {
        guard position <= previous else { return }
        let what = position == previous ? "position \(position) is read twice" : "position \(position) is read after position \(previous)"
        throw VerificationFailure(.reordered, position: position, stream: nil,
                                  "\(what): the store does not hand over its events in rising positions (its file or table is damaged, or a position was rewritten)")
    }

    /// Every row of the events table up to the last position verified must be one that was
    /// verified: compares the count of events verified with an independent count of the
    /// table's rows (``AuditableEventStore/eventRowCensus(through:)``), and refuses rows at
    /// positions appends cannot produce (below 1), which the position-ordered read never visits.
    /// Rows appended after `position` while verify ran are not counted (their positions are
    /// higher: the read hands out a gap-safe prefix).
    private func checkCensus(through position: Int64, archived: Int64) throws {
        guard let audit else { return }
        let census = try audit.eventRowCensus(through: position)
        if let lowest = census.lowestPosition, lowest < 1 {
            throw VerificationFailure(.inserted, position: lowest, stream: nil,
                                      "the events table holds a row at position \(lowest); appends only produce positions from 1 up, so it was never part of the log")
        }
        let kept = events - archived
        guard census.rows == kept else {
            throw VerificationFailure(census.rows > kept ? .inserted : .deleted, position: position, stream: nil,
                                      "the events table holds \(census.rows) rows up to position \(position), but \(kept) were verified in position order")
        }
    }

    /// Verifies one stream's chain (not the seals, which cover every stream). After an archive,
    /// from the stream's head carried over: its archived versions are counted in the report's
    /// ``VerificationReport/events`` and named in ``VerificationReport/uncheckedArchivedEvents``.
    public mutating func verifyStream(_ stream: String, batchSize: Int = 1_000) throws -> VerificationReport {
        var next: Int64 = 1
        var last: Int64 = 0
        if let head = carried?.heads[stream] {
            heads[stream] = head
            next = head.version + 1
        }
        while true {
            let batch = try store.read(stream: stream, from: next, direction: .forwards, limit: batchSize)
            guard let final = batch.last else { break }
            let digests = try erasedDigests(for: batch)
            for event in batch {
                try check(event, erased: digests[event.position])
                last = max(last, event.position)
            }
            next = final.version + 1
            if batch.count < batchSize { break }
        }
        try checkNothingAwaited()
        var report = VerificationReport(events: events, streams: heads.count, seals: 0, erasedEvents: erased, head: last, heads: heads)
        // After an archive: the stream's archived versions are counted, not checked (the chain continues from the head carried over).
        if let carried, let head = carried.heads[stream] {
            report.events += head.version
            report.uncheckedArchivedEvents = head.version
            report.firstCheckedPosition = carried.boundary.position
        }
        return report
    }

    // MARK: - Events

    private static let hexDigits = Array("0123456789abcdef".utf8)
    private static let tombstoneBytes = Array(Erasure.tombstone)
    private static let erasureStreamBytes = Array(Erasure.stream.utf8)

    /// Accepts a row whose version is its stream's next and whose stored hash matches; false
    /// for anything else (including an erased event), which the ordinary check then handles.
    private mutating func accept(_ row: ChainRow) -> Bool {
        if row.data.elementsEqual(Self.tombstoneBytes), row.metadata.elementsEqual(Self.tombstoneBytes) { return false }
        // An erasure's record: the ordinary check learns what it covers.
        if row.stream.elementsEqual(Self.erasureStreamBytes) { return false }
        guard row.hashText.count == 64 else { return false }
        let stream = String(decoding: row.stream, as: UTF8.self)
        let head = heads[stream]
        let expected = (head?.version ?? 0) + 1
        guard row.version == expected else { return false }
        let previous = head?.hash ?? EventChain.genesis
        let computed = previous.withUnsafeBytes { previous in
            hasher.hash(previous: previous, stream: row.stream, version: row.version, idText: row.idText, type: row.type,
                        recordedAtText: row.recordedAtText, data: row.data, metadata: row.metadata)
        }
        for index in 0..<32 {
            let byte = computed[index]
            guard row.hashText[index * 2] == Self.hexDigits[Int(byte >> 4)],
                  row.hashText[index * 2 + 1] == Self.hexDigits[Int(byte & 0x0F)] else { return false }
        }
        heads[stream] = StreamHeads.Head(version: expected, hash: computed)
        events += 1
        return true
    }

    private func erasedDigests(for batch: [RecordedEvent]) throws -> [Int64: ErasedDigests] {
        guard let audit, batch.contains(where: Self.isTombstone) else { return [:] }
        let positions = batch.map(\.position)
        return try audit.erasedDigests(in: positions.min()!...positions.max()!)
    }

    private static func isTombstone(_ event: RecordedEvent) -> Bool {
        event.data == Erasure.tombstone && event.metadata == Erasure.tombstone
    }

    /// The kept digests of an erased event, when a `UserErased` event in the log covers it.
    private func coveredDigests(_ event: RecordedEvent, _ digests: ErasedDigests?) -> ErasedDigests? {
        guard let digests, Self.isTombstone(event), digests.eventID == event.id,
              // Through the erasure's position, or before its UserErased event: the same events in
              // the store that erased them, and in a copy (migrate) whose positions differ.
              coverage[StreamKey(event.streamID)]?.contains(where: {
                  $0.id == digests.erasureEventID && (event.position <= $0.through || event.position < $0.position)
              }) == true
        else { return nil }
        return digests
    }

    /// The kept digests of an erased event whose erasure row names a `UserErased` event the
    /// walk has not met yet (nil for any other event): it chains by them, and waits for that event.
    private func awaitingDigests(_ event: RecordedEvent, _ digests: ErasedDigests?) -> ErasedDigests? {
        guard let digests, Self.isTombstone(event), digests.eventID == event.id, !knownErasures.contains(digests.erasureEventID) else { return nil }
        return digests
    }

    private func hash(of event: RecordedEvent, version: Int64, previous: [UInt8], erased: ErasedDigests?) -> [UInt8] {
        let time = Timestamp.format(event.recordedAt)
        if let erased {
            return hasher.hash(previous: previous, stream: event.streamID, version: version, id: event.id, type: event.type,
                               recordedAt: time, dataSHA256: erased.dataSHA256, metadataSHA256: erased.metadataSHA256)
        }
        return hasher.hash(previous: previous, stream: event.streamID, version: version, id: event.id, type: event.type,
                           recordedAt: time, data: event.data, metadata: event.metadata)
    }

    private mutating func check(_ event: RecordedEvent, erased kept: ErasedDigests?) throws {
        let stream = event.streamID
        let head = heads[stream]
        let expected = (head?.version ?? 0) + 1
        let previous = head?.hash ?? EventChain.genesis
        let covered = coveredDigests(event, kept)
        let awaiting = covered == nil ? awaitingDigests(event, kept) : nil
        let erased = covered ?? awaiting
        if event.version == expected {
            let computed = hash(of: event, version: expected, previous: previous, erased: erased)
            guard computed.hexString == event.hash else {
                throw try mismatch(event, previous: previous, erasedButUncovered: kept != nil && covered == nil || Self.isTombstone(event) && covered == nil)
            }
            heads[stream] = StreamHeads.Head(version: expected, hash: computed)
            events += 1
            if erased != nil { self.erased += 1 }
            if let awaiting { awaited[awaiting.erasureEventID, default: []].append((stream, event.version, event.position)) }
            if stream == Erasure.stream {
                learnErasure(event)
                try settleAwaited(by: event)
            }
        } else if event.version > expected {
            throw try gap(event, expected: expected, previous: previous)
        } else {
            throw VerificationFailure(.inserted, position: event.position, stream: stream,
                                      "version \(event.version) appears again after version \(expected - 1): an event was inserted")
        }
    }

    /// An event at the expected version whose hash does not match: modified, or a forged event
    /// inserted before events that still chain past it.
    private func mismatch(_ event: RecordedEvent, previous: [UInt8], erasedButUncovered: Bool) throws -> VerificationFailure {
        let stream = event.streamID
        if erasedButUncovered {
            return VerificationFailure(.modified, position: event.position, stream: stream,
                                       "version \(event.version) was replaced with a tombstone that no UserErased event in the log covers")
        }
        if let next = try store.read(stream: stream, from: event.version + 1, direction: .forwards, limit: 1).first {
            let nextErased = try erasedDigests(for: [next])[next.position]
            if let stored = [UInt8](hexadecimal: event.hash),
               hash(of: next, version: next.version, previous: stored, erased: coveredDigests(next, nextErased) ?? awaitingDigests(next, nextErased)).hexString == next.hash {
                return VerificationFailure(.modified, position: event.position, stream: stream,
                                           "version \(event.version) no longer matches its hash (the stream's next event still chains from it)")
            }
            if hash(of: next, version: event.version, previous: previous, erased: coveredDigests(next, nextErased) ?? awaitingDigests(next, nextErased)).hexString == next.hash {
                return VerificationFailure(.inserted, position: event.position, stream: stream,
                                           "version \(event.version) is not part of the chain: the event at position \(next.position) was appended as version \(event.version) and renumbered")
            }
        }
        return VerificationFailure(.modified, position: event.position, stream: stream,
                                   "version \(event.version) does not match its hash (its content was changed, or it was forged)")
    }

    /// An event whose version is ahead of the stream's: the missing versions were deleted,
    /// moved later in the log, or pushed up by a forged event.
    private func gap(_ event: RecordedEvent, expected: Int64, previous: [UInt8]) throws -> VerificationFailure {
        let stream = event.streamID
        if let missing = try store.read(stream: stream, from: expected, direction: .forwards, limit: 1).first,
           missing.version == expected, missing.position > event.position {
            let missingDigests = try erasedDigests(for: [missing])[missing.position]
            let missingErased = coveredDigests(missing, missingDigests) ?? awaitingDigests(missing, missingDigests)
            if hash(of: missing, version: expected, previous: previous, erased: missingErased).hexString == missing.hash {
                return VerificationFailure(.reordered, position: event.position, stream: stream,
                                           "version \(event.version) comes before version \(expected), which is at position \(missing.position)")
            }
            return VerificationFailure(.inserted, position: missing.position, stream: stream,
                                       "version \(expected) at position \(missing.position) is not part of the chain (a forged event; later versions were renumbered)")
        }
        let what = event.version - expected == 1 ? "version \(expected) is" : "versions \(expected)–\(event.version - 1) are"
        return VerificationFailure(.deleted, position: event.position, stream: stream,
                                   "\(what) missing before version \(event.version)")
    }

    // MARK: - Seals

    private func check(_ seal: Seal, after previous: Seal?, lastPosition: Int64, linkOnly: Bool = false) throws {
        let zeros = String(repeating: "0", count: 64)
        guard seal.number == (previous?.number ?? 0) + 1, seal.previousHash == (previous?.hash ?? zeros),
              seal.recomputedHash == seal.hash else {
            throw VerificationFailure(.modified, position: seal.position, stream: nil,
                                      "seal \(seal.number) was altered (its hash or its link to the seal before it does not match)")
        }
        // A seal inside an archive whose events are not read: its hash and link only (the archive
        // check, and `verify --archive`, recompute the rest).
        if linkOnly { return }
        if events != seal.events || heads.count != Int(seal.streams) {
            let kind: VerificationFailure.Kind = events < seal.events || heads.count < Int(seal.streams) ? .deleted : .inserted
            let truncated = lastPosition < seal.position ? "; the log ends at position \(lastPosition): it was truncated" : ""
            throw VerificationFailure(kind, position: seal.position, stream: nil,
                                      "seal \(seal.number) recorded \(seal.events.counted("event")) in \(seal.streams.counted("stream")) up to position \(seal.position), the log has \(events) in \(heads.count)\(truncated)")
        }
        guard heads.digest().hexString == seal.headsSHA256 else {
            throw VerificationFailure(.modified, position: seal.position, stream: nil,
                                      "the streams' heads up to position \(seal.position) differ from seal \(seal.number) (the last events of a stream were replaced, or events moved across the seal)")
        }
    }
}

/// One batch of rows copied out of the store: every field's bytes in one buffer.
private final class RowArena: @unchecked Sendable {
    // Safe: filled by one thread before `ArenaPrefetch` signals, only read afterwards.
    struct Row {
        var position: Int64
        var version: Int64
        /// Offsets into `bytes`: stream, id, type, time, data, metadata, hash, end.
        var offsets: (Int, Int, Int, Int, Int, Int, Int, Int)
    }

    var bytes: [UInt8] = []
    var rows: [Row] = []

    func add(_ row: ChainRow) {
        var offsets = (0, 0, 0, 0, 0, 0, 0, 0)
        offsets.0 = bytes.count; bytes.append(contentsOf: row.stream)
        offsets.1 = bytes.count; bytes.append(contentsOf: row.idText)
        offsets.2 = bytes.count; bytes.append(contentsOf: row.type)
        offsets.3 = bytes.count; bytes.append(contentsOf: row.recordedAtText)
        offsets.4 = bytes.count; bytes.append(contentsOf: row.data)
        offsets.5 = bytes.count; bytes.append(contentsOf: row.metadata)
        offsets.6 = bytes.count; bytes.append(contentsOf: row.hashText)
        offsets.7 = bytes.count
        rows.append(Row(position: row.position, version: row.version, offsets: offsets))
    }

    /// Calls `body` with a view of row `index` (valid only during the call).
    func withRow<T>(_ index: Int, _ body: (ChainRow) -> T) -> T {
        let row = rows[index]
        let o = row.offsets
        return bytes.withUnsafeBytes { base in
            func slice(_ from: Int, _ to: Int) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: base[from..<to]) }
            return body(ChainRow(position: row.position, version: row.version, stream: slice(o.0, o.1), idText: slice(o.1, o.2),
                                 type: slice(o.2, o.3), recordedAtText: slice(o.3, o.4), data: slice(o.4, o.5),
                                 metadata: slice(o.5, o.6), hashText: slice(o.6, o.7)))
        }
    }
}

/// Copies one batch of rows into an arena on another thread while the caller hashes the one before.
private final class ArenaPrefetch: @unchecked Sendable {
    // Safe: `result` is written once by the reading block before it signals `done`, and only
    // read by `wait()` after `done` was signalled.
    private var result: Result<RowArena, any Error> = .success(RowArena())
    private let done = DispatchSemaphore(value: 0)

    init(store: any ChainRowReading, after position: Int64, limit: Int) {
        DispatchQueue.global().async { [self] in
            result = Result {
                let arena = RowArena()
                arena.bytes.reserveCapacity(limit * 700)
                arena.rows.reserveCapacity(limit)
                _ = try store.forEachChainRow(after: position, limit: limit) { row in
                    arena.add(row)
                    return true
                }
                return arena
            }
            done.signal()
        }
    }

    func wait() throws -> RowArena {
        done.wait()
        return try result.get()
    }
}

/// Reads one batch of the log on another thread while the caller hashes the one before.
private final class Prefetch: @unchecked Sendable {
    // Safe: `result` is written once by the reading block before it signals `done`, and only
    // read by `wait()` after `done` was signalled.
    private var result: Result<[RecordedEvent], any Error> = .success([])
    private let done = DispatchSemaphore(value: 0)

    init(store: any EventStore, after position: Int64, limit: Int) {
        DispatchQueue.global().async { [self] in
            result = Result { try store.readAll(after: position, limit: limit) }
            done.signal()
        }
    }

    func wait() throws -> [RecordedEvent] {
        done.wait()
        return try result.get()
    }
}
