import Foundation
import TestSupport

/// Runs the built `evtool` binary against one store.
struct CLI {
    let store: String
    let directory: String

    /// `evtool ARGS --store STORE`, with optional standard input.
    func run(_ arguments: String..., input: String? = nil) throws -> Processes.Result {
        try Processes.run(Processes.evtool, arguments + ["--store", store], input: input)
    }

    /// `evtool ARGS` with no store option (help, usage errors, migrate).
    static func bare(_ arguments: String..., input: String? = nil, environment: [String: String]? = nil) throws -> Processes.Result {
        try Processes.run(Processes.evtool, arguments, input: input, environment: environment)
    }

    /// Writes a file in the test's folder and returns its path.
    func file(_ name: String, _ contents: String) throws -> String {
        let path = directory + "/" + name
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}

enum Samples {
    static let details = """
        {"listingID":"L7","info":{"name":"Hamilton","artistsOrTeams":[],"venue":"Pantages Theatre","localDateTime":"2026-12-05 19:30:00",
         "category":"Arts & Theatre","genres":["Musical"],"priceRange":{"minimum":79,"maximum":399,"currency":"USD"},"ticketStatus":"onsale",
         "ticketLink":"https://tickets.example/L7"},"upcomingEvents":[{"name":"Wicked","localDateTime":"2027-01-03 19:30:00"}]}
        """
}
