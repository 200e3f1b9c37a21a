import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One of the user's events, as the live stream delivers it.
public struct LiveEvent: Hashable, Sendable {
    /// The user's stream version it made (the stream's `id:`, the `ETag` of the user's views).
    public let version: Int64
    /// Its type: `Searched`, `Favorited`, `Unfavorited`, `DetailsViewed` (or `Erased`).
    public let type: String
    /// The event as JSON (as `GET /v1/log` gives it).
    public let json: Data
}

/// Follows the user's events while the app is open (`GET /v1/users/{user}/events`): after
/// each batch of events the client refreshes its cached views, then hands the events to the
/// app in order. A dropped connection (the network, a server restart) reconnects with
/// `Last-Event-ID`, so no event is missed and none is delivered twice; the last id is kept in
/// the client's file, so the next session resumes after it too. Made by
/// ``EvtoolClient/live(onEvent:onStop:)``; ends with ``stop()``.
public final class LiveUpdates: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let client: EvtoolClient
    private let onEvent: @Sendable (LiveEvent) -> Void
    private let onStop: @Sendable (ClientError) -> Void
    private let lock = NSLock()
    private var session: URLSession?
    private var buffer = Data()
    private var status = 0
    private var stopped = false
    private var delay = 0.25
    private var last: Int64
    private var delivery: Task<Void, Never>?
    private var fields: (id: Int64?, type: String?, data: Data?) = (nil, nil, nil)

    init(client: EvtoolClient, after version: Int64, onEvent: @escaping @Sendable (LiveEvent) -> Void, onStop: @escaping @Sendable (ClientError) -> Void) {
        self.client = client
        self.onEvent = onEvent
        self.onStop = onStop
        self.last = version
        super.init()
    }

    /// The version of the last event received.
    public var lastVersion: Int64 { lock.withLock { last } }

    /// Ends the stream; no event is delivered after it returns.
    public func stop() {
        let session = lock.withLock { () -> URLSession? in
            stopped = true
            defer { self.session = nil }
            return self.session
        }
        session?.invalidateAndCancel()
    }

    func connect() {
        lock.lock()
        guard !stopped else { lock.unlock(); return }
        buffer = Data()
        fields = (nil, nil, nil)
        status = 0
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = 120
        configuration.timeoutIntervalForResource = 60 * 60 * 24 * 365
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
        self.session = session
        var request = client.transport.request("GET", client.userPath + "/events", headers: ["Last-Event-ID": String(last), "Accept": "text/event-stream"])
        request.timeoutInterval = 120
        lock.unlock()
        session.dataTask(with: request).resume()
    }

    /// The status of the answer.
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                           completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        lock.withLock { status = (response as? HTTPURLResponse)?.statusCode ?? 0 }
        completionHandler(.allow)
    }

    /// Bytes of the stream: complete events are parsed and delivered.
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        var events: [LiveEvent] = []
        lock.withLock {
            guard status == 200, !stopped else { buffer.append(data); return }
            delay = 0.25
            buffer.append(data)
            while let newline = buffer.firstIndex(of: 0x0A) {
                var line = buffer[buffer.startIndex..<newline]
                buffer = Data(buffer[(newline + 1)...])
                if line.last == 0x0D { line = line.dropLast() }
                let text = String(decoding: line, as: UTF8.self)
                if text.isEmpty {
                    if let id = fields.id, id > last, let data = fields.data {
                        events.append(LiveEvent(version: id, type: fields.type ?? "message", json: data))
                        last = id
                    }
                    fields = (nil, nil, nil)
                } else if text.hasPrefix(":") {
                    continue
                } else if text.hasPrefix("id:") {
                    fields.id = Int64(text.dropFirst(3).trimmingCharacters(in: .whitespaces))
                } else if text.hasPrefix("event:") {
                    fields.type = text.dropFirst(6).trimmingCharacters(in: .whitespaces)
                } else if text.hasPrefix("data:") {
                    let value = text.dropFirst(5).drop { $0 == " " }
                    fields.data = (fields.data.map { $0 + Data("\n".utf8) } ?? Data()) + Data(value.utf8)
                }
            }
        }
        guard let newest = events.last else { return }
        try? client.locked { database throws(ClientError) in try database.setSetting("live.last", String(newest.version)) }
        let client = self.client, onEvent = self.onEvent, delivered = events
        lock.lock()
        let previous = delivery
        delivery = Task { [weak self] in
            await previous?.value
            try? await client.refresh()
            guard let self, !self.isStopped else { return }
            for event in delivered { onEvent(event) }
        }
        lock.unlock()
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    /// The stream ended: reconnect after a pause, unless stopped or refused (401, 403).
    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        let (stopped, status, body, wait) = lock.withLock { () -> (Bool, Int, Data, Double) in
            let wait = delay
            delay = min(delay * 2, 5)
            return (self.stopped, self.status, buffer, wait)
        }
        session.finishTasksAndInvalidate()
        guard !stopped else { return }
        if status == 401 || status == 403 {
            stop()
            onStop(.unauthorized(Problem(status: status, body: body)))
            return
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + wait) { [weak self] in self?.connect() }
    }
}

extension EvtoolClient {
    /// Follows the user's events while the app is open: `onEvent` gets each event once, in
    /// order, after the client has refreshed its cached views (re-read the views then).
    /// Resumes after the last event the client's file remembers (or the newest version its
    /// cached views show). Reconnects by itself after a drop; `onStop` is called when the
    /// server refuses the token (401, 403), which ends the stream.
    /// - Returns: the stream; call ``LiveUpdates/stop()`` when the app goes to the background.
    public func live(onEvent: @escaping @Sendable (LiveEvent) -> Void, onStop: @escaping @Sendable (ClientError) -> Void = { _ in }) -> LiveUpdates {
        let after = (try? locked { database throws(ClientError) -> Int64 in
            if let last = try database.setting("live.last").flatMap({ Int64($0) }) { return last }
            return Int64(try database.setting("version") ?? "0") ?? 0
        }) ?? 0
        let updates = LiveUpdates(client: self, after: after, onEvent: onEvent, onStop: onStop)
        updates.connect()
        return updates
    }
}
