import Foundation

/// Shell completion scripts for bash, zsh and fish, written from the commands' declarations
/// (``CommandSpec``): subcommand names, each command's options (long and short), and for an
/// option's value a file name, a folder or one of its words (``OptionCompletion``).
enum CompletionScript {
    /// The shells `evtool completions` writes a script for.
    static let shells = ["bash", "zsh", "fish"]

    /// What a command's positional arguments complete to.
    static func positionalWords(_ command: CommandSpec) -> [String]? {
        switch command.name {
        case "help": return Evtool.commands.map(\.name)
        case "completions": return shells
        case "rebuild": return OperateCommands.viewNames
        case "keys": return ["create"]
        case "roles": return ["sql"]
        default: return nil
        }
    }

    /// The script for `shell` (one of ``shells``).
    static func script(for shell: String, commands: [CommandSpec]) -> String? {
        switch shell {
        case "bash": return bash(commands)
        case "zsh": return zsh(commands)
        case "fish": return fish(commands)
        default: return nil
        }
    }

    // MARK: - bash

    /// `text` in single quotes for sh.
    static func shellQuoted(_ text: String) -> String { "'" + text.replacingAll("'", with: #"'\''"#) + "'" }

    static func bash(_ commands: [CommandSpec]) -> String {
        func words(_ list: [String]) -> String { list.map(shellQuoted).joined(separator: " ") }
        var text = """
            # bash completion for evtool, written by 'evtool completions bash' (evtool \(EvtoolVersion.number)).
            # Load it with:  source <(evtool completions bash)
            # or install it: evtool completions bash > ~/.local/share/bash-completion/completions/evtool

            # Offers each of the words after the first that starts with it, quoted for the line.
            _evtool_words() {
                local cur=$1 word
                shift
                COMPREPLY=()
                for word in "$@"; do
                    if [[ $word == "$cur"* ]]; then COMPREPLY+=("$(printf '%q' "$word")"); fi
                done
            }

            _evtool_files() {
                compopt -o filenames 2>/dev/null
                local IFS=$'\\n'
                COMPREPLY=($(compgen -f -- "$1"))
            }

            _evtool_folders() {
                compopt -o filenames 2>/dev/null
                local IFS=$'\\n'
                COMPREPLY=($(compgen -d -- "$1"))
            }

            _evtool() {
                local cur=${COMP_WORDS[COMP_CWORD]}
                local prev=
                if [[ $COMP_CWORD -gt 0 ]]; then prev=${COMP_WORDS[COMP_CWORD-1]}; fi
                if [[ $COMP_CWORD -le 1 ]]; then
                    _evtool_words "$cur" \(words(commands.map(\.name) + ["--help", "-h", "--version", "-V"]))
                    return 0
                fi
                case ${COMP_WORDS[1]} in

            """
        for command in commands {
            let options = command.allOptions
            text += "        \(command.name))\n"
            text += "            case $prev in\n"
            for option in options where option.value != nil {
                let spellings = (["--\(option.name)"] + (option.short.map { ["-\($0)"] } ?? [])).joined(separator: "|")
                switch option.completion {
                case .file: text += "                \(spellings)) _evtool_files \"$cur\"; return 0 ;;\n"
                case .directory: text += "                \(spellings)) _evtool_folders \"$cur\"; return 0 ;;\n"
                case let .values(list): text += "                \(spellings)) _evtool_words \"$cur\" \(words(list)); return 0 ;;\n"
                case .none: text += "                \(spellings)) COMPREPLY=(); return 0 ;;\n"
                }
            }
            text += "            esac\n"
            let optionWords = options.flatMap { ["--\($0.name)"] + ($0.short.map { ["-\($0)"] } ?? []) }
            if let positional = positionalWords(command) {
                text += "            if [[ $cur != -* ]]; then _evtool_words \"$cur\" \(words(positional)); return 0; fi\n"
            }
            text += "            if [[ $cur == -* || -z $cur ]]; then _evtool_words \"$cur\" \(words(optionWords)); fi\n"
            text += "            ;;\n"
        }
        text += """
                esac
                return 0
            }

            complete -o default -F _evtool evtool

            """
        return text
    }

    // MARK: - zsh

    /// Text inside a zsh `_arguments` spec in single quotes: `[`, `]` and `:` escaped.
    static func zshEscaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "'": result += #"'\''"#
            case "[", "]", ":", "\\": result += "\\" + String(character)
            default: result.append(character)
            }
        }
        return result
    }

    static func zsh(_ commands: [CommandSpec]) -> String {
        var text = """
            #compdef evtool
            # zsh completion for evtool, written by 'evtool completions zsh' (evtool \(EvtoolVersion.number)).
            # Install it as _evtool in a folder of $fpath, e.g.:
            #   evtool completions zsh > ~/.zsh/completions/_evtool   (with fpath=(~/.zsh/completions $fpath))

            _evtool() {
                local -a subcommands
                subcommands=(

            """
        for command in commands {
            text += "        '\(zshEscaped(command.name)):\(zshEscaped(command.summary))'\n"
        }
        text += """
                )
                if (( CURRENT == 2 )); then
                    _describe -t commands 'evtool subcommand' subcommands
                    return
                fi
                local subcommand=$words[2]
                shift words
                (( CURRENT-- ))
                case $subcommand in

            """
        for command in commands {
            text += "        \(command.name))\n            _arguments -s \\\n"
            for option in command.allOptions {
                let help = zshEscaped(option.help)
                let repeated = option.repeatable ? "*" : ""
                var action = ""
                if let placeholder = option.value {
                    switch option.completion {
                    case .file: action = ":\(zshEscaped(placeholder)):_files"
                    case .directory: action = ":\(zshEscaped(placeholder)):_files -/"
                    case let .values(list):
                        action = ":\(zshEscaped(placeholder)):(" + list.map { zshEscaped($0).replacingAll(" ", with: "\\ ") }.joined(separator: " ") + ")"
                    case .none: action = ":\(zshEscaped(placeholder)): "
                    }
                }
                text += "                '\(repeated)--\(option.name)[\(help)]\(action)' \\\n"
                if let short = option.short { text += "                '\(repeated)-\(short)[\(help)]\(action)' \\\n" }
            }
            if let positional = positionalWords(command) {
                text += "                '*:argument:(\(positional.map(zshEscaped).joined(separator: " ")))'\n"
            } else if !command.arguments.isEmpty {
                text += "                '*:argument:_files'\n"
            } else {
                text += "                \n"
            }
            text += "            ;;\n"
        }
        text += """
                esac
            }

            _evtool "$@"

            """
        return text
    }

    // MARK: - fish

    /// `text` in single quotes for fish (`\\` and `\\'` escaped).
    static func fishQuoted(_ text: String) -> String {
        "'" + text.replacingAll("\\", with: "\\\\").replacingAll("'", with: "\\'") + "'"
    }

    static func fish(_ commands: [CommandSpec]) -> String {
        var text = """
            # fish completion for evtool, written by 'evtool completions fish' (evtool \(EvtoolVersion.number)).
            # Install it with: evtool completions fish > ~/.config/fish/completions/evtool.fish
            complete -c evtool -f
            complete -c evtool -n __fish_use_subcommand -l help -s h -d 'Show the overview'
            complete -c evtool -n __fish_use_subcommand -l version -d 'Show the version'

            """
        for command in commands {
            text += "complete -c evtool -n __fish_use_subcommand -a \(command.name) -d \(fishQuoted(command.summary))\n"
        }
        for command in commands {
            let seen = fishQuoted("__fish_seen_subcommand_from \(command.name)")
            for option in command.allOptions {
                var line = "complete -c evtool -n \(seen) -l \(option.name)"
                if let short = option.short { line += " -s \(short)" }
                if option.value != nil {
                    switch option.completion {
                    case .file: line += " -r -F"
                    case .directory: line += " -r -a '(__fish_complete_directories)'"
                    case let .values(list): line += " -x -a " + fishQuoted(list.map { $0.replacingAll(" ", with: "\\ ") }.joined(separator: " "))
                    case .none: line += " -x"
                    }
                }
                text += line + " -d " + fishQuoted(option.help) + "\n"
            }
            if let positional = positionalWords(command) {
                text += "complete -c evtool -n \(seen) -a \(fishQuoted(positional.joined(separator: " ")))\n"
            } else if !command.arguments.isEmpty {
                text += "complete -c evtool -n \(seen) -F\n"
            }
        }
        return text
    }
}

extension String {
    /// The string with every `target` replaced by `replacement`.
    func replacingAll(_ target: String, with replacement: String) -> String {
        components(separatedBy: target).joined(separator: replacement)
    }
}
