import Commands
import EventLog
import Foundation

/// `import`: reads lines of evtool's export, plain events or CloudEvents (``ImportFormat``)
/// and appends them to a store in atomic batches, with progress and a way to stop.
///
/// evtool's own export is copied as it was (``EventCopier``: same streams, versions, ids,
/// times and hashes, idempotent and resumable); plain lines and other producers' CloudEvents
/// are appended in file order at their streams' next versions (``EventAppender``). The format
/// is the one given, else the first line's; a line of another format is refused with its
/// number and the member that shows it. A refused line stops the import: the batches before
/// it stay, nothing of its own batch is kept.
public struct EventImport {
    /// What an import did.
    public struct Outcome: Sendable, Equatable {
        /// The format the file was read as.
        public var format: ImportFormat?
        /// Events appended.
        public var appended: Int
        /// Events skipped because the store already held them, identical.
        public var skipped: Int
        /// Events of evtool's own types (``DomainEvent/typeNames``) copied from evtool's export
        /// whose data does not decode as that type, so that no view shows them (erased events
        /// not counted). Such an event from elsewhere (a plain line, another producer's
        /// CloudEvent) is refused instead.
        public var undecodable: Int = 0
        /// The first of them: `line N: <why>`.
        public var firstUndecodable: String?

        /// An outcome: `appended` new events and `skipped` already there, from a file read as `format`.
        public init(format: ImportFormat?, appended: Int, skipped: Int) {
            self.format = format
            self.appended = appended
            self.skipped = skipped
        }
    }

    /// Counts the imported events of evtool's own types that do not decode, on a thread of its
    /// own: decoding each event through the domain's Codable types is as much work as the rest
    /// of an import, and what it finds changes nothing that is imported (only the outcome's
    /// count and first line), so it runs beside the parsing and the appends, in line order.
    final class UndecodableEvents: @unchecked Sendable {
        // @unchecked: `pending` is the importing thread's; `count` and `first` are the queue's
        // until ``result()`` waits for it.
        private var count = 0
        private var first: String?
        private var pending: [(event: ProposedEvent, line: Int)] = []
        private let queue = DispatchQueue(label: "evtool.import.decode-check")
        private static let batch = 512

        /// Notes `event` (from line `line`) when it is of evtool's types and does not decode.
        func check(_ event: ProposedEvent, line: Int) {
            guard DomainEvent.typeNames.contains(event.type) else { return }
            pending.append((event, line))
            if pending.count >= Self.batch { hand() }
        }

        /// The events checked so far that do not decode, and the first of them (`line N: <why>`).
        func result() -> (count: Int, first: String?) {
            hand()
            return queue.sync { (count, first) }
        }

        private func hand() {
            guard !pending.isEmpty else { return }
            let events = pending
            pending.removeAll(keepingCapacity: true)
            queue.async { [self] in
                for (event, line) in events where !Erasure.isTombstone(data: event.data, metadata: event.metadata) {
                    do {
                        _ = try DomainEvent.decode(type: event.type, data: event.data)
                    } catch {
                        count += 1
                        if first == nil { first = "line \(line): \(error)" }
                    }
                }
            }
        }
    }

    /// Refuses an event from elsewhere of one of evtool's own types whose data does not read
    /// as that type (``DomainEvent/checkAppended(type:data:)``): appended, it would stop every
    /// command for its user. Copies of evtool's export are counted instead (``Outcome/undecodable``):
    /// they are a log as it was, checked by hash.
    static func checkAppended(_ event: ForeignEvent) throws(LogRecord.LineError) {
        do {
            try DomainEvent.checkAppended(type: event.event.type, data: event.event.data)
        } catch {
            throw LogRecord.LineError("stream '\(event.stream)': \(error)")
        }
    }

    /// The store the events go to.
    public let store: any MultiStreamAppending
    /// The most events one transaction appends.
    public let batchSize: Int
    /// The format given by the caller; nil to detect it from the first line.
    public let format: ImportFormat?

    /// An import into `store`, `batchSize` events per transaction.
    public init(store: any MultiStreamAppending, batchSize: Int = EventCopier.defaultBatchSize, format: ImportFormat? = nil) {
        self.store = store
        self.batchSize = batchSize
        self.format = format
    }

    /// Imports every line of `lines`.
    /// - Parameters:
    ///   - totalBytes: the input's size when known (a file), for progress in bytes; without
    ///     it no progress is reported.
    ///   - progress: told of the bytes read after each committed batch.
    ///   - shouldStop: checked after each committed batch; when true the import stops there.
    /// - Throws: ``OperationError/invalid(_:)`` for a refused line (`line N: …`),
    ///   ``OperationError/store(_:_:)`` when the store failed, ``OperationError/interrupted(_:)``
    ///   when stopped; the byte source's own errors as they are.
    public func run(_ lines: inout LineReader, totalBytes: Int64? = nil, progress: ProgressHandler = { _ in },
                    shouldStop: () -> Bool = { false }) throws -> Outcome {
        guard let totalBytes else { return try importLines(&lines, totalBytes: nil, progress: progress, shouldStop: shouldStop) }
        try progress(.started(label: "import", total: totalBytes, unit: "bytes"))
        let outcome: Outcome
        do {
            outcome = try importLines(&lines, totalBytes: totalBytes, progress: progress, shouldStop: shouldStop)
        } catch {
            try progress(.finished)
            throw error
        }
        try progress(.completed(totalBytes))
        try progress(.finished)
        return outcome
    }

    private func importLines(_ lines: inout LineReader, totalBytes: Int64?, progress: ProgressHandler, shouldStop: () -> Bool) throws -> Outcome {
        var copier = EventCopier(store: store, batchSize: batchSize)
        var appender = EventAppender(store: store, batchSize: batchSize)
        var format = self.format
        /// For a CloudEvents file: whether its events are evtool's own export (`evtoolversion`), and the line that said so.
        var evtoolCloudEvents: (Bool, line: Int)?
        var firstLine = 0
        let undecodable = UndecodableEvents()
        var appended: Int { copier.appended + appender.appended }
        var skipped: Int { copier.skipped + appender.skipped }
        var hasPending: Bool { copier.hasPending || appender.hasPending }
        func flush(through line: Int) throws(EventCopier.CopyError) {
            try copier.flush(through: line)
            try appender.flush(through: line)
        }
        /// Drops the lines of the batch in progress; the first one's number, if any.
        func discard() -> Int? {
            [copier.discardPending(), appender.discardPending()].compactMap { $0 }.min()
        }
        do {
            while true {
                let line: Data?
                do {
                    line = try lines.next()
                } catch {
                    _ = discard()
                    throw error
                }
                guard let line else { break }
                if line.isEmpty || line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
                let number = lines.lineNumber
                let committedBefore = appended + skipped
                do {
                    // Named, not left to the JSON reader's "unexpected byte at offset 0".
                    if number == 1, line.starts(with: [0xEF, 0xBB, 0xBF]) {
                        throw LogRecord.LineError("the file begins with a UTF-8 byte-order mark (bytes EF BB BF), which JSON Lines do not have: save it without one")
                    }
                    let members = try LogRecord.members(of: line)
                    if format == nil {
                        guard let detected = ImportFormat.detect(members) else {
                            throw LogRecord.LineError("not an evtool export line, a plain event line or a CloudEvent: it has no 'version', 'stream' or 'specversion'")
                        }
                        format = detected
                    }
                    if firstLine == 0 { firstLine = number }
                    switch format ?? .jsonl {
                    case .jsonl:
                        if members["specversion"] != nil {
                            throw LogRecord.LineError("'specversion' makes this line a CloudEvent, in a file of evtool export lines (as line \(firstLine) is); one format per file")
                        }
                        let record = try LogRecord.parse(line, members: members)
                        undecodable.check(record.event, line: number)
                        try copier.add(record, source: number)
                    case .plain:
                        if let marker = ["specversion", "version", "position"].first(where: { members[$0] != nil }) {
                            let other = marker == "specversion" ? ImportFormat.cloudevents : .jsonl
                            throw LogRecord.LineError("'\(marker)' makes this line \(other.lineName), in a file of plain event lines (as line \(firstLine) is); one format per file")
                        }
                        let event = try ForeignEvent.plain(line, members: members)
                        try Self.checkAppended(event)
                        try appender.add(event, source: number)
                    case .cloudevents:
                        guard members["specversion"] != nil else {
                            throw LogRecord.LineError("'specversion' is missing: this line is not a CloudEvent, in a file of CloudEvents (as line \(firstLine) is); one format per file")
                        }
                        let isEvtool = members["evtoolversion"] != nil
                        if let (expected, since) = evtoolCloudEvents, expected != isEvtool {
                            throw LogRecord.LineError(expected
                                ? "'evtoolversion' is missing: line \(since) is evtool's own CloudEvents export, this line another producer's; one kind per file"
                                : "'evtoolversion' makes this line evtool's own CloudEvents export, line \(since) another producer's; one kind per file")
                        }
                        if evtoolCloudEvents == nil { evtoolCloudEvents = (isEvtool, number) }
                        if isEvtool {
                            let record = try LogRecord.parse(line, members: members)
                            undecodable.check(record.event, line: number)
                            try copier.add(record, source: number)
                        } else {
                            let event = try ForeignEvent.cloudEvent(line, members: members)
                            try Self.checkAppended(event)
                            try appender.add(event, source: number)
                        }
                    }
                } catch let error as LogRecord.LineError {
                    // A batch is imported whole or not at all: its lines before this one go too.
                    let from = discard().map { "line \($0)" } ?? "this line"
                    throw OperationError.invalid("line \(number): \(error.reason) (nothing from \(from) on was imported; \(appended.counted("event")) \(appended == 1 ? "was" : "were") before it)")
                }
                // Stop right after a batch was committed (or an event found already there).
                if appended + skipped != committedBefore, !hasPending {
                    if let totalBytes { try progress(.advanced(min(lines.bytesRead, totalBytes))) }
                    if shouldStop() {
                        throw OperationError.interrupted("interrupted after importing \(appended.counted("event")) (through line \(number)); run the same import again to resume")
                    }
                }
            }
            try flush(through: lines.lineNumber)
        } catch let error as EventCopier.CopyError {
            let message = "line \(error.source): \(error.reason)"
            if let storeError = error.underlying as? EventStoreError { throw OperationError.store(message, storeError) }
            throw OperationError.invalid(message)
        }
        var outcome = Outcome(format: format, appended: appended, skipped: skipped)
        (outcome.undecodable, outcome.firstUndecodable) = undecodable.result()
        return outcome
    }
}
