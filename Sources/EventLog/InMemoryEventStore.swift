import Foundation
import Synchronization

/// An event store held in memory: the reference behaviour for every other store, and a
/// fast store for tests. Safe to share between threads.
public final class InMemoryEventStore: MultiStreamAppending {
    private struct State {
        var log: [RecordedEvent] = []
        var streams: [StreamKey: [Int]] = [:]   // stream id (its bytes, as every store) → indexes into `log`
        var ids: [UUID: Int] = [:]   // event id → index into `log`
    }

    private let state = Mutex(State())

    /// Makes an empty store.
    public init() {}

    @discardableResult
    public func append(_ events: [ProposedEvent], to stream: String, expectedVersion: ExpectedVersion) throws -> AppendResult {
        try append([StreamAppend(stream: stream, expectedVersion: expectedVersion, events: events)])[0]
    }

    @discardableResult
    public func append(_ parts: [StreamAppend]) throws -> [AppendResult] {
        for part in parts { try AppendValidation.validate(part.events, stream: part.stream, copiesLog: part.copiesLog) }
        let now = Timestamp.now()
        let hasher = EventChain.Hasher()
        return try state.withLock { state in
            // Check every part against a scratch copy first: all or nothing.
            var scratch = state
            var results: [AppendResult] = []
            for part in parts {
                let actual = Int64(scratch.streams[StreamKey(part.stream)]?.count ?? 0)
                guard part.expectedVersion.isSatisfied(by: actual) else {
                    throw EventStoreError.wrongExpectedVersion(stream: part.stream, expected: part.expectedVersion, actual: actual)
                }
                if let duplicate = part.events.first(where: { scratch.ids[$0.id] != nil }) {
                    throw EventStoreError.duplicateEventID(duplicate.id)
                }
                let first = Int64(scratch.log.count + 1)
                var previous = scratch.streams[StreamKey(part.stream)]?.last.flatMap { [UInt8](hexadecimal: scratch.log[$0].hash) } ?? EventChain.genesis
                for (offset, event) in part.events.enumerated() {
                    scratch.ids[event.id] = scratch.log.count
                    scratch.streams[StreamKey(part.stream), default: []].append(scratch.log.count)
                    let recordedAt = event.recordedAt.map { Timestamp.date(microseconds: Timestamp.microseconds($0)) } ?? now
                    let version = actual + Int64(offset) + 1
                    previous = hasher.hash(previous: previous, stream: part.stream, version: version, id: event.id, type: event.type,
                                           recordedAt: Timestamp.format(recordedAt), data: event.data, metadata: event.metadata)
                    scratch.log.append(RecordedEvent(
                        position: first + Int64(offset), streamID: part.stream, version: version,
                        id: event.id, type: event.type, data: event.data, metadata: event.metadata,
                        recordedAt: recordedAt, hash: previous.hexString))
                }
                results.append(AppendResult(streamVersion: actual + Int64(part.events.count), positions: first...(first + Int64(part.events.count) - 1)))
            }
            state = scratch
            return results
        }
    }

    public func read(stream: String, from version: Int64, direction: ReadDirection, limit: Int) throws -> [RecordedEvent] {
        try AppendValidation.validateStreamID(stream)
        guard limit > 0 else { return [] }
        return state.withLock { state in
            guard let indexes = state.streams[StreamKey(stream)] else { return [] }
            switch direction {
            case .forwards:
                let start = Int(max(version, 1) - 1)
                guard start < indexes.count else { return [] }
                return indexes[start..<min(indexes.count, start + limit)].map { state.log[$0] }
            case .backwards:
                guard version >= 1 else { return [] }
                let end = Int(min(version, Int64(indexes.count)))
                return indexes[max(0, end - limit)..<end].reversed().map { state.log[$0] }
            }
        }
    }

    public func readAll(after position: Int64, limit: Int) throws -> [RecordedEvent] {
        guard limit > 0 else { return [] }
        return state.withLock { state in
            let start = Int(max(position, 0))
            guard start < state.log.count else { return [] }
            return Array(state.log[start..<min(state.log.count, start + limit)])
        }
    }

    public func events(withIDs ids: [UUID]) throws -> [RecordedEvent] {
        state.withLock { state in Set(ids).compactMap { state.ids[$0].map { state.log[$0] } } }
    }

    public func headPosition() throws -> Int64 {
        state.withLock { Int64($0.log.count) }
    }

    public func version(of stream: String) throws -> Int64 {
        try AppendValidation.validateStreamID(stream)
        return state.withLock { Int64($0.streams[StreamKey(stream)]?.count ?? 0) }
    }
}
