/// `evtool man`: the man page in roff, from the same declarations as the help.
enum ManCommand {
    static let spec = CommandSpec(
        name: "man", summary: "Print evtool's man page (roff); read it with 'evtool man | man -l -'",
        usage: "", options: [],
        examples: ["evtool man | man -l -", "evtool man > ~/.local/share/man/man1/evtool.1"],
        run: { arguments, console in
            try arguments.expectPositional(atMost: 0)
            let page = ManPage.page(commands: Evtool.commands)
            try console.output(String(page.dropLast(page.hasSuffix("\n") ? 1 : 0)))
        })
}
