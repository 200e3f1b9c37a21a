// A libFuzzer target for the import line parser: `LogRecord.parse` (evtool) and the
// `JSONSyntax` checks under it (EventLog). Built and run by scripts/fuzz.sh, which compiles it
// with -sanitize=fuzzer together with the evtool sources the parser needs.
//
// Each input is one import line. The parser must never trap, hang or run out of memory,
// and two invariants must hold:
//   - a line the parser accepts is one valid JSON value by JSONSyntax's own full check;
//   - an accepted event passes the stores' AppendValidation or is refused with an
//     EventStoreError (never anything else).
import EventLog
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImportLine(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let line = start.map { Data(bytes: $0, count: count) } ?? Data()
    let problem = JSONSyntax.problem(in: line)
    if let imported = try? LogRecord.parse(line) {
        precondition(problem == nil, "the parser accepted a line JSONSyntax calls malformed: \(problem ?? "")")
        do {
            try AppendValidation.validate([imported.event], stream: imported.stream)
        } catch is EventStoreError {
            // Refused cleanly, as an append would be.
        } catch {
            preconditionFailure("validation threw \(error)")
        }
    }
    return 0
}
