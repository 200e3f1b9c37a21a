import EvtoolClient
import Foundation

// The client process the tests start and kill (EvtoolClientTests):
//
//   ClientDriver SERVER TOKEN USER FILE record COUNT   records COUNT actions (favorites of
//                                                       L0…, with a search every third one)
//   ClientDriver SERVER TOKEN USER FILE sync           syncs with patient retries; prints one
//                                                       line per sent action ("sent SEQ
//                                                       replayed=BOOL"), exits 0 when the
//                                                       outbox is empty, 1 otherwise
let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 5, let server = URL(string: arguments[0]) else {
    print("usage: ClientDriver SERVER TOKEN USER FILE record COUNT|sync")
    exit(64)
}
do {
    let client = try EvtoolClient(.init(server: server, token: arguments[1], user: arguments[2], databasePath: arguments[3],
                                        source: "client-driver", retry: .init(attempts: 200, initialDelay: 0.05, maximumDelay: 0.3)))
    switch arguments[4] {
    case "record":
        let count = Int(arguments.count > 5 ? arguments[5] : "1") ?? 1
        for index in 0..<count {
            if index % 3 == 2 {
                try client.record(.search(Search(keyword: "k\(index)", place: .named("Los Angeles"))))
            } else {
                try client.record(.favorite(listingID: "L\(index)", summary: ListingSummary(name: "N\(index)", venue: "V", localDateTime: "2026-12-05 19:30:00", category: "Music")))
            }
        }
        print("recorded \(count)")
    case "sync":
        let report = await client.sync()
        for sent in report.sent { print("sent \(sent.action.sequence) replayed=\(sent.replayed)") }
        for refused in report.refused { print("refused \(refused.sequence) \(refused.problem)") }
        if let stopped = report.stopped { print("stopped \(stopped)") }
        print("remaining \(report.remaining)")
        exit(report.remaining == 0 && report.stopped == nil ? 0 : 1)
    default:
        print("unknown command \(arguments[4])")
        exit(64)
    }
} catch {
    print("error \(error)")
    exit(1)
}
