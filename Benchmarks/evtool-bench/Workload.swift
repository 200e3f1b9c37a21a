import Commands
import EventLog
import Foundation
import Simulation

/// User-activity-shaped rows for the benchmarks: ~1,000 user streams; searches (~300 bytes),
/// favorites, unfavorites, and details views (~1 KB), each with ~200 bytes of audit metadata.
struct BenchRow {
    var stream: String
    var version: Int64
    var event: ProposedEvent
    /// The event id as text, prepared in advance for the raw baselines.
    var idText: String
}

enum Workload {
    static let categories = ["Music", "Sports", "Arts & Theatre", "Film", "Miscellaneous"]
    static let keywords = ["jazz", "taylor swift", "lakers", "hamilton", "film festival", "comedy night", "usc trojans", "opera", "indie rock", "food fair"]

    /// `count` rows, in batches of `batchSize` events to one stream each (batch i goes to
    /// user i mod `users`), versions numbered per stream. Deterministic for a seed.
    static func rows(count: Int, batchSize: Int, users: Int = 1_000, seed: UInt64 = 7) -> [BenchRow] {
        var generator = SplitMix64(seed: seed)
        var versions = [Int64](repeating: 0, count: users)
        var rows: [BenchRow] = []
        rows.reserveCapacity(count)
        var batch = 0
        // Event ids as the app makes them: time-ordered, one millisecond apart from a fixed start.
        var milliseconds: UInt64 = 1_796_000_000_000
        while rows.count < count {
            let user = batchSize == 1 ? Int.random(in: 0..<users, using: &generator) : batch % users
            let stream = "user-\(String(user).leftPadded(to: 5))"
            for _ in 0..<min(batchSize, count - rows.count) {
                versions[user] += 1
                let (type, data) = payload(using: &generator)
                milliseconds += 1
                let id = UUID.timeOrdered(milliseconds: milliseconds, using: &generator)
                let metadata = #"{"user":"\#(stream)","occurredAt":"2026-11-30T10:1\#(Int.random(in: 0...9, using: &generator)):00.000000Z","correlationId":"\#(UUID.random(using: &generator).lowercaseString)","causationId":null,"source":"app-server-\#(Int.random(in: 1...4, using: &generator))","requestId":"req-\#(generator.next() % 1_000_000_000)"}"#
                rows.append(BenchRow(
                    stream: stream, version: versions[user],
                    event: ProposedEvent(id: id, type: type, data: Data(data.utf8), metadata: Data(metadata.utf8)),
                    idText: id.lowercaseString))
            }
            batch += 1
        }
        return rows
    }

    static func listingID(using generator: inout SplitMix64) -> String {
        "G5v" + String(generator.next() % 100_000_000_000, radix: 36).leftPadded(to: 8)
    }

    static func payload(using generator: inout SplitMix64) -> (type: String, json: String) {
        let roll = Int.random(in: 0..<100, using: &generator)
        let listing = listingID(using: &generator)
        let category = categories[Int.random(in: 0..<categories.count, using: &generator)]
        switch roll {
        case 0..<50:
            let keyword = keywords[Int.random(in: 0..<keywords.count, using: &generator)]
            let ids = (0..<5).map { _ in "\"\(listingID(using: &generator))\"" }.joined(separator: ",")
            return ("Searched", #"{"schemaVersion":2,"keyword":"\#(keyword)","category":"\#(category)","distance":\#(Int.random(in: 1...50, using: &generator)),"units":"miles","location":{"kind":"current","latitude":34.0224,"longitude":-118.2851},"results":{"count":\#(Int.random(in: 0...20, using: &generator)),"listingIds":[\#(ids)]}}"#)
        case 50..<80:
            return ("Favorited", #"{"schemaVersion":1,"listingId":"\#(listing)","summary":{"name":"An Evening of \#(category) at the Bowl","venue":"Hollywood Bowl","localDate":"2026-12-0\#(Int.random(in: 1...9, using: &generator))","localTime":"19:30:00","category":"\#(category)"}}"#)
        case 80..<90:
            return ("Unfavorited", #"{"schemaVersion":1,"listingId":"\#(listing)"}"#)
        default:
            let upcoming = (0..<5).map { index in
                #"{"name":"Upcoming show \#(index)","artist":"Artist \#(index)","dateTime":"2026-12-1\#(index)T20:00:00","type":"\#(category)","link":"https://tickets.example/e/\#(listingID(using: &generator))"}"#
            }.joined(separator: ",")
            return ("DetailsViewed", #"{"schemaVersion":1,"listingId":"\#(listing)","details":{"info":{"artists":["The Midnight Trio"],"venue":"Hollywood Bowl","dateTime":"2026-12-04T19:30:00","genre":"\#(category) | Jazz","priceRange":"35.00 - 120.00 USD","ticketStatus":"onsale","ticketLink":"https://tickets.example/e/\#(listing)","seatMap":"https://maps.example/s/\#(listing).png"},"artists":[{"name":"The Midnight Trio","followers":120453,"popularity":61,"link":"https://music.example/a/midnight"}],"venue":{"name":"Hollywood Bowl","address":"2301 N Highland Ave, Los Angeles, CA","phone":"323-850-2000","openHours":"Mon-Fri 10am-6pm","generalRule":"No outside food","childRule":"Children under 2 free","latitude":34.1122,"longitude":-118.3391},"upcoming":[\#(upcoming)]}}"#)
        }
    }
}

extension UUID {
    /// A version-4 UUID drawn from `generator`.
    static func random(using generator: inout SplitMix64) -> UUID {
        var bytes = (generator.next(), generator.next())
        return withUnsafeMutableBytes(of: &bytes) { raw in
            raw[6] = (raw[6] & 0x0F) | 0x40
            raw[8] = (raw[8] & 0x3F) | 0x80
            return UUID(uuid: raw.load(as: uuid_t.self))
        }
    }
}
