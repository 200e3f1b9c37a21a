/// `evtool version` (and `evtool --version`): the release, commit, libraries and schemas.
enum VersionCommand {
    static let spec = CommandSpec(
        name: "version", summary: "Show evtool's version, the commit it was built from, its SQLite and libpq, the schema versions it writes and the PostgreSQL layouts",
        usage: "[--json]",
        options: [.init(name: "json", value: nil, help: "Print one JSON object")],
        examples: ["evtool version", "evtool --version", "evtool version --json | jq -r .commit"],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 0)
            try console.output(arguments.flag("json") ? EvtoolVersion.json : EvtoolVersion.text)
        })
}
