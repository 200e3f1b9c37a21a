import Foundation
import EventLog
import StoreLocations

/// evtool's exit codes (after BSD's sysexits.h), documented in `evtool --help` and docs/reference/exit-codes.md.
enum ExitCode: Int32 {
    /// Everything went as asked.
    case ok = 0
    /// Anything not listed below.
    case failure = 1
    /// The command line is wrong: unknown command or option, missing or malformed value.
    case usage = 64
    /// The data is invalid: a rejected command, a malformed import line, a damaged store.
    case invalidData = 65
    /// verify: the store is not an evtool store (another file, another application's database).
    case notAStore = 66
    /// verify and seal: the store holds nothing to verify (no events, no seals), most likely
    /// the wrong store; not 0, so that a script checking an audit trail does not pass on it.
    case emptyStore = 67
    /// verify and seal: the store is a copy that `migrate` has not finished, holding tombstones
    /// before the erasure's record it has not copied yet; the message names the `migrate` that
    /// completes it. Not 0 (it is not a whole log) and not 65 (nothing was tampered with).
    case incompleteCopy = 68
    /// The store cannot be reached or opened, or (other than for verify) needs a newer evtool.
    case unavailable = 69
    /// Standard output refused a write (a full disk, a closed stream, an I/O error), or
    /// input could not be read (EX_IOERR). A command that recorded something before its
    /// output failed has recorded it; only the report of it was lost.
    case ioError = 74
    /// A concurrency conflict that retries did not resolve.
    case conflict = 75
    /// The store refused for lack of a privilege (EX_NOPERM): a PostgreSQL role without the
    /// grant, an SQLite file or folder this user may not read or write.
    case noPermission = 77
    /// verify: the store was written by a newer evtool, whose schema this one cannot check
    /// (EX_CONFIG: this evtool does not match the store).
    case newerSchema = 78
    /// Stopped by Ctrl-C at a batch boundary; rerunning the command resumes.
    case interrupted = 130

    /// The exit code for a store error.
    init(_ error: EventStoreError) {
        switch error {
        case .invalidInput, .duplicateEventID, .corrupt: self = .invalidData
        case .unavailable, .newerSchema, .outcomeUnknown: self = .unavailable
        case .wrongExpectedVersion: self = .conflict
        case .permissionDenied: self = .noPermission
        }
    }

    /// The exit code of a file evtool writes (a tokens file, a key folder): no permission (77)
    /// for EACCES and EPERM, an I/O error (74) for another system error, invalid data (65)
    /// when there was none: the file is refused for what it is (not a tokens file, a key
    /// already there).
    init(fileError errorNumber: Int32?) {
        switch errorNumber {
        case nil: self = .invalidData
        case EACCES?, EPERM?: self = .noPermission
        default: self = .ioError
        }
    }

    static let documentation = """
        EXIT CODES:
          0   ok
          1   anything else
          64  usage error (unknown command or option, missing or malformed value)
          65  invalid data (rejected command, malformed input line, damaged store);
              verify: the log fails verification (an event or seal modified, deleted,
              inserted or reordered)
          66  verify: not an evtool store
          67  verify, seal: the store holds no events (nothing to verify)
          68  verify, seal: an incomplete copy (a migrate that stopped before it copied an
              erasure's record); the message names the migrate that completes it
          69  store unavailable (cannot connect or open, or written by a newer evtool);
              a read of a missing or empty store (reads never create one)
          74  I/O error: standard output refused a write (disk full, closed), or input
              could not be read; a closed pipe (evtool log | head) ends quietly with 0
          75  concurrency conflict after retries
          77  permission denied (a PostgreSQL role without the privilege, an SQLite
              file or folder this user may not read or write)
          78  verify: the store was written by a newer evtool
          130 interrupted by Ctrl-C at a batch boundary (rerun to resume)
        """
}

/// A failure the command line reports as `Error: …` with its exit code.
struct CLIError: Error {
    var message: String
    var code: ExitCode
    /// For usage errors: the command whose usage line and help pointer to print.
    var command: CommandSpec?
    /// The option (without dashes) or input field the error is about, when known (`--json` errors carry it).
    var field: String? = nil
    /// The input line the error is about, when known (`--json` errors carry it).
    var line: Int? = nil

    static func usage(_ message: String, _ command: CommandSpec?) -> CLIError {
        CLIError(message: message, code: .usage, command: command)
    }
}

extension CLIError {
    /// The command line's report of a store location that cannot be used: a malformed one is
    /// a usage error (64), a store that cannot do what was asked is unavailable (69).
    init(_ error: StoreLocationError) {
        switch error {
        case let .invalidLocation(message): self = .usage(message, nil)
        case let .unsupported(message): self.init(message: message, code: .unavailable)
        }
    }
}
