import Foundation

// Data on stdout is written in large blocks; a closed pipe (e.g. `| head`) ends us quietly.
signal(SIGPIPE, SIG_IGN)
var console = Console.standard
let code = Evtool.run(Array(CommandLine.arguments.dropFirst()), console: &console)
exit(code.rawValue)
