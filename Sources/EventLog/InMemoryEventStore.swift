import Foundation
import Synchronization

/// An event store held in memory: the reference behaviour for every other store, and a
/// fast store for tests. Safe to share between threads.
public final class InMemoryEventStore: EventStore {
    private struct State {
        var log: [RecordedEvent] = []
        var streams: [String: [Int]] = [:]   // stream id → indexes into `log`
        var ids: Set<UUID> = []
    }

    private let state = Mutex(State())

    /// Makes an empty store.
    public init() {}

    @discardableResult
    public func append(_ events: [ProposedEvent], to stream: String, expectedVersion: ExpectedVersion) throws -> AppendResult {
        try AppendValidation.validate(events, stream: stream)
        let recordedAt = Timestamp.now()
        return try state.withLock { state in
            let actual = Int64(state.streams[stream]?.count ?? 0)
            guard expectedVersion.isSatisfied(by: actual) else {
                throw EventStoreError.wrongExpectedVersion(stream: stream, expected: expectedVersion, actual: actual)
            }
            if let duplicate = events.first(where: { state.ids.contains($0.id) }) {
                throw EventStoreError.duplicateEventID(duplicate.id)
            }
            let first = Int64(state.log.count + 1)
            for (offset, event) in events.enumerated() {
                state.ids.insert(event.id)
                state.streams[stream, default: []].append(state.log.count)
                state.log.append(RecordedEvent(
                    position: first + Int64(offset), streamID: stream, version: actual + Int64(offset) + 1,
                    id: event.id, type: event.type, data: event.data, metadata: event.metadata,
                    recordedAt: recordedAt))
            }
            return AppendResult(streamVersion: actual + Int64(events.count), positions: first...(first + Int64(events.count) - 1))
        }
    }

    public func read(stream: String, from version: Int64, direction: ReadDirection, limit: Int) throws -> [RecordedEvent] {
        try AppendValidation.validateStreamID(stream)
        guard limit > 0 else { return [] }
        return state.withLock { state in
            guard let indexes = state.streams[stream] else { return [] }
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

    public func headPosition() throws -> Int64 {
        state.withLock { Int64($0.log.count) }
    }

    public func version(of stream: String) throws -> Int64 {
        try AppendValidation.validateStreamID(stream)
        return state.withLock { Int64($0.streams[stream]?.count ?? 0) }
    }
}
