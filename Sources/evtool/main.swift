import Foundation

// First, before anything opens a file: a closed standard stream is filled with a descriptor
// that refuses reads and writes, so no database file or socket can take its number.
_ = StandardStreams.closedAtStart

// Data on stdout is written in large blocks; a closed pipe (e.g. `| head`) ends us quietly.
signal(SIGPIPE, SIG_IGN)
// A parent may have started us with signals blocked (a thread's mask is inherited through
// fork and exec); Ctrl-C and SIGTERM must reach the batch-boundary handlers all the same.
var unblocked = sigset_t()
sigemptyset(&unblocked)
sigaddset(&unblocked, SIGINT)
sigaddset(&unblocked, SIGTERM)
sigprocmask(SIG_UNBLOCK, &unblocked, nil)
var console = Console.standard
let code = Evtool.run(RawArguments.process(), console: &console)
exit(code.rawValue)
