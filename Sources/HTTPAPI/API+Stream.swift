import EventLog
import EvtoolKit
import Foundation
import JSONKit
import Synchronization
import Transfer

extension API {
    /// `GET /v1/log/stream`: the log as Server-Sent Events, one event per recorded event with
    /// its position as `id:`, resuming after `Last-Event-ID` (or `after=`), and a `: heartbeat`
    /// comment after each quiet interval.
    func logStream(_ match: RouteMatch) throws -> HTTPResponse {
        let start = try Self.resumePoint(match, what: "a log position")
        _ = try application.headPosition()   // a store that is down is a 503 now, not a broken stream
        let application = self.application
        return eventStream(after: start, id: \.position,
                           read: { try application.log(after: $0, limit: 100) },
                           current: { try application.headPosition() })
    }

    /// `GET /v1/users/{user}/events`: one user's events as Server-Sent Events, for the user's
    /// app (the `app` role may follow it): one event per recorded event of the user's stream,
    /// `id:` its stream version (the `ETag` of the user's resources), resuming after
    /// `Last-Event-ID` (or `after=`), a `: heartbeat` comment after each quiet interval. A
    /// client that reconnects with the last id it received gets every later event once, none
    /// twice: the versions of one stream have no gaps and never change.
    func userEvents(_ match: RouteMatch) throws -> HTTPResponse {
        let start = try Self.resumePoint(match, what: "a version of the user's events")
        let user = try application.existingUser(typed: match.parameter("user"))
        _ = try application.streamVersion(user: user)   // a store that is down is a 503 now, not a broken stream
        let application = self.application
        return eventStream(after: start, id: \.version,
                           read: { try application.userEvents(user: user, after: $0, limit: 100) },
                           current: { try application.streamVersion(user: user) })
    }

    /// Where a stream resumes: after `Last-Event-ID`, else after `after=` (0: from the start).
    private static func resumePoint(_ match: RouteMatch, what: String) throws -> Int64 {
        let after = try match.integer("after", default: 0, in: 0...Int64.max)
        guard let last = match.request.header("last-event-id") else { return after }
        guard let number = Int64(last.trimmingCharacters(in: .whitespaces)), number >= 0 else {
            throw Problem(.malformedRequest, "Last-Event-ID must be \(what) (a whole number), not '\(last)'", field: "Last-Event-ID")
        }
        return number
    }

    /// Server-Sent Events of the events `read` returns after a cursor (batches of its own
    /// size), each with `id:` its `id` number, from `start`; a `: heartbeat` comment after each
    /// quiet interval. The connection is polled when `current` (the head, or the stream's
    /// version) passes the cursor; a store that fails ends the stream, and the client resumes
    /// with `Last-Event-ID`.
    private func eventStream(after start: Int64, id: KeyPath<RecordedEvent, Int64> & Sendable,
                             read: @escaping @Sendable (Int64) throws -> [RecordedEvent],
                             current: @escaping @Sendable () throws -> Int64) -> HTTPResponse {
        let heartbeat = Duration.milliseconds(Int64(limits.heartbeatSeconds * 1_000))
        let cursor = Mutex(start)
        let lastSent = Mutex(ContinuousClock.now)
        let stream = EventStream(produce: { _ in
            let events: [RecordedEvent]
            do {
                events = try read(cursor.withLock { $0 })
            } catch {
                return .end   // the store went away: the client resumes with Last-Event-ID
            }
            guard let last = events.last else {
                guard ContinuousClock.now - lastSent.withLock({ $0 }) >= heartbeat else { return .wait }
                lastSent.withLock { $0 = ContinuousClock.now }
                return .chunk(Array(": heartbeat\n\n".utf8))
            }
            var chunk: [UInt8] = []
            for event in events {
                var writer = ResponseWriter()
                LogRecord.write(event, to: &writer)
                chunk += Array("id: \(event[keyPath: id])\nevent: \(event.type)\ndata: ".utf8) + writer.bytes + Array("\n\n".utf8)
            }
            cursor.withLock { $0 = last[keyPath: id] }
            lastSent.withLock { $0 = ContinuousClock.now }
            return .chunk(chunk)
        }, isDue: { _ in
            if ContinuousClock.now - lastSent.withLock({ $0 }) >= heartbeat { return true }
            guard let now = try? current() else { return true }   // poll() ends the stream then
            return now > cursor.withLock { $0 }
        })
        return HTTPResponse(status: 200, headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-store")], eventStream: stream)
    }

    func metricsText(_ match: RouteMatch) throws -> HTTPResponse {
        var gauges: [(name: String, help: String, labels: String, value: Int64)] = []
        if let head = try? application.headPosition(), let statuses = try? application.store.projectionStatuses() {
            gauges.append(("evtool_log_head_position", "The log's head position.", "", head))
            for status in statuses where status.isActive {
                gauges.append(("evtool_projection_lag_events", "Events the view's checkpoint is behind the head.", "view=\"\(status.name)\"", head - status.position))
            }
        }
        if let grouped = application.groupCommit {
            let statistics = grouped.statistics
            gauges.append(("evtool_group_commit_transactions_total", "Transactions group commit has committed.", "", Int64(statistics.commits)))
            gauges.append(("evtool_group_commit_appends_total", "Appends those transactions carried.", "", Int64(statistics.appends)))
        }
        let memory = application.viewMemory
        if memory.capacityBytes > 0 {
            let statistics = memory.statistics
            gauges.append(("evtool_view_memory_reads_total", "Current reads by who answered: the view memory, or the store.", "source=\"memory\"", Int64(statistics.hits)))
            gauges.append(("evtool_view_memory_reads_total", "Current reads by who answered: the view memory, or the store.", "source=\"store\"", Int64(statistics.misses)))
            gauges.append(("evtool_view_memory_bytes", "Bytes the view memory holds (bound: --view-memory).", "", Int64(statistics.bytes)))
            gauges.append(("evtool_view_memory_evictions_total", "Answers dropped to stay within the bound.", "", Int64(statistics.evictions)))
        }
        if let replicaReads = application.replicaReads {
            let served = replicaReads.reads
            for source in [ReplicaReads.Source.replica, .replicaAfterWaiting, .primary] {
                gauges.append(("evtool_read_store_reads_total", "Reads by who answered: the read store at once, after waiting for it to replay, or the store.",
                               "source=\"\(source.rawValue)\"", Int64(served[source] ?? 0)))
            }
        }
        return HTTPResponse(status: 200, headers: [("Content-Type", "text/plain; version=0.0.4")], body: Array(metrics.text(gauges: gauges).utf8))
    }

    func openAPI(_ match: RouteMatch) throws -> HTTPResponse {
        .json(200, OpenAPIDocument.bytes)
    }
}
