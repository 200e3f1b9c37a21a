import EvtoolKit
import Foundation

/// What ``API/prepareWrite(_:)`` made of a write request.
package enum WritePreparation: Sendable {
    /// Its answer already (not found, unauthorized, a malformed body …), without the store.
    case answered(HTTPResponse)
    /// A user action to record: ``API/start(_:mayRead:completion:)`` or ``API/finish(_:)``.
    case write(PreparedWrite)
    /// Not a user action (an admin operation): answer it with ``API/respond(to:)``.
    case other
}

/// What ``API/start(_:mayRead:completion:)`` did.
package enum StartedWrite: Sendable {
    /// The completion will be called exactly once.
    case started
    /// Its answer already (a broken rule, a store failure while reading); no completion.
    case answered(HTTPResponse)
    /// It could not start without waiting: answer it with ``API/finish(_:)``; no completion.
    case declined
}

extension API {
    /// Routes, authenticates, authorizes and decodes a write request without the store, so the
    /// server can choose where to record it.
    package func prepareWrite(_ request: HTTPRequest) -> WritePreparation {
        let started = ContinuousClock.now
        var routeName = "unmatched"
        do {
            let (route, match) = try self.match(request, routeName: &routeName)
            guard let command = try command(route: route.name, match) else { return .other }
            var write = try prepare(command, match)
            write.route = route.name
            write.started = started
            return .write(write)
        } catch {
            let response = Self.problem(for: error).response
            metrics.observe(route: routeName, status: response.status, duration: ContinuousClock.now - started)
            return .answered(response)
        }
    }

    /// Starts recording a prepared write without waiting for its commit
    /// (``Application/start(_:context:requiredVersion:mayRead:completion:)``): `completion` is
    /// then called on the store's committing thread with the answer, or with nil when the
    /// write must be answered with ``finish(_:)`` on a thread that may wait (nothing of it was
    /// written). `completion` must not wait for the store.
    /// - Parameter mayRead: whether this thread may read the user's stream first (false on a
    ///   connection thread: only a cached user's write starts there).
    package func start(_ write: PreparedWrite, mayRead: Bool, completion: @escaping @Sendable (HTTPResponse?) -> Void) -> StartedWrite {
        guard write.readsFirst == nil else { return .declined }
        do {
            let started = try application.start(write.command, context: write.context, requiredVersion: write.requiredVersion,
                                                mayRead: mayRead) { [self] outcome in
                switch outcome {
                case .recordAgain:
                    completion(nil)
                case .finished(let result):
                    let response: HTTPResponse
                    switch result {
                    case .success(let recorded): response = recordedResponse(recorded, command: write.command)
                    case .failure(let error): response = Self.problem(for: error).response
                    }
                    observe(write, response)
                    completion(response)
                }
            }
            return started ? .started : .declined
        } catch {
            let response = Self.problem(for: error).response
            observe(write, response)
            return .answered(response)
        }
    }

    /// Records a prepared write, waiting for its commit (and for its retries), and answers it
    /// as ``respond(to:)`` would.
    package func finish(_ write: PreparedWrite) -> HTTPResponse {
        let response: HTTPResponse
        do {
            let recorded = try application.record(write.command, context: write.context, requiredVersion: try requiredVersion(write))
            response = recordedResponse(recorded, command: write.command)
        } catch {
            response = Self.problem(for: error).response
        }
        observe(write, response)
        return response
    }

    private func observe(_ write: PreparedWrite, _ response: HTTPResponse) {
        metrics.observe(route: write.route, status: response.status, duration: ContinuousClock.now - write.started)
    }
}
