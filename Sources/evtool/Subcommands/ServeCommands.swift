import Audit
import EventLog
import EvtoolKit
import Foundation
import HTTPAPI
import HTTPServer
import StorePostgres

/// `evtool serve`: the HTTP API over a store; `evtool token create`: a bearer token for it.
enum ServeCommands {
    static let defaults = ServerConfiguration()
    static let threads = TypedOption.integer("threads", help: "Threads serving connections (default 4)", in: 1...256, default: 4)
    static let maxBody = TypedOption.integer("max-body", value: "BYTES", help: "Largest request body accepted (default 1048576; larger gets 413)",
                                             in: 1...(1 << 30), default: defaults.maximumBodyBytes)
    static let maxHeaderBytes = TypedOption.integer("max-header-bytes", value: "BYTES", help: "Memory per connection for the request line and headers (default 32768; larger gets 431)",
                                                    in: 4_096...(1 << 24), default: defaults.headerMemoryBytes)
    static let maxConnections = TypedOption.integer("max-connections", help: "Connections open at once (default 1000)", in: 1...1_000_000, default: defaults.connectionLimit)
    static let timeout = TypedOption.integer("timeout", value: "SECONDS", help: "Close a connection idle this long, or whose request line, or headers and body, take longer (default 30)",
                                             in: 1...86_400, default: defaults.connectionTimeoutSeconds)
    static let shutdownGrace = TypedOption.integer("shutdown-grace", value: "SECONDS", help: "How long SIGTERM waits for requests in flight (default 10)", in: 0...3_600, default: 10)
    static let groupCommit = TypedOption.choice("group-commit", ["on", "off"], help: "Commit concurrent writes of different users in one transaction (default on)", default: "on")
    static let followViews = TypedOption.choice("follow-views", ["on", "off"], help: "Keep the store's views current in the background, one server per view at a time on PostgreSQL (default on; off: a read catches its view up, or 'evtool project --follow' keeps them)", default: "on")
    static let writeThreads = TypedOption.integer("write-threads", help: "Threads for writes that must wait: those that read the user's stream first, admin operations, retries (default 64; 0: every write on the connection threads)",
                                                  in: 0...1_024, default: defaults.writeThreads)
    static let writeAttempts = TypedOption.integer("write-attempts", help: "Tries per write while other writers (another server, a command) keep changing the user's stream between its decision and its append; the last lost race answers 409 (default 10)",
                                                   in: 1...100, default: Application.defaultWriteAttempts)
    static let heartbeat = TypedOption.integer("heartbeat", value: "SECONDS", help: "Quiet time after which an event stream sends a heartbeat comment (default 15)", in: 1...3_600, default: 15)
    static let viewMemory = TypedOption.integer("view-memory", value: "BYTES", help: "Memory for current views kept to answer reads without the store (default 134217728; 0: off)",
                                                in: 0...(1 << 40), default: ViewMemory.defaultCapacityBytes)
    static let logFormat = TypedOption.choice("log-format", ["text", "json"], help: "One line per request on standard error, as text (default) or JSON", default: "text")
    static let role = TypedOption<Role>(
        name: "role", value: "ROLE", help: "app (a back end: record, read any user's views), user (one user's phone app: that user's actions and views only; with --user), auditor (read everything, write nothing) or admin (everything)",
        completion: .values(Role.allCases.map(\.rawValue)), parse: { text in
            guard let role = Role(rawValue: text) else {
                throw OptionValueError(message: "'--role' must be one of \(Role.allCases.map(\.rawValue).joined(separator: ", ")), not '\(text)'")
            }
            return role
        })
    static let tokenUser = SharedOptions.user(help: "The user a 'user' token acts for (required with --role user, refused with the other roles)")

    static let serve = CommandSpec(
        name: "serve",
        summary: "Serve the HTTP API (see docs/reference/http.md) until SIGTERM or Ctrl-C",
        usage: "(--tokens FILE | --no-auth) [--listen HOST:PORT] [--threads N] [limits] [--tls-cert FILE --tls-key FILE] [--cors-origin ORIGIN…] [--store STORE] [--read-store URL]",
        options: [
            .init(name: "listen", value: "HOST:PORT", help: "Address and port to listen on (default 127.0.0.1:8080; port 0 picks a free one)"),
            .init(name: "tokens", value: "FILE", help: "The bearer tokens accepted (made with 'evtool token create')"),
            .init(name: "no-auth", value: nil, help: "Accept every request as admin: for local development only"),
            threads.declaration, maxBody.declaration, maxHeaderBytes.declaration, maxConnections.declaration, timeout.declaration,
            shutdownGrace.declaration, groupCommit.declaration, followViews.declaration, writeThreads.declaration, writeAttempts.declaration, heartbeat.declaration, viewMemory.declaration, logFormat.declaration,
            .init(name: "tls-cert", value: "FILE", help: "PEM certificate: serve HTTPS (with --tls-key)"),
            .init(name: "tls-key", value: "FILE", help: "PEM private key of --tls-cert"),
            .init(name: "seal-key", value: "PRIVATE.pem", help: "Ed25519 key that POST /v1/admin/seal signs its checkpoint with ('evtool keys create')"),
            .init(name: "cors-origin", value: "ORIGIN", help: "Let browser scripts from this origin (scheme://host[:port]; '*' for any) call the API: CORS headers and OPTIONS preflights (default: none)", repeatable: true),
            CommandSpec.storeOption, SharedOptions.readStore.declaration,
        ],
        discussion: """
            Prints 'listening on http://HOST:PORT' when ready. SIGTERM and Ctrl-C stop accepting \
            connections, let the requests in flight finish (up to --shutdown-grace), end event \
            streams and exit 0. SIGHUP reads the --tokens file again (a malformed one is refused \
            and the tokens kept). With --read-store, views, history, as-of, the log and stats are \
            read from that PostgreSQL hot standby of the store, read-your-writes (docs/how-to/replicas.md); \
            it must be reachable at start (else exit 69) and a copy of the store (else exit 64).

            Browser clients: without --cors-origin no answer carries CORS headers and OPTIONS \
            is answered 405, so a browser keeps answers from scripts of other origins. Each \
            --cors-origin names an origin allowed (or '*', any origin): a preflight OPTIONS is \
            answered 204 with the route's methods, the headers the API reads and a max age \
            of 600 s, and every answer to a request from an allowed Origin carries \
            Access-Control-Allow-Origin and Access-Control-Expose-Headers (ETag, Location, \
            Link, Idempotent-Replayed, Retry-After, X-Request-ID); another origin gets none \
            (docs/reference/http.md, Operating, "Browser clients").
            """,
        examples: [
            "evtool token create --role app --tokens tokens.txt",
            "evtool serve --tokens tokens.txt --listen 127.0.0.1:8080 --store postgres://evtool@db/evtool",
            "evtool serve --tokens tokens.txt --cors-origin https://app.example",
        ],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 0)
            var configuration = ServerConfiguration()
            if let listen = arguments.value("listen") {
                guard let colon = listen.lastIndex(of: ":"), let port = UInt16(listen[listen.index(after: colon)...]) else {
                    throw CLIError.usage("'--listen' must be HOST:PORT, e.g. 127.0.0.1:8080, not '\(listen)'", arguments.command)
                }
                var host = String(listen[..<colon])
                if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
                guard ServerConfiguration.isListenAddress(host) else {
                    throw CLIError.usage("'--listen' must be an IPv4 or IPv6 address and a port, e.g. 127.0.0.1:8080 or [::1]:8080, not '\(listen)'", arguments.command)
                }
                configuration.host = host
                configuration.port = port
            }
            configuration.threads = try arguments.required(threads)
            configuration.writeThreads = try arguments.required(writeThreads)
            configuration.maximumBodyBytes = try arguments.required(maxBody)
            configuration.headerMemoryBytes = try arguments.required(maxHeaderBytes)
            configuration.connectionLimit = try arguments.required(maxConnections)
            configuration.connectionTimeoutSeconds = try arguments.required(timeout)
            configuration.shutdownGraceSeconds = Double(try arguments.required(shutdownGrace))
            configuration.jsonLog = try arguments.required(logFormat) == "json"
            switch (arguments.value("tls-cert"), arguments.value("tls-key")) {
            case (nil, nil): break
            case let (certificate?, key?):
                guard let certificateText = FileManager.default.contents(atPath: certificate) else {
                    throw CLIError(message: "cannot read the TLS certificate '\(certificate)'", code: .invalidData)
                }
                guard let keyText = FileManager.default.contents(atPath: key) else {
                    throw CLIError(message: "cannot read the TLS key '\(key)'", code: .invalidData)
                }
                configuration.tls = (String(decoding: certificateText, as: UTF8.self), String(decoding: keyText, as: UTF8.self))
            default:
                throw CLIError.usage("give both --tls-cert and --tls-key, or neither", arguments.command)
            }
            let tokens: TokenFile?
            switch (arguments.value("tokens"), arguments.flag("no-auth")) {
            case let (path?, false):
                do {
                    tokens = try TokenFile.load(path: path)
                } catch {
                    throw CLIError(message: "\(error)", code: .invalidData)
                }
            case (nil, true):
                tokens = nil
            case (nil, false):
                throw CLIError.usage("give --tokens FILE (make one with 'evtool token create') or --no-auth for local development", arguments.command)
            default:
                throw CLIError.usage("give either --tokens or --no-auth, not both", arguments.command)
            }
            var crossOrigin: CrossOrigin?
            let origins = arguments.all("cors-origin")
            if !origins.isEmpty {
                do {
                    crossOrigin = try CrossOrigin(origins: origins)
                } catch {
                    throw CLIError.usage("'--cors-origin': \(error)", arguments.command)
                }
            }
            let sealKey = try arguments.value("seal-key").map { try AuditFiles.key($0, "seal key") }
            if let sealKey, sealKey.privateKey == nil { throw CLIError(message: "'--seal-key' needs the private key, not the public one", code: .invalidData) }
            var settings = ServerSetup.Settings(location: try StoreLocation.resolve(arguments))
            let location = settings.location
            settings.groupCommit = try arguments.required(Self.groupCommit) == "on"
            settings.followViews = try arguments.required(Self.followViews) == "on"
            _ = try arguments.value(SharedOptions.readStore)   // checked when parsed; resolved again with the schema
            settings.readLocation = try ReadStore.resolve(arguments.value("read-store"), for: location, schema: arguments.value("schema"))
            settings.viewMemoryBytes = try arguments.required(viewMemory)
            settings.writeAttempts = try arguments.required(Self.writeAttempts)
            settings.heartbeatSeconds = Double(try arguments.required(heartbeat))
            settings.tokens = tokens
            settings.sealKey = sealKey
            settings.crossOrigin = crossOrigin
            settings.configuration = configuration
            let setup = try ServerSetup(settings) { line in writeStandardError(line + "\n") }
            let server = setup.server

            // The pool's threads inherit this mask, so SIGTERM, SIGINT and SIGHUP reach sigwait below only.
            var signals = sigset_t()
            sigemptyset(&signals)
            sigaddset(&signals, SIGINT)
            sigaddset(&signals, SIGTERM)
            sigaddset(&signals, SIGHUP)
            pthread_sigmask(SIG_BLOCK, &signals, nil)
            do {
                try setup.start()
            } catch let error as ServerError {
                throw CLIError(message: "\(error)", code: .unavailable)
            }
            if tokens == nil {
                console.message("serve: authentication is OFF (--no-auth): every caller is admin; for local development only")
            } else if let tokens, tokens.entries.isEmpty, let path = arguments.value("tokens") {
                console.message("serve: the tokens file '\(path)' holds no token: every route but /healthz, /readyz and the documents answers 401 until one is added (evtool token create) and the server is sent SIGHUP")
            }
            let scheme = configuration.tls == nil ? "http" : "https"
            let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
            console.message("serve: \(location) with \(configuration.threads) threads, group commit \(settings.groupCommit ? "on" : "off")")
            try console.output("listening on \(scheme)://\(host):\(server.port)")
            try console.flush()
            var received: Int32 = 0
            sigwait(&signals, &received)
            while received == SIGHUP {
                // The tokens file again (a token made or removed since): all of it, or none.
                if let path = arguments.value("tokens") {
                    do {
                        let file = try TokenFile.load(path: path)
                        setup.server.api.replaceTokens(file)
                        console.message("serve: SIGHUP: \(file.entries.count.counted("token")) from \(path)")
                    } catch {
                        console.message("serve: SIGHUP: kept the tokens read before: \(error)")
                    }
                } else {
                    console.message("serve: SIGHUP: authentication is off (--no-auth): no tokens to read")
                }
                sigwait(&signals, &received)
            }
            console.message("serve: \(received == SIGTERM ? "SIGTERM" : "interrupt"): finishing \(server.requestsInFlight.counted("request")) in flight")
            let left = setup.stop()
            console.message(left == 0 ? "serve: stopped" : "serve: stopped with \(left.counted("request")) unfinished after \(Int(configuration.shutdownGraceSeconds)) s")
        })

    static let token = CommandSpec(
        name: "token",
        summary: "Make a bearer token for 'evtool serve': prints it once, stores only its SHA-256",
        usage: "create --role app|user|auditor|admin [--user ID] --tokens FILE [--name NAME]",
        arguments: [("create", "Make a new token")],
        options: [
            role.declaration,
            tokenUser.declaration,
            .init(name: "tokens", value: "FILE", help: "The tokens file to add it to (created with mode 0600)"),
            .init(name: "name", value: "NAME", help: "Who holds it (kept beside the hash, for people)"),
        ],
        discussion: """
            A phone app holds a 'user' token, made for the signed-in user (by the app's back end \
            at sign-in): it records and reads that user's actions and views only, and any other \
            user's path answers 403. An 'app' token acts for every user and stays on trusted back \
            ends.
            """,
        examples: ["evtool token create --role user --user ada --tokens tokens.txt --name ada-iphone",
                   "evtool token create --role app --tokens tokens.txt --name app-backend"],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 1)
            guard arguments.positional.first == "create" else {
                throw CLIError.usage("the only token action is 'create'", arguments.command)
            }
            let role = try arguments.required(Self.role)
            let typedUser = try arguments.value(Self.tokenUser)
            if role == .user, typedUser == nil {
                throw CLIError.usage("'--role user' needs '--user ID': the user the token acts for", arguments.command)
            }
            if role != .user, typedUser != nil {
                throw CLIError.usage("'--user' is only for '--role user': an \(role.rawValue) token is not bound to a user", arguments.command)
            }
            var user: String?
            if let typedUser {
                do throws(TokenFile.FileError) {
                    user = try TokenFile.userID(typedUser)
                } catch {
                    throw CLIError.usage("'--user': \(error.description)", arguments.command)
                }
            }
            let path = try arguments.required("tokens")
            let name = arguments.value("name") ?? ""
            guard !name.contains("\n"), !name.contains("\r") else {
                throw CLIError.usage("'--name' must be one line", arguments.command)
            }
            let token = TokenFile.newToken()
            do throws(TokenFile.FileError) {
                try TokenFile.append(token: token, role: role, user: user, name: name, to: path)
            } catch {
                throw CLIError(message: "\(error)", code: ExitCode(fileError: error.errorNumber))
            }
            try console.output(token)
            let bound = user.map { " for user '\($0)'" } ?? ""
            console.message("token: added a token with role \(role.rawValue)\(bound) to \(path); it is shown only now")
        })

    /// Writes a line to standard error in one call (audit lines of concurrent requests do not
    /// mix); a closed standard error drops it (``HTTPServer/RequestLog/write(_:)``).
    @Sendable static func writeStandardError(_ line: String) { RequestLog.write(line) }
}
