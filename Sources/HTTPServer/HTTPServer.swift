import CMicroHTTPD
import Foundation
import HTTPAPI
import Synchronization

/// The libmicrohttpd edge: a daemon with an internal thread pool on epoll that accumulates each
/// request's body, hands the request to the ``API`` and sends its response (a buffer, or a
/// Server-Sent Events stream through a content-reader callback), logging one line per request.
///
/// ``stop()`` stops accepting connections, lets the requests in flight finish (bounded by the
/// configured grace), ends event streams, and stops the daemon.
package final class HTTPServer: @unchecked Sendable {
    // @unchecked: `daemon` is set once by start() before any callback runs and read after;
    // everything else shared between threads is atomic or behind a mutex.
    /// The API every request goes to.
    package let api: API
    /// The configuration it was started with.
    package let configuration: ServerConfiguration
    private var daemon: OpaquePointer?
    private var listenSocket: Int32 = -1
    private let inFlight = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)
    private let streams = Mutex<[ObjectIdentifier: EventStream]>([:])
    /// Event streams parked (suspended connections) until they have something to send.
    private let parked = Mutex<[ObjectIdentifier: StreamBox]>([:])
    private let wakerStopped = Atomic<Bool>(false)
    private let wakerDone = DispatchSemaphore(value: 0)
    private let requestCounter = Atomic<Int>(0)
    /// Where write requests that must wait run (nil: every write on the connection threads).
    private let writePool: WorkerPool?
    /// Writes whose connections are suspended until they are answered.
    private let writesInFlight = Atomic<Int>(0)
    /// Each open connection's deadline for its request (`--timeout` for each part of it).
    let clocks: ConnectionClocks

    /// Makes a server; ``start()`` binds it.
    package init(api: API, configuration: ServerConfiguration) {
        self.api = api
        self.configuration = configuration
        self.writePool = configuration.writeThreads > 0 ? WorkerPool(threads: configuration.writeThreads, name: "evtool-write") : nil
        self.clocks = ConnectionClocks(timeoutSeconds: configuration.connectionTimeoutSeconds, report: { RequestLog.write($0) })
    }

    /// The port it listens on (after ``start()``).
    package private(set) var port: UInt16 = 0

    /// Binds the address and starts the thread pool.
    /// - Throws: ``ServerError`` when the address is not one, the port is taken, or TLS is
    ///   asked for from a libmicrohttpd built without it.
    package func start() throws(ServerError) {
        if configuration.tls != nil, evtool_mhd_has_tls() == 0 {
            throw ServerError("this libmicrohttpd was built without TLS support; terminate TLS in front of the server or install a build with it")
        }
        Self.allowDescriptors(configuration.connectionLimit + 256)
        var storage = sockaddr_storage()
        var flags = UInt32(MHD_USE_INTERNAL_POLLING_THREAD.rawValue) | UInt32(MHD_USE_EPOLL.rawValue) | UInt32(MHD_USE_ITC.rawValue)
            | UInt32(MHD_ALLOW_SUSPEND_RESUME.rawValue)
        let isIPv6 = configuration.host.contains(":")
        let parsed: Int32 = withUnsafeMutableBytes(of: &storage) { raw in
            if isIPv6 {
                let address = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
                address.pointee.sin6_family = sa_family_t(AF_INET6)
                address.pointee.sin6_port = configuration.port.bigEndian
                return inet_pton(AF_INET6, configuration.host, &address.pointee.sin6_addr)
            }
            let address = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
            address.pointee.sin_family = sa_family_t(AF_INET)
            address.pointee.sin_port = configuration.port.bigEndian
            return inet_pton(AF_INET, configuration.host, &address.pointee.sin_addr)
        }
        guard parsed == 1 else { throw ServerError("'\(configuration.host)' is not an IPv4 or IPv6 address (give e.g. --listen 127.0.0.1:8080 or [::1]:8080)") }
        if isIPv6 { flags |= UInt32(MHD_USE_IPv6.rawValue) }
        let certificate = configuration.tls.map { strdup($0.certificate) } ?? nil
        let key = configuration.tls.map { strdup($0.key) } ?? nil
        defer { free(certificate); free(key) }
        let started: OpaquePointer? = withUnsafePointer(to: &storage) { address in
            address.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                var settings = evtool_mhd_settings(
                    flags: flags, address: socketAddress, threads: UInt32(max(1, configuration.threads)),
                    connection_limit: UInt32(max(1, configuration.connectionLimit)),
                    connection_timeout: UInt32(max(1, configuration.connectionTimeoutSeconds)),
                    connection_memory_limit: max(4_096, configuration.headerMemoryBytes), listen_backlog: 1_024,
                    handler: accessHandler, handler_cls: Unmanaged.passUnretained(self).toOpaque(),
                    completed: completedHandler, completed_cls: Unmanaged.passUnretained(self).toOpaque(),
                    unescape: keepEscapes, uri_log: uriLogHandler, uri_log_cls: Unmanaged.passUnretained(self).toOpaque(),
                    notify_connection: connectionNotified, notify_connection_cls: Unmanaged.passUnretained(self).toOpaque(),
                    tls_certificate: certificate, tls_key: key)
                return evtool_mhd_start(&settings)
            }
        }
        guard let started else {
            throw ServerError("cannot listen on \(configuration.host):\(configuration.port)" + (configuration.tls != nil ? " (or the TLS certificate or key is not usable PEM)" : "") + ": \(String(cString: strerror(errno)))")
        }
        daemon = started
        port = evtool_mhd_port(started)
        clocks.start()
        Thread.detachNewThread { [self] in wake() }
    }

    /// Raises this process's soft limit on open files towards `wanted` (at most the hard
    /// limit), so that `--max-connections` is not cut short by a default soft limit of 1,024
    /// (each connection is a descriptor; the store and the listening socket take a few more).
    static func allowDescriptors(_ wanted: Int) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(wanted) else { return }
        limit.rlim_cur = min(limit.rlim_max, rlim_t(wanted))
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// Resumes parked event streams that have something to send (new events, a heartbeat due,
    /// the server stopping), every 50 ms, until ``stop()`` has resumed them all.
    private func wake() {
        while true {
            let boxes = parked.withLock { Array($0.values) }
            for box in boxes where box.state.stream.isDue() {
                let removed = parked.withLock { $0.removeValue(forKey: ObjectIdentifier(box)) }
                if removed != nil { MHD_resume_connection(box.connection) }
            }
            if wakerStopped.load(ordering: .acquiring), parked.withLock({ $0.isEmpty }) { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        wakerDone.signal()
    }

    /// Parks a stream's connection until it is due (called from its content reader).
    fileprivate func park(_ box: StreamBox) {
        MHD_suspend_connection(box.connection)
        parked.withLock { $0[ObjectIdentifier(box)] = box }
    }

    /// Requests being handled now.
    package var requestsInFlight: Int { inFlight.load(ordering: .acquiring) }

    /// Stops accepting, waits up to the grace for requests in flight, ends event streams and
    /// stops the daemon. Returns how many requests were still in flight when it stopped.
    @discardableResult
    package func stop() -> Int {
        guard let daemon, !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return 0 }
        listenSocket = MHD_quiesce_daemon(daemon)
        // The socket still listens (the kernel would finish handshakes no one accepts): shut it
        // down so new connections are refused now; it is closed after the daemon stops.
        if listenSocket >= 0 { shutdown(listenSocket, Int32(SHUT_RDWR)) }
        for stream in streams.withLock({ Array($0.values) }) { stream.stop() }
        let deadline = ContinuousClock.now + .milliseconds(Int64(configuration.shutdownGraceSeconds * 1_000))
        while inFlight.load(ordering: .acquiring) > 0, ContinuousClock.now < deadline {
            for stream in streams.withLock({ Array($0.values) }) { stream.stop() }
            Thread.sleep(forTimeInterval: 0.01)
        }
        let left = inFlight.load(ordering: .acquiring)
        // A write not yet answered holds its connection suspended, and every suspended
        // connection must be resumed before the daemon stops: wait for the writes to end.
        while writesInFlight.load(ordering: .acquiring) > 0 { Thread.sleep(forTimeInterval: 0.01) }
        // Every parked connection must be resumed before the daemon stops (libmicrohttpd's rule):
        // the streams are stopped, so the waker resumes each and ends.
        wakerStopped.store(true, ordering: .releasing)
        wakerDone.wait()
        MHD_stop_daemon(daemon)
        clocks.stop()
        if listenSocket >= 0 { close(listenSocket) }
        self.daemon = nil
        return left
    }

    // MARK: - Callbacks

    /// The clock of `connection` (set when it was accepted).
    fileprivate static func clock(of connection: OpaquePointer) -> ConnectionClock? {
        evtool_mhd_socket_context(connection).map { Unmanaged<ConnectionClock>.fromOpaque($0).takeUnretainedValue() }
    }

    /// The access handler's first call for a request (its head is whole): its state begins
    /// here, with the target's length as the request line had it (its length as a C string
    /// before libmicrohttpd splits the query: see ``RequestHead``). Counted in flight from here:
    /// libmicrohttpd calls the completion callback for every request the handler has seen,
    /// and for no other (a request it refuses itself never reaches either).
    private func begin(_ connection: OpaquePointer) -> UnsafeMutableRawPointer {
        let state = RequestState()
        if let length = Self.clock(of: connection)?.targetLength.load(ordering: .relaxed), length >= 0 { state.targetLength = length }
        inFlight.add(1, ordering: .acquiringAndReleasing)
        return Unmanaged.passRetained(state).toOpaque()
    }

    fileprivate func handle(_ connection: OpaquePointer, urlPointer: UnsafePointer<CChar>?, methodPointer: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?,
                            upload: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>, context: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        if context.pointee == nil { context.pointee = begin(connection) }
        let state = Unmanaged<RequestState>.fromOpaque(context.pointee!).takeUnretainedValue()
        let method = methodPointer.map { String(cString: $0) } ?? "GET"
        let url = urlPointer.map { String(cString: $0) } ?? "/"
        if !state.begun {
            state.begun = true
            if stopping.load(ordering: .acquiring) {
                return answer(connection, state: state, method: method, url: url,
                              Problem(.unavailable, "the server is shutting down", headers: [("Retry-After", "1"), ("Connection", "close")]).response)
            }
            if let refusal = framingRefusal(connection, method: methodPointer, url: urlPointer, version: version, state: state) {
                // Whatever follows may be read as another request (smuggled): refused, and the
                // connection closed after the answer.
                return answer(connection, state: state, method: method, url: url,
                              Problem(refusal.lengthRequired ? .lengthRequired : .malformedRequest, refusal.detail, headers: [("Connection", "close")]).response)
            }
            // The head's checks left one Content-Length of digits only; one beyond Int (2^63 and
            // more, which libmicrohttpd still reads) is as much too large as any other.
            if let length = value(connection, .HEADER_KIND, "Content-Length"),
               Int(length).map({ $0 > configuration.maximumBodyBytes }) ?? !length.isEmpty {
                state.tooLarge = true
                return answer(connection, state: state, method: method, url: url, tooLarge(length))
            }
            // A client that waits for "100 Continue" before its body gets the refusal of its
            // head instead (libmicrohttpd sends the 100 when this call queues no answer).
            if let expect = value(connection, .HEADER_KIND, "Expect"), HTTPText.equalsIgnoringCase(expect, "100-continue"),
               let refusal = api.refusal(ofHead: HTTPRequest(method: method, path: RequestHead.path(ofTarget: url), query: queryPairs(connection), headers: headerValues(connection).headers)) {
                return answer(connection, state: state, method: method, url: url, refusal)
            }
            return .YES
        }
        if state.answered { uploadSize.pointee = 0; return .YES }
        if let write = state.write {
            // Resumed: the write pool has answered.
            let response = write.response ?? Problem(.serverError, "the write ended without an answer").response
            return answer(connection, state: state, method: method, url: url, response, requestID: write.requestID)
        }
        if uploadSize.pointee > 0 {
            if !state.tooLarge, let upload {
                if state.body.count + uploadSize.pointee > configuration.maximumBodyBytes {
                    state.tooLarge = true
                    state.body = []
                } else {
                    upload.withMemoryRebound(to: UInt8.self, capacity: uploadSize.pointee) {
                        state.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: uploadSize.pointee))
                    }
                }
            }
            uploadSize.pointee = 0
            return .YES
        }
        if state.tooLarge { return answer(connection, state: state, method: method, url: url, tooLarge(nil)) }
        let (headers, repeated, notText) = headerValues(connection)
        if let repeated {
            return answer(connection, state: state, method: method, url: url,
                          Problem(.malformedRequest, "the header '\(RequestLog.printable(repeated))' is sent more than once; it takes one value").response)
        }
        if let notText {
            return answer(connection, state: state, method: method, url: url,
                          Problem(.malformedRequest, "the header '\(RequestLog.printable(notText))' is not UTF-8 text").response)
        }
        let request = HTTPRequest(method: method, path: RequestHead.path(ofTarget: url), query: queryPairs(connection), headers: headers, body: state.body)
        state.body = []
        if let writePool, Self.writeMethods.contains(method) {
            return startWrite(connection, state: state, method: method, url: url, request: request, requestID: headers["x-request-id"], pool: writePool)
        }
        return answer(connection, state: state, method: method, url: url, api.respond(to: request), requestID: headers["x-request-id"])
    }

    /// The methods whose requests are writes (see ``startWrite(_:state:method:url:request:requestID:pool:)``).
    static let writeMethods: Set<String> = ["POST", "PUT", "DELETE", "PATCH"]

    /// A write: routed and decoded here; then its connection is suspended and the write waits
    /// for its group commit as a continuation (the committing thread answers it and resumes
    /// the connection), holding no thread. A cached user's action starts on this thread; one
    /// that must read the user's stream first starts on the write pool, whose thread is free
    /// again once the append is queued; what cannot wait as a continuation (an admin
    /// operation, a lost race, `If-Match: *`) is answered on the write pool, waiting there.
    private func startWrite(_ connection: OpaquePointer, state: RequestState, method: String, url: String, request: HTTPRequest,
                            requestID: String?, pool: WorkerPool) -> MHD_Result {
        let preparation = api.prepareWrite(request)
        if case .answered(let response) = preparation {
            return answer(connection, state: state, method: method, url: url, response, requestID: requestID)
        }
        let write = PendingWrite(connection: connection, requestID: requestID)
        state.write = write
        if let clock = Self.clock(of: connection) { clocks.answering(clock) }
        MHD_suspend_connection(connection)
        writesInFlight.add(1, ordering: .acquiringAndReleasing)
        let finish: @Sendable (HTTPResponse) -> Void = { [self] response in
            write.response = response
            MHD_resume_connection(write.connection)
            writesInFlight.subtract(1, ordering: .acquiringAndReleasing)
        }
        let api = self.api
        switch preparation {
        case .answered:
            break
        case .other:
            pool.submit { finish(api.respond(to: request)) }
        case .write(let prepared):
            let committed: @Sendable (HTTPResponse?) -> Void = { response in
                if let response { finish(response) } else { pool.submit { finish(api.finish(prepared)) } }
            }
            switch api.start(prepared, mayRead: false, completion: committed) {
            case .started: break
            case .answered(let response): finish(response)
            case .declined:
                pool.submit {
                    switch api.start(prepared, mayRead: true, completion: committed) {
                    case .started: break
                    case .answered(let response): finish(response)
                    case .declined: finish(api.finish(prepared))
                    }
                }
            }
        }
        return .YES
    }

    fileprivate func completed(_ connection: OpaquePointer?, _ context: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) {
        if let connection, let clock = Self.clock(of: connection) { clocks.answered(clock) }
        guard let context, let raw = context.pointee else { return }
        Unmanaged<RequestState>.fromOpaque(raw).release()
        context.pointee = nil
        inFlight.subtract(1, ordering: .acquiringAndReleasing)
    }

    private func tooLarge(_ length: String?) -> HTTPResponse {
        let size = length.map { "has \($0) bytes" } ?? "is larger than that"
        return Problem(.bodyTooLarge, "the body \(size); at most \(configuration.maximumBodyBytes) bytes are accepted (--max-body)", headers: [("Connection", "close")]).response
    }

    private func answer(_ connection: OpaquePointer, state: RequestState, method: String, url: String, _ response: HTTPResponse, requestID: String? = nil) -> MHD_Result {
        state.answered = true
        if let clock = Self.clock(of: connection) { clocks.answering(clock) }
        // With --cors-origin every answer (problems, event streams and the edge's own refusals
        // included) carries the CORS headers its Origin gets.
        let response = api.crossOrigin.map { $0.applied(to: response, origin: value(connection, .HEADER_KIND, "Origin")) } ?? response
        let id = Self.acceptableRequestID(requestID) ?? String(requestCounter.add(1, ordering: .relaxed).newValue, radix: 36).leftPadded(6)
        let handle: OpaquePointer?
        if let stream = response.eventStream {
            let box = StreamState(stream: stream)
            streams.withLock { $0[ObjectIdentifier(stream)] = stream }
            handle = MHD_create_response_from_callback(UInt64.max, 4_096, streamReader,
                                                       Unmanaged.passRetained(StreamBox(server: self, state: box, connection: connection)).toOpaque(), streamFreed)
        } else {
            handle = response.body.withUnsafeBytes { bytes in
                evtool_mhd_response_copying(bytes.count, bytes.baseAddress)
            }
        }
        guard let handle else { return .NO }
        defer { MHD_destroy_response(handle) }
        for header in response.headers { MHD_add_response_header(handle, header.name, header.value) }
        MHD_add_response_header(handle, "X-Request-ID", id)
        let result = MHD_queue_response(connection, UInt32(response.status), handle)
        log(method: method, path: url, status: response.status, started: state.started, requestID: id, note: response.logNote)
        return result
    }

    fileprivate func streamEnded(_ stream: EventStream) {
        _ = streams.withLock { $0.removeValue(forKey: ObjectIdentifier(stream)) }
    }

    private func log(method: String, path: String, status: Int, started: ContinuousClock.Instant, requestID: String, note: String? = nil) {
        let elapsed = ContinuousClock.now - started
        let milliseconds = Double(elapsed.components.seconds) * 1_000 + Double(elapsed.components.attoseconds) / 1e15
        let shownPath = RequestLog.printable(path)
        let line: String
        if configuration.jsonLog {
            line = RequestLog.jsonLine(method: RequestLog.printable(method), path: shownPath, status: status, milliseconds: milliseconds, requestID: requestID, note: note)
        } else {
            line = "\(RequestLog.printable(method)) \(shownPath) \(status) \(RequestLog.tenths(milliseconds))ms \(requestID)" + (note.map { " " + RequestLog.printable($0, keepingSpaces: true) } ?? "") + "\n"
        }
        RequestLog.write(line)
    }

    /// A client's `X-Request-ID` when it is short and plain (letters, digits, `-_.:`), else nil.
    static func acceptableRequestID(_ text: String?) -> String? {
        guard let text, !text.isEmpty, text.utf8.count <= 64,
              text.utf8.allSatisfy({ $0 < 0x80 && (isalnum(Int32($0)) != 0 || "-_.:".utf8.contains($0)) }) else { return nil }
        return text
    }

    /// Why a request's head is refused (``RequestHead``): sent in a framing that another
    /// HTTP implementation could read differently, or with a field RFC 9110 does not allow.
    private func framingRefusal(_ connection: OpaquePointer, method: UnsafePointer<CChar>?, url: UnsafePointer<CChar>?,
                                version: UnsafePointer<CChar>?, state: RequestState) -> RequestHead.Refusal? {
        guard let method, let url, let version else {
            return RequestHead.Refusal(lengthRequired: false, detail: "the request line must be 'METHOD target HTTP/1.1'")
        }
        var fields: [RequestHead.Field] = []
        forEachField(connection) { fields.append(RequestHead.Field(name: $0, value: $1)) }
        return RequestHead(method: method, target: url, targetLength: state.targetLength, version: version, fields: fields).refusal()
    }

    private func value(_ connection: OpaquePointer, _ kind: MHD_ValueKind, _ name: String) -> String? {
        MHD_lookup_connection_value(connection, kind, name).map { String(cString: $0) }
    }

    private func forEachValue(_ connection: OpaquePointer, _ kind: MHD_ValueKind, _ body: (String, String) -> Void) {
        withoutActuallyEscaping(body) { body in
            var box = body
            withUnsafeMutablePointer(to: &box) { pointer in
                _ = MHD_get_connection_values(connection, kind, { cls, _, key, value in
                    guard let cls, let key else { return .YES }
                    let body = cls.assumingMemoryBound(to: ((String, String) -> Void).self).pointee
                    body(String(cString: key), value.map { String(cString: $0) } ?? "")
                    return .YES
                }, pointer)
            }
        }
    }

    /// Each header field of the request on `connection` as the bytes received (with their
    /// lengths, so a NUL inside a value is kept).
    private func forEachField(_ connection: OpaquePointer, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void) {
        withoutActuallyEscaping(body) { body in
            var box = body
            withUnsafeMutablePointer(to: &box) { pointer in
                _ = MHD_get_connection_values_n(connection, .HEADER_KIND, { cls, _, key, keySize, value, valueSize in
                    guard let cls, let key else { return .YES }
                    let body = cls.assumingMemoryBound(to: ((UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void).self).pointee
                    body(UnsafeRawBufferPointer(start: key, count: keySize), UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize))
                    return .YES
                }, pointer)
            }
        }
    }

    /// The headers of the request on `connection` by lowercased name (a list sent as several
    /// fields joined with `, `), and the first single-valued header (``HTTPRequest/singleValued``)
    /// that was sent more than once.
    func headerValues(_ connection: OpaquePointer) -> (headers: [String: String], repeated: String?, notText: String?) {
        var headers: [String: String] = [:]
        var repeated: String?
        var notText: String?
        forEachField(connection) { nameBytes, valueBytes in
            let name = String(decoding: nameBytes, as: UTF8.self)
            let key = HTTPText.lowercased(name)
            // A header the API reads is text: bytes that are not UTF-8 would be read with
            // replacement characters, and two different values (two Idempotency-Keys) as one.
            let value: String
            if let text = String(validating: valueBytes, as: UTF8.self) {
                value = text
            } else {
                if notText == nil, HTTPRequest.read.contains(key) { notText = name }
                value = String(decoding: valueBytes, as: UTF8.self)
            }
            if let earlier = headers[key] {
                if repeated == nil, HTTPRequest.singleValued.contains(key) { repeated = name }
                headers[key] = earlier + ", " + value
            } else {
                headers[key] = value
            }
        }
        return (headers, repeated, notText)
    }

    /// The query parameters of the request on `connection`, still percent-encoded, in order.
    func queryPairs(_ connection: OpaquePointer) -> [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        forEachValue(connection, .GET_ARGUMENT_KIND) { pairs.append(($0, $1)) }
        return pairs
    }
}

/// The server and stream state a content-reader callback works on.
final class StreamBox: @unchecked Sendable {
    // @unchecked: `state` is used only on the connection's thread in libmicrohttpd; the waker
    // thread reads only the stream (Sendable) and the connection pointer (immutable).
    let server: HTTPServer
    let state: StreamState
    let connection: OpaquePointer
    init(server: HTTPServer, state: StreamState, connection: OpaquePointer) {
        self.server = server
        self.state = state
        self.connection = connection
    }
}

private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, version, upload, uploadSize, context in
    guard let cls, let connection, let uploadSize, let context else { return .NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    return server.handle(connection, urlPointer: url, methodPointer: method, version: version,
                         upload: upload, uploadSize: uploadSize, context: context)
}

/// The request line was read (before libmicrohttpd splits the query): its headers and body are
/// due from now, and its target's length is kept. Returns no request context: the access
/// handler makes it (a request libmicrohttpd refuses before the handler would leave it behind).
private let uriLogHandler: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) -> UnsafeMutableRawPointer? = { cls, uri, connection in
    guard let cls, let connection, let clock = HTTPServer.clock(of: connection) else { return nil }
    Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().clocks.requestLineRead(clock, targetLength: uri.map { strlen($0) } ?? -1)
    return nil
}

private let completedHandler: MHD_RequestCompletedCallback = { cls, connection, context, _ in
    guard let cls else { return }
    Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().completed(connection, context)
}

/// A connection accepted (its clock starts) or closing (its clock goes, before its socket does).
private let connectionNotified: MHD_NotifyConnectionCallback = { cls, connection, socketContext, code in
    guard let cls, let socketContext else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    if code.rawValue == 0 { // MHD_CONNECTION_NOTIFY_STARTED
        guard let connection else { return }
        socketContext.pointee = Unmanaged.passRetained(server.clocks.opened(socket: evtool_mhd_connection_fd(connection))).toOpaque()
    } else if let raw = socketContext.pointee {
        server.clocks.closed(Unmanaged<ConnectionClock>.fromOpaque(raw).takeRetainedValue())
        socketContext.pointee = nil
    }
}

/// Leaves `%HH` escapes as they are: paths and queries are decoded by ``PathSegments``.
private let keepEscapes: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutablePointer<CChar>?) -> Int = { _, _, text in
    text.map { strlen($0) } ?? 0
}

private let streamReader: MHD_ContentReaderCallback = { cls, _, buffer, maximum in
    guard let cls, let buffer else { return evtool_mhd_end_with_error() }
    let box = Unmanaged<StreamBox>.fromOpaque(cls).takeUnretainedValue()
    let state = box.state
    if state.offset >= state.pending.count {
        switch state.stream.poll() {
        case .chunk(let chunk):
            state.pending = chunk
            state.offset = 0
        case .wait:
            // Nothing yet: park the connection (no thread waits on it) until the waker resumes it.
            box.server.park(box)
            return 0
        case .end:
            return evtool_mhd_end_of_stream()
        }
    }
    let count = min(maximum, state.pending.count - state.offset)
    state.pending.withUnsafeBytes { bytes in
        UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + state.offset, byteCount: count)
    }
    state.offset += count
    return count
}

private let streamFreed: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    let box = Unmanaged<StreamBox>.fromOpaque(cls).takeRetainedValue()
    box.server.streamEnded(box.state.stream)
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
