import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The client a phone app uses to talk to `evtool serve` for one signed-in user, offline first.
///
/// ``record(_:)`` keeps an action in a durable outbox on the device (an SQLite file) with an
/// `Idempotency-Key` of its own and returns at once; the views (``favorites()``,
/// ``recentSearches()``, ``recentlyViewed()``, ``listing(_:)``, ``isFavorite(_:)``) show it
/// at once: they are the server's last answer with the pending actions folded on top by the
/// server's rules (``ViewRules``). ``sync()`` sends the outbox in order; ``refresh()``
/// revalidates the cached answers with `If-None-Match`; ``live(onEvent:onStop:)`` follows the
/// user's events while the app is open. Everything works with the server down: the views
/// come from the device and the outbox waits for the next ``sync()``.
///
/// ```swift
/// let client = try EvtoolClient(.init(server: URL(string: "https://events.example")!,
///                                     token: token, user: "ada", databasePath: path))
/// try client.record(.favorite(listingID: "L42", summary: summary))
/// let saved = try client.isFavorite("L42")      // true at once, offline too
/// let report = await client.sync()              // sent when the server can be reached
/// ```
public final class EvtoolClient: @unchecked Sendable {
    /// How the client reaches the server and where it keeps its file.
    public struct Configuration: Sendable {
        /// The server's base URL, e.g. `https://events.example`.
        public var server: URL
        /// A bearer token with the `user` role made for ``user`` (`evtool token create --role
        /// user --user ID`, by the app's back end at sign-in): it acts for that user only.
        public var token: String
        /// The signed-in user's id.
        public var user: String
        /// The client's SQLite file (created when missing): the outbox and the cached views.
        public var databasePath: String
        /// The `X-Source` every write carries.
        public var source: String
        /// How sync retries an unreachable or unavailable server.
        public var retry: RetryPolicy
        /// Seconds a request may take.
        public var requestTimeout: TimeInterval

        /// Makes a configuration.
        public init(server: URL, token: String, user: String, databasePath: String, source: String = "evtool-client",
                    retry: RetryPolicy = RetryPolicy(), requestTimeout: TimeInterval = 10) {
            self.server = server
            self.token = token
            self.user = user
            self.databasePath = databasePath
            self.source = source
            self.retry = retry
            self.requestTimeout = requestTimeout
        }
    }

    /// How ``EvtoolClient/sync()`` retries: network failures and 503s wait (a 503's
    /// `Retry-After`, else a delay that doubles from `initialDelay` up to `maximumDelay`), and
    /// after `attempts` failures in a row the sync stops with the outbox kept.
    public struct RetryPolicy: Sendable {
        /// Failures in a row before a sync gives up for now.
        public var attempts: Int
        /// The first wait, in seconds.
        public var initialDelay: Double
        /// The longest wait, in seconds (a longer `Retry-After` is cut to it).
        public var maximumDelay: Double

        /// Makes a policy; the defaults try 5 times over about 3 seconds.
        public init(attempts: Int = 5, initialDelay: Double = 0.2, maximumDelay: Double = 5) {
            self.attempts = max(1, attempts)
            self.initialDelay = initialDelay
            self.maximumDelay = maximumDelay
        }
    }

    /// The configuration.
    public let configuration: Configuration
    let database: LocalDatabase
    let transport: HTTPTransport
    let lock = NSLock()
    private var isSyncing = false

    /// Opens the client's file (creating it when missing).
    /// - Throws: ``ClientError/storage(_:)`` when the file cannot be opened or made.
    public init(_ configuration: Configuration) throws(ClientError) {
        self.configuration = configuration
        database = try LocalDatabase(path: configuration.databasePath)
        transport = HTTPTransport(server: configuration.server, token: configuration.token, timeout: configuration.requestTimeout)
    }

    /// Runs `body` on the file under the client's lock.
    func locked<T>(_ body: (LocalDatabase) throws(ClientError) -> T) throws(ClientError) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(database)
    }

    var userPath: String { "/v1/users/" + HTTPTransport.segment(configuration.user) }

    // MARK: - Recording

    /// Records an action: kept in the outbox (durably, before this returns) with an
    /// `Idempotency-Key` of its own, shown in the views at once, sent by the next ``sync()``.
    /// - Throws: ``ClientError/invalidAction(field:message:)`` for an action with an empty
    ///   listing id; ``ClientError/storage(_:)``.
    @discardableResult
    public func record(_ action: Action) throws(ClientError) -> PendingAction {
        if let listing = action.listingID, listing.isEmpty {
            throw ClientError.invalidAction(field: "listingID", message: "the listing id must not be empty")
        }
        let key = UUID().uuidString.lowercased()
        let now = Date()
        let sequence = try locked { database throws(ClientError) in
            try database.execute("INSERT INTO outbox (key, kind, listing, body, occurred_at) VALUES (?, ?, ?, ?, ?)", [
                .text(key), .text(ServerDocuments.kind(of: action)), action.listingID.map { .text($0) } ?? .null,
                ServerDocuments.body(of: action).map { .blob($0) } ?? .null, .real(now.timeIntervalSince1970),
            ])
            return try database.query("SELECT last_insert_rowid()").first?.first?.integer ?? 0
        }
        return PendingAction(sequence: sequence, idempotencyKey: key, action: action, recordedAt: now)
    }

    /// An outbox row.
    struct Row {
        var sequence: Int64
        var key: String
        var kind: String
        var listing: String?
        var body: Data?
        var occurredAt: Date
        var state: String
        var version: Int64?

        init(_ values: [LocalDatabase.Value]) {
            sequence = values[0].integer ?? 0
            key = values[1].text ?? ""
            kind = values[2].text ?? ""
            listing = values[3].text
            body = values[4].blob
            occurredAt = Date(timeIntervalSince1970: values[5].real ?? 0)
            state = values[6].text ?? "pending"
            version = values[7].integer
        }

        func action() throws(ClientError) -> Action { try ServerDocuments.action(kind: kind, listing: listing, body: body) }

        /// The cached view this row's action changes.
        var view: String {
            switch kind {
            case "search": return "recent-searches"
            case "view": return "recently-viewed"
            default: return "favorites"
            }
        }
    }

    static let rowColumns = "seq, key, kind, listing, body, occurred_at, state, version"

    /// The actions not acknowledged by the server yet, in the order they will be sent.
    public func pendingActions() throws(ClientError) -> [PendingAction] {
        try locked { database throws(ClientError) in
            try database.query("SELECT \(Self.rowColumns) FROM outbox WHERE state = 'pending' ORDER BY seq").map { values throws(ClientError) in
                let row = Row(values)
                return PendingAction(sequence: row.sequence, idempotencyKey: row.key, action: try row.action(), recordedAt: row.occurredAt)
            }
        }
    }

    /// Actions the server refused (a 4xx other than 401, 403, 409 and 412), oldest first,
    /// each with the server's problem document: shown to the user until dismissed.
    public func refusedActions() throws(ClientError) -> [RefusedAction] {
        try locked { database throws(ClientError) in
            try database.query("SELECT seq, kind, listing, body, occurred_at, problem FROM refused ORDER BY seq").map { values throws(ClientError) in
                let action = try ServerDocuments.action(kind: values[1].text ?? "", listing: values[2].text, body: values[3].blob)
                let object = (try? JSONSerialization.jsonObject(with: values[5].blob ?? Data())) as? [String: Any] ?? [:]
                let problem = Problem(type: object["type"] as? String ?? "", title: object["title"] as? String ?? "", status: object["status"] as? Int ?? 0,
                                      detail: object["detail"] as? String ?? "", field: object["field"] as? String)
                return RefusedAction(sequence: values[0].integer ?? 0, action: action, recordedAt: Date(timeIntervalSince1970: values[4].real ?? 0), problem: problem)
            }
        }
    }

    /// Forgets a refused action once the app has shown it.
    public func dismiss(_ refused: RefusedAction) throws(ClientError) {
        try locked { database throws(ClientError) in try database.execute("DELETE FROM refused WHERE seq = ?", [.integer(refused.sequence)]) }
    }

    // MARK: - Views

    /// A cached server answer: its body and the user's stream version it was read at.
    func cached(_ name: String, _ database: LocalDatabase) throws(ClientError) -> (body: Data, version: Int64)? {
        guard let row = try database.query("SELECT body, version FROM cache WHERE name = ?", [.text(name)]).first else { return nil }
        return (row[0].blob ?? Data(), row[1].integer ?? 0)
    }

    /// The rows to fold on top of a cached view: the pending ones, and those sent but recorded
    /// after the cached answer was read (its version), in outbox order.
    func unseenRows(of view: String, after version: Int64, _ database: LocalDatabase) throws(ClientError) -> [Row] {
        try database.query("SELECT \(Self.rowColumns) FROM outbox WHERE state = 'pending' OR (state = 'sent' AND version > ?) ORDER BY seq",
                           [.integer(version)]).map(Row.init).filter { $0.view == view }
    }

    /// The user's favorites, oldest first: the server's last answer with the actions it has not
    /// shown yet folded on top. Read from the device; never waits for the network.
    public func favorites() throws(ClientError) -> [Favorite] {
        try locked { database throws(ClientError) in
            let base = try cached("favorites", database)
            var favorites = base.map { ServerDocuments.favorites($0.body) } ?? []
            for row in try unseenRows(of: "favorites", after: base?.version ?? 0, database) {
                ViewRules.fold(&favorites, try row.action(), at: row.occurredAt)
            }
            return favorites
        }
    }

    /// The user's recent searches, newest first (at most 20), as ``favorites()`` is made.
    public func recentSearches() throws(ClientError) -> [RecentSearch] {
        try locked { database throws(ClientError) in
            let base = try cached("recent-searches", database)
            var searches = base.map { ServerDocuments.recentSearches($0.body) } ?? []
            for row in try unseenRows(of: "recent-searches", after: base?.version ?? 0, database) {
                ViewRules.fold(&searches, try row.action(), at: row.occurredAt)
            }
            return searches
        }
    }

    /// The listings the user opened most recently, newest first (at most 20), as ``favorites()`` is made.
    public func recentlyViewed() throws(ClientError) -> [RecentlyViewed] {
        try locked { database throws(ClientError) in
            let base = try cached("recently-viewed", database)
            var viewed = base.map { ServerDocuments.recentlyViewed($0.body) } ?? []
            for row in try unseenRows(of: "recently-viewed", after: base?.version ?? 0, database) {
                ViewRules.fold(&viewed, try row.action(), at: row.occurredAt)
            }
            return viewed
        }
    }

    /// Whether a listing is one of the user's favorites now ("Saved" or "Save Event").
    public func isFavorite(_ listingID: String) throws(ClientError) -> Bool {
        try favorites().contains { $0.listingID == listingID }
    }

    /// A listing as the details screen shows it: whether it is a favorite, and the details
    /// last seen (the user's own view not yet on the server, else the server's answer that
    /// ``refreshListing(_:)`` fetched).
    public func listing(_ listingID: String) throws(ClientError) -> ListingPage {
        let favorite = try isFavorite(listingID)
        let details = try locked { database throws(ClientError) -> Data? in
            let base = try cached("listing/" + listingID, database)
            var details = base.flatMap { ServerDocuments.listingDetails($0.body) }
            for row in try unseenRows(of: "recently-viewed", after: base?.version ?? 0, database) where row.listing == listingID {
                details = row.body
            }
            return details
        }
        return ListingPage(listingID: listingID, isFavorite: favorite, details: details)
    }

    // MARK: - Reading from the server

    /// Revalidates the cached favorites, recent searches and recently viewed with
    /// `If-None-Match` (a 304 costs no body) and keeps the answers on the device.
    /// - Throws: ``ClientError/unreachable(_:)`` offline (the views keep their last answers),
    ///   ``ClientError/unauthorized(_:)``, ``ClientError/server(_:)``.
    public func refresh() async throws(ClientError) {
        for view in ["favorites", "recent-searches", "recently-viewed"] {
            try await revalidate(view, path: userPath + "/" + view)
        }
    }

    /// Fetches a listing's page as the user sees it (its details and whether it is a favorite)
    /// into the device's cache, revalidating a cached one.
    public func refreshListing(_ listingID: String) async throws(ClientError) {
        try await revalidate("listing/" + listingID, path: userPath + "/listings/" + HTTPTransport.segment(listingID))
    }

    /// GET with the cached answer's ETag; 200 replaces it, 304 keeps it.
    func revalidate(_ name: String, path: String) async throws(ClientError) {
        let etag = try locked { database throws(ClientError) in
            try database.query("SELECT etag FROM cache WHERE name = ?", [.text(name)]).first?.first?.text
        }
        let answer = try await transport.send("GET", path, headers: etag.map { ["If-None-Match": $0] } ?? [:])
        switch answer.status {
        case 200:
            let tag = answer.header("etag")
            let version = ServerDocuments.version(etag: tag) ?? 0
            try locked { database throws(ClientError) in
                try database.transaction { () throws(ClientError) in
                    try database.execute("INSERT INTO cache (name, etag, body, version) VALUES (?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET etag = excluded.etag, body = excluded.body, version = excluded.version",
                                         [.text(name), tag.map { .text($0) } ?? .null, .blob(answer.body), .integer(version)])
                    try noteVersion(version, database)
                    try forgetSeenRows(database)
                }
            }
        case 304:
            return
        case 401, 403:
            throw ClientError.unauthorized(answer.problem)
        default:
            throw answer.status == 503 ? ClientError.unreachable(answer.problem.detail) : ClientError.server(answer.problem)
        }
    }

    /// Keeps the highest stream version seen (what a write's `If-Match` names).
    func noteVersion(_ version: Int64, _ database: LocalDatabase) throws(ClientError) {
        let known = Int64(try database.setting("version") ?? "0") ?? 0
        if version > known { try database.setSetting("version", String(version)) }
    }

    /// Drops sent actions every cached view they change already shows.
    func forgetSeenRows(_ database: LocalDatabase) throws(ClientError) {
        for (view, kinds) in [("favorites", "'favorite','unfavorite'"), ("recent-searches", "'search'"), ("recently-viewed", "'view'")] {
            let version = try cached(view, database)?.version ?? 0
            try database.execute("DELETE FROM outbox WHERE state = 'sent' AND kind IN (\(kinds)) AND version <= ?", [.integer(version)])
        }
    }

    // MARK: - Sync

    /// How one sent action ended.
    public struct SentAction: Hashable, Sendable {
        /// The action as it was pending.
        public let action: PendingAction
        /// Whether it recorded events (201); false when the server found nothing to change (200).
        public let recorded: Bool
        /// Whether the server answered with a first outcome it had already given (a retry of a
        /// request it had recorded: `Idempotent-Replayed`).
        public let replayed: Bool
        /// The user's stream version after it.
        public let version: Int64
    }

    /// What one ``EvtoolClient/sync()`` did.
    public struct SyncReport: Sendable {
        /// The actions the server acknowledged, in order.
        public var sent: [SentAction] = []
        /// The actions it refused (also in ``EvtoolClient/refusedActions()``).
        public var refused: [RefusedAction] = []
        /// Why the sync stopped with actions left in the outbox; nil when it emptied it.
        public var stopped: ClientError?
        /// The actions still in the outbox.
        public var remaining: Int = 0
    }

    /// Sends the outbox in order, each action with its own `Idempotency-Key`, then refreshes
    /// the cached views. A network failure or a 503 waits and retries (``RetryPolicy``,
    /// honouring `Retry-After`); an answer the server had given before (a retry after a lost
    /// answer or a crash) counts as sent; a refused action (4xx) leaves the outbox and is
    /// reported; 401 or 403 stops the sync and keeps the outbox; 409 and 412 (another device
    /// changed the user's favorites since this one last read them) re-read the favorites and
    /// decide again: an action they make pointless is dropped as done, any other is resent.
    /// One sync runs at a time; a second call waits for the first.
    public func sync() async -> SyncReport {
        while !beginSync() { try? await Task.sleep(nanoseconds: 10_000_000) }
        defer { lock.withLock { isSyncing = false } }
        var report = SyncReport()
        var failures = 0
        let policy = configuration.retry
        func wait(_ seconds: Double?) async {
            let delay = min(policy.maximumDelay, seconds ?? policy.initialDelay * pow(2, Double(max(0, failures - 1))))
            try? await Task.sleep(nanoseconds: UInt64(max(0, delay) * 1_000_000_000))
        }
        outbox: while true {
            let next: Row?
            do {
                next = try locked { database throws(ClientError) in
                    try database.query("SELECT \(Self.rowColumns) FROM outbox WHERE state = 'pending' ORDER BY seq LIMIT 1").first.map(Row.init)
                }
            } catch {
                report.stopped = error
                break
            }
            guard let row = next else { break }
            let answer: HTTPTransport.Answer
            do {
                answer = try await send(row)
            } catch {
                failures += 1
                guard failures < policy.attempts else { report.stopped = error; break }
                await wait(nil)
                continue
            }
            do {
                switch answer.status {
                case 200, 201:
                    failures = 0
                    report.sent.append(try acknowledge(row, answer))
                case 401, 403:
                    report.stopped = .unauthorized(answer.problem)
                    break outbox
                case 409, 412:
                    failures += 1
                    guard failures < policy.attempts else { report.stopped = .server(answer.problem); break outbox }
                    try await revalidate("favorites", path: userPath + "/favorites")
                    if let done = try redecide(row) { report.sent.append(done) }
                case 500...599:
                    failures += 1
                    guard failures < policy.attempts else {
                        report.stopped = answer.status == 503 ? .unreachable(answer.problem.detail) : .server(answer.problem)
                        break outbox
                    }
                    await wait(answer.header("retry-after").flatMap(Double.init))
                case 400...499:
                    failures = 0
                    report.refused.append(try refuse(row, answer.problem))
                default:
                    report.stopped = .server(answer.problem)
                    break outbox
                }
            } catch {
                failures += 1
                guard failures < policy.attempts else { report.stopped = error; break }
                await wait(nil)
            }
        }
        if report.stopped == nil {
            do { try await refresh() } catch { report.stopped = error }
        }
        // The device file unreadable: the report says so rather than "nothing left".
        do { report.remaining = try pendingActions().count } catch { if report.stopped == nil { report.stopped = error } }
        return report
    }

    /// Takes the one sync turn; false while another sync runs.
    private func beginSync() -> Bool {
        lock.withLock {
            guard !isSyncing else { return false }
            isSyncing = true
            return true
        }
    }

    /// Sends one action with its key; favorites and removals carry `If-Match` with the newest
    /// version this device has seen, so another device's change in between is a 412.
    func send(_ row: Row) async throws(ClientError) -> HTTPTransport.Answer {
        var headers = ["Idempotency-Key": row.key, "X-Source": configuration.source,
                       "X-Occurred-At": ISO8601DateFormatter().string(from: row.occurredAt)]
        if row.kind == "favorite" || row.kind == "unfavorite" {
            let known = try locked { database throws(ClientError) in Int64(try database.setting("version") ?? "0") ?? 0 }
            if known > 0 { headers["If-Match"] = "\"\(known)\"" }
        }
        let listing = HTTPTransport.segment(row.listing ?? "")
        switch row.kind {
        case "search": return try await transport.send("POST", userPath + "/searches", headers: headers, body: row.body)
        case "favorite": return try await transport.send("PUT", userPath + "/favorites/" + listing, headers: headers, body: row.body)
        case "unfavorite": return try await transport.send("DELETE", userPath + "/favorites/" + listing, headers: headers)
        default: return try await transport.send("POST", userPath + "/views", headers: headers, body: row.body)
        }
    }

    /// A 200 or 201: the row is sent (kept, marked with the version it was recorded at, until
    /// the cached view shows it) or, when nothing was recorded, gone.
    func acknowledge(_ row: Row, _ answer: HTTPTransport.Answer) throws(ClientError) -> SentAction {
        let object = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] ?? [:]
        let version = (object["version"] as? NSNumber)?.int64Value ?? ServerDocuments.version(etag: answer.header("etag")) ?? 0
        let recorded = answer.status == 201
        try locked { database throws(ClientError) in
            try database.transaction { () throws(ClientError) in
                if recorded {
                    try database.execute("UPDATE outbox SET state = 'sent', version = ? WHERE seq = ?", [.integer(version), .integer(row.sequence)])
                } else {
                    try database.execute("DELETE FROM outbox WHERE seq = ?", [.integer(row.sequence)])
                }
                try noteVersion(version, database)
            }
        }
        return SentAction(action: PendingAction(sequence: row.sequence, idempotencyKey: row.key, action: try row.action(), recordedAt: row.occurredAt),
                          recorded: recorded, replayed: answer.header("idempotent-replayed") == "true" || object["replayed"] as? Bool == true,
                          version: version)
    }

    /// After a 409 or 412, with the favorites just re-read: an action they make pointless (a
    /// favorite already there, a removal of one not there) is done; any other is sent again.
    func redecide(_ row: Row) throws(ClientError) -> SentAction? {
        let server = try locked { database throws(ClientError) in try cached("favorites", database) }
        let favorites = server.map { ServerDocuments.favorites($0.body) } ?? []
        let present = favorites.contains { $0.listingID == row.listing }
        guard (row.kind == "favorite" && present) || (row.kind == "unfavorite" && !present) else { return nil }
        try locked { database throws(ClientError) in try database.execute("DELETE FROM outbox WHERE seq = ?", [.integer(row.sequence)]) }
        return SentAction(action: PendingAction(sequence: row.sequence, idempotencyKey: row.key, action: try row.action(), recordedAt: row.occurredAt),
                          recorded: false, replayed: false, version: server?.version ?? 0)
    }

    /// A refused action: out of the outbox (so out of the views), into the refused list.
    func refuse(_ row: Row, _ problem: Problem) throws(ClientError) -> RefusedAction {
        try locked { database throws(ClientError) in
            try database.transaction { () throws(ClientError) in
                try database.execute("INSERT INTO refused (seq, key, kind, listing, body, occurred_at, problem) VALUES (?, ?, ?, ?, ?, ?, ?)", [
                    .integer(row.sequence), .text(row.key), .text(row.kind), row.listing.map { .text($0) } ?? .null,
                    row.body.map { .blob($0) } ?? .null, .real(row.occurredAt.timeIntervalSince1970), .blob(problem.json),
                ])
                try database.execute("DELETE FROM outbox WHERE seq = ?", [.integer(row.sequence)])
            }
        }
        return RefusedAction(sequence: row.sequence, action: try row.action(), recordedAt: row.occurredAt, problem: problem)
    }
}
