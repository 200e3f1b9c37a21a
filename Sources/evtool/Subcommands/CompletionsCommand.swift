import EventLog
/// `evtool completions bash|zsh|fish`: a shell completion script from the declarations.
enum CompletionsCommand {
    static let spec = CommandSpec(
        name: "completions", summary: "Print a shell completion script for bash, zsh or fish",
        usage: "bash|zsh|fish",
        arguments: [("SHELL", "bash, zsh or fish")],
        options: [],
        examples: ["source <(evtool completions bash)", "evtool completions zsh > ~/.zsh/completions/_evtool",
                   "evtool completions fish > ~/.config/fish/completions/evtool.fish"],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 1)
            guard let shell = arguments.positional.first else { throw CLIError.usage("name the shell: bash, zsh or fish", arguments.command) }
            guard let script = CompletionScript.script(for: shell, commands: Evtool.commands) else {
                let suggestion = EditDistance.nearest(to: shell, among: CompletionScript.shells).map { "; did you mean '\($0)'?" } ?? ""
                throw CLIError.usage("no completions for the shell '\(shell)': give bash, zsh or fish\(suggestion)", arguments.command)
            }
            try console.output(String(script.dropLast(script.hasSuffix("\n") ? 1 : 0)))
        })
}
