import Foundation
import TestSupport
import Testing

/// What the server sends besides answers (notices, warnings, debug messages) never reaches
/// evtool's standard error raw: a command that succeeds prints nothing there, one that fails
/// prints one `Error:` line. A server in immediate shutdown warns every session it cuts
/// ("WARNING: terminating connection due to immediate shutdown command"); a role or database
/// whose `client_min_messages` is `debug5` makes the server talk during every connection.
/// The second is the same class of fault, but it happens every time.
@Suite("evtool: PostgreSQL server messages stay off standard error")
struct PostgresNoticeTests {
    @Test("a role whose sessions log at debug5: init, append, stats, verify and a refused append print nothing raw on standard error")
    func chattyServer() throws {
        let base = try TestStores.postgresURL()
        let role = "evtool_chatty_" + UUID().uuidString.lowercased().prefix(8)
        let schema = TestStores.freshSchema()
        let created = try PostgresAuditTests.psql(base, "CREATE ROLE \(role) LOGIN SUPERUSER; ALTER ROLE \(role) SET client_min_messages = 'debug5';")
        try #require(created.status == 0, "\(created)")
        defer {
            TestStores.dropPostgres(url: base, schema: schema)
            if let dropped = try? PostgresAuditTests.psql(base, "DROP OWNED BY \(role) CASCADE; DROP ROLE IF EXISTS \(role);"), dropped.status != 0 {
                Issue.record("dropping \(role): \(dropped)")
            }
        }
        let url = base.replacingOccurrences(of: "://postgres@", with: "://\(role)@")
        try #require(url != base, "the test server's URL does not name the postgres user: \(base)")
        let store = url + (url.contains("?") ? "&" : "?") + "schema=" + schema
        // The fault is there: the server does talk to this role's sessions.
        let chatter = try Processes.run(Processes.psql, [url, "-X", "-q", "-A", "-t", "-c", "SELECT 1"])
        try #require(chatter.errors.contains("DEBUG:"), "the server sends this role no debug messages, so there is nothing to test: \(chatter)")

        for arguments in [["init"], ["append", "--stream", "s", "--type", "Note", "--data", "{}"], ["stats"], ["verify"]] {
            let result = try Processes.run(Processes.evtool, arguments + ["--store", store])
            #expect(result.status == 0 && result.errors.isEmpty, "\(arguments): \(result)")
        }
        let refused = try Processes.run(Processes.evtool, ["append", "--stream", "s", "--type", "Note", "--data", "{}", "--expected-version", "no-stream", "--store", store])
        #expect(refused.status == 75, "\(refused)")
        #expect(refused.errors.split(separator: "\n").count == 1 && refused.errors.hasPrefix("Error: "), "\(refused)")
    }
}
