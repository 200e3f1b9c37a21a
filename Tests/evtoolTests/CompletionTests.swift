import Foundation
import TestSupport
import Testing

/// `evtool completions bash|zsh|fish` and `evtool man`, from the same declarations as the help.
@Suite("evtool: shell completions and the man page")
struct CompletionTests {
    /// The bash script, written to a file.
    static func bashScript(_ directory: TemporaryDirectory) throws -> String {
        let result = try CLI.bare("completions", "bash")
        #expect(result.status == 0, "\(result)")
        let path = directory.path + "/evtool.bash"
        try result.output.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// What bash's completion function offers for `words`, the last being the word under the cursor.
    static func complete(_ script: String, _ words: [String]) throws -> [String] {
        let array = words.map { "'" + $0.replacingOccurrences(of: "'", with: #"'\''"#) + "'" }.joined(separator: " ")
        let program = """
            source '\(script)' || exit 3
            COMP_WORDS=(\(array)); COMP_CWORD=\(words.count - 1); COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
            _evtool evtool "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}" || exit 4
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = try Processes.run("/bin/bash", ["--norc", "--noprofile", "-c", program])
        #expect(result.status == 0, "\(result)")
        return result.output.split(separator: "\n").map(String.init)
    }

    @Test("the bash script parses (bash -n) and completes subcommands, options and their values")
    func bash() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let script = try Self.bashScript(directory)
        let syntax = try Processes.run("/bin/bash", ["-n", script])
        #expect(syntax.status == 0, "\(syntax)")

        #expect(try Self.complete(script, ["evtool", "fav"]) == ["favorite", "favorites"])
        #expect(try Self.complete(script, ["evtool", "favorites", "--us"]) == ["--user"])
        #expect(try Self.complete(script, ["evtool", "export", "--format", ""]) == ["jsonl", "cloudevents"])
        #expect(try Self.complete(script, ["evtool", "search", "--category", "Ar"]) == [#"Arts\ \&\ Theatre"#])
        #expect(try Self.complete(script, ["evtool", "completions", ""]) == ["bash", "zsh", "fish"])
        #expect(try Self.complete(script, ["evtool", "rebuild", "fav"]) == ["favorites"])
        #expect(try Self.complete(script, ["evtool", "rebuild", "--q"]) == ["--quiet"])
        // A value that is free text gets nothing offered (not the options).
        #expect(try Self.complete(script, ["evtool", "favorites", "--user", ""]) == [])
        // File names for a file option.
        try "x".write(toFile: directory.path + "/backup-1.jsonl", atomically: true, encoding: .utf8)
        #expect(try Self.complete(script, ["evtool", "export", "--store", directory.path + "/back"]) == [directory.path + "/backup-1.jsonl"])
        // Every subcommand of the help is offered.
        let all = try Self.complete(script, ["evtool", ""])
        for name in try HelpConventionTests.subcommands() { #expect(all.contains(name), "\(name)") }
    }

    /// A shell's path when it is installed (zsh and fish are not installed for the tests).
    static func installed(_ shell: String) -> String? {
        ["/usr/bin/", "/bin/", "/usr/local/bin/"].map { $0 + shell }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    @Test("the zsh and fish scripts: checked by the shell when it is installed, else by their text")
    func zshAndFish() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for shell in ["zsh", "fish"] {
            let result = try CLI.bare("completions", shell)
            #expect(result.status == 0)
            let path = directory.path + "/evtool.\(shell)"
            try result.output.write(toFile: path, atomically: true, encoding: .utf8)
            if let binary = Self.installed(shell) {
                let syntax = try Processes.run(binary, ["-n", path])
                #expect(syntax.status == 0, "\(shell): \(syntax)")
            }
            for name in try HelpConventionTests.subcommands() { #expect(result.output.contains(name), "\(shell): \(name)") }
        }
        let zsh = try CLI.bare("completions", "zsh").output
        #expect(zsh.hasPrefix("#compdef evtool\n"))
        #expect(zsh.contains("        'favorites:Show a user\\'s favorites, in the order added'\n") || zsh.contains("        'favorites:Show a user'\\''s favorites, in the order added'\n"))
        #expect(zsh.contains("'--format[jsonl (default\\: every field, payloads byte for byte) or cloudevents (CloudEvents 1.0 JSON, one per line)]:F:(jsonl cloudevents)'"))
        #expect(zsh.contains("'*--type[Only events of this type (Searched, Favorited, Unfavorited, DetailsViewed); repeatable]:T:(Searched Favorited Unfavorited DetailsViewed)'"))
        #expect(zsh.contains("'--store[sqlite\\:PATH, a file path, or a postgres\\://"))
        let fish = try CLI.bare("completions", "fish").output
        #expect(fish.contains("complete -c evtool -n __fish_use_subcommand -a favorites -d 'Show a user\\'s favorites, in the order added'\n"))
        #expect(fish.contains("complete -c evtool -n '__fish_seen_subcommand_from export' -l format -x -a 'jsonl cloudevents' -d "))
        #expect(fish.contains("complete -c evtool -n '__fish_seen_subcommand_from rebuild' -l quiet -s q -d "))

        let unknown = try CLI.bare("completions", "bsh")
        #expect(unknown.status == 64)
        #expect(unknown.errors.hasPrefix("Error: no completions for the shell 'bsh': give bash, zsh or fish; did you mean 'bash'?\n"))
    }

    @Test("evtool man renders with man -l: every subcommand and option, the exit codes")
    func manPage() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let page = try CLI.bare("man")
        #expect(page.status == 0)
        #expect(page.output.hasPrefix(".TH EVTOOL 1 "))
        let path = directory.path + "/evtool.1"
        try page.output.write(toFile: path, atomically: true, encoding: .utf8)
        // man must be there (scripts/bootstrap.sh installs man-db): a missing one fails the test.
        let man = try #require(["/usr/bin/man", "/bin/man"].first { FileManager.default.isExecutableFile(atPath: $0) },
                               "man is not installed: run scripts/bootstrap.sh (it installs man-db)")
        let rendered = try Processes.run(man, ["-l", path], environment: ["MANWIDTH": "100", "MANPAGER": "cat", "PAGER": "cat"])
        #expect(rendered.status == 0, "\(rendered)")
        #expect(!rendered.errors.contains("warning"), "\(rendered.errors)")
        // Without a terminal man prints plain text; overstrikes (bold as "e\u{8}e") are removed all the same.
        let text = rendered.output.replacingOccurrences(of: ".\u{8}", with: "", options: .regularExpression)
        #expect(text.hasPrefix("EVTOOL(1)"), "\(text.prefix(200))")
        for name in try HelpConventionTests.subcommands() { #expect(text.contains("evtool \(name)"), "\(name)") }
        for option in ["--as-of POSITION|TIME", "-q, --quiet", "-h, --help", "--format F", "--user ID"] { #expect(text.contains(option), "\(option)") }
        #expect(text.contains("EXIT STATUS"))
        #expect(text.contains("64  usage error"))
    }
}
