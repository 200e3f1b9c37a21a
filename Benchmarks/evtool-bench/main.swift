import Foundation

// Figures go to stdout as they are measured; a closed pipe (e.g. `| head`) ends us quietly.
signal(SIGPIPE, SIG_IGN)
var console = Console()
let code = BenchCommand.main(Array(CommandLine.arguments.dropFirst()), console: &console)
exit(code.rawValue)
