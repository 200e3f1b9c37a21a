import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request to the server and its answer, through URLSession with no cache of its own
/// (the client keeps its own, with `If-None-Match`).
struct HTTPTransport: Sendable {
    /// An answer: status, headers by lower-cased name, body.
    struct Answer: Sendable {
        var status: Int
        var headers: [String: String]
        var body: Data

        func header(_ name: String) -> String? { headers[name.lowercased()] }
        var problem: Problem { Problem(status: status, body: body) }
    }

    let server: URL
    let token: String
    let session: URLSession
    let timeout: TimeInterval

    init(server: URL, token: String, timeout: TimeInterval) {
        self.server = server
        self.token = token
        self.timeout = timeout
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = timeout
        session = URLSession(configuration: configuration)
    }

    /// A path segment percent-encoded (a `/` in an id included).
    static func segment(_ text: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/;?#%")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// The request for `path` (already encoded), with the token and `headers`.
    func request(_ method: String, _ path: String, headers: [String: String] = [:], body: Data? = nil) -> URLRequest {
        var request = URLRequest(url: URL(string: server.absoluteString.trimmingSuffix("/") + path) ?? server)
        request.httpMethod = method
        request.timeoutInterval = timeout
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        return request
    }

    /// Sends a request; a network failure is ``ClientError/unreachable(_:)``.
    func send(_ method: String, _ path: String, headers: [String: String] = [:], body: Data? = nil) async throws(ClientError) -> Answer {
        let request = request(method, path, headers: headers, body: body)
        let data: Data, response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw ClientError.unreachable((error as NSError).localizedDescription)
        }
        guard let http = response as? HTTPURLResponse else { throw ClientError.unreachable("the answer was not HTTP") }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return Answer(status: http.statusCode, headers: headers, body: data)
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        var text = self
        while text.hasSuffix(suffix) { text.removeLast(suffix.count) }
        return text
    }
}
