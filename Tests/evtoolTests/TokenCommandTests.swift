import Foundation
import TestSupport
import Testing

/// `evtool token create --role user --user ID`: a token bound to one user; `--user` is required
/// for that role and refused for the others (usage errors, exit 64, nothing written); help,
/// completions and the man page name the role and the option.
@Suite("evtool token")
struct TokenCommandTests {
    @Test("--role user --user ID adds a user line, the id in NFC and percent-encoded, and prints the token once")
    func createsAUserToken() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = directory.path + "/tokens.txt"
        let made = try CLI.bare("token", "create", "--role", "user", "--user", "jose\u{301} m:1", "--tokens", path, "--name", "josé's phone")
        #expect(made.status == 0, "\(made)")
        let token = made.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.hasPrefix("evt_") && token.count == 68, "\(made)")
        #expect(made.errors.contains("token: added a token with role user for user 'jos\u{E9} m:1' to \(path); it is shown only now"), "\(made)")
        let app = try CLI.bare("token", "create", "--role", "app", "--tokens", path)
        #expect(app.status == 0 && app.errors.contains("with role app to "), "\(app)")
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2, "\(lines)")
        #expect(lines[0].hasPrefix("user:jos%C3%A9%20m%3A1 ") && lines[0].hasSuffix(" josé's phone") && !lines[0].contains(token), "\(lines)")
        #expect(lines[1].hasPrefix("app ") && lines[1].split(separator: " ").count == 2, "\(lines)")
    }

    @Test("--user is required for role user and refused for the others: usage errors, exit 64, nothing written", arguments: [
        (["--role", "user"], "'--role user' needs '--user ID'"),
        (["--role", "app", "--user", "ada"], "'--user' is only for '--role user'"),
        (["--role", "auditor", "--user", "ada"], "'--user' is only for '--role user'"),
        (["--role", "admin", "--user", "ada"], "'--user' is only for '--role user'"),
        (["--role", "user", "--user", ""], "'--user': user id must not be empty"),
        (["--role", "user", "--user", "a\u{200B}b"], "'--user': user id must not contain"),
        (["--role", "user", "--user", "$erasures"], "'--user': user id '$erasures' is reserved"),
        (["--role", "users", "--user", "ada"], "'--role' must be one of app, user, auditor, admin"),
    ])
    func refusals(arguments: [String], message: String) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = directory.path + "/tokens.txt"
        let refused = try Processes.run(Processes.evtool, ["token", "create"] + arguments + ["--tokens", path])
        #expect(refused.status == 64 && refused.errors.hasPrefix("Error: ") && refused.errors.contains(message), "\(refused)")
        #expect(refused.errors.contains("Usage: evtool token create --role app|user|auditor|admin [--user ID] --tokens FILE [--name NAME]"), "\(refused)")
        #expect(refused.output.isEmpty, "no token shown: \(refused)")
        #expect(!FileManager.default.fileExists(atPath: path), "nothing written")
    }

    @Test("help, completions and the man page name the user role and --user")
    func documented() throws {
        let help = try CLI.bare("token", "--help")
        #expect(help.status == 0 && help.output.contains("--user ID") && help.output.contains("user (one user's phone app"), "\(help.output)")
        #expect(help.output.contains("evtool token create --role user --user ada --tokens tokens.txt"), "\(help.output)")
        let bash = try CLI.bare("completions", "bash")
        #expect(bash.status == 0 && bash.output.contains("'app' 'user' 'auditor' 'admin'"), "the role's values")
        let man = try CLI.bare("man")
        #expect(man.status == 0 && man.output.contains(#"create \-\-role app|user|auditor|admin [\-\-user ID]"#))
    }
}
