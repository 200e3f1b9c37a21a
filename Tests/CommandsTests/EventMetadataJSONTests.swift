@testable import Commands
import EventLog
import Foundation
import Simulation
import Testing

/// The metadata's JSON, written by hand since it cost a tenth of the server's CPU per write
/// through `JSONEncoder`: byte for byte what `JSONEncoder` (sorted keys, slashes left alone)
/// writes, so every event keeps one byte form whichever release wrote it.
@Suite("Event metadata JSON: the hand-written bytes equal JSONEncoder's")
struct EventMetadataJSONTests {
    /// Pieces of text that JSON writers treat differently: quotes, backslashes, slashes,
    /// control characters, non-ASCII letters, emoji, combining marks, separators, noncharacters.
    static let pieces: [String] = [
        "a", "Z", "0", " ", "-", "_", ".", "/", "//", "\"", "\\", "\\\"", "'", "<", ">", "&", "%2F", "..", "?", "#", "=",
        "é", "e\u{301}", "ß", "中文", "日本", "🎉", "👩🏽‍💻", "\u{2028}", "\u{2029}", "\u{FEFF}", "\u{FFFD}", "\u{7F}", "\u{85}",
        "\u{A0}", "\u{FFFF}", "\u{10FFFF}", "\n", "\r", "\t", "\u{8}", "\u{C}", "\u{0}", "\u{1}", "\u{1F}", "\u{1B}",
        "user-42", "ios-app/4.2", "01a23100-549e-70fe-99a2-5f06bd8cca08",
    ]

    static func text(_ random: inout SplitMix64, allowControl: Bool) -> String {
        var text = ""
        for _ in 0..<Int(random.next() % 6) {
            var piece = pieces[Int(random.next() % UInt64(pieces.count))]
            if !allowControl, piece.utf8.contains(where: { $0 < 0x20 }) { piece = "x" }
            text += piece
        }
        return text
    }

    static func metadata(_ random: inout SplitMix64, allowControl: Bool) -> EventMetadata {
        // Times from the year 5 to 9986, with a fraction below the microsecond (both writers truncate it).
        func time() -> Date {
            let seconds = Double(Int64(random.next() % 315_000_000_000)) - 62_000_000_000
            return Date(timeIntervalSince1970: seconds + Double(random.next() % 1_000_000_000) / 1e9)
        }
        return EventMetadata(
            userID: text(&random, allowControl: allowControl), occurredAt: time(), handledAt: time(),
            correlationID: text(&random, allowControl: allowControl), causationID: text(&random, allowControl: allowControl),
            source: text(&random, allowControl: allowControl),
            requestID: random.next() % 3 == 0 ? nil : text(&random, allowControl: allowControl))
    }

    @Test("random metadata without control characters: writtenJSON() and encoded() equal JSONEncoder's bytes, and decode back")
    func randomPlain() throws {
        var random = SplitMix64(seed: 2026)
        for _ in 0..<5_000 {
            let metadata = Self.metadata(&random, allowControl: false)
            let foundation = try EventJSON.encode(metadata)
            #expect(metadata.writtenJSON() == foundation, "\(String(decoding: foundation, as: UTF8.self))")
            #expect(try metadata.encoded() == foundation)
            let back = try EventMetadata.decode(metadata.writtenJSON())
            #expect(back.userID == metadata.userID && back.source == metadata.source && back.requestID == metadata.requestID)
            // A Date is a Double: far from 1970 the parsed time may differ by its last microsecond.
            #expect(abs(Timestamp.microseconds(back.handledAt) - Timestamp.microseconds(metadata.handledAt)) <= 1)
        }
    }

    @Test("random metadata with control characters: encoded() still equals JSONEncoder's bytes")
    func randomWithControlCharacters() throws {
        var random = SplitMix64(seed: 7)
        var withControl = 0
        for _ in 0..<3_000 {
            let metadata = Self.metadata(&random, allowControl: true)
            if metadata.hasControlCharacters { withControl += 1 }
            #expect(try metadata.encoded() == EventJSON.encode(metadata))
        }
        #expect(withControl > 500, "the control-character path was exercised (\(withControl))")
    }

    @Test("the documented shape: compact, sorted keys, requestID only when there is one")
    func shape() throws {
        let at = Timestamp.date(microseconds: 1_796_000_000_123_456)
        let metadata = EventMetadata(userID: "u-42", occurredAt: at, handledAt: at, correlationID: "c", causationID: "k",
                                     source: "app-server-1", requestID: nil)
        #expect(String(decoding: try metadata.encoded(), as: UTF8.self)
                == #"{"causationID":"k","correlationID":"c","handledAt":"2026-11-30T00:53:20.123456Z","occurredAt":"2026-11-30T00:53:20.123456Z","schemaVersion":1,"source":"app-server-1","userID":"u-42"}"#)
    }

    @Test("random Favorited and Unfavorited payloads: encode() equals JSONEncoder's bytes (written by hand without control characters)")
    func randomPayloads() throws {
        var random = SplitMix64(seed: 99)
        var written = 0
        for _ in 0..<4_000 {
            let allowControl = random.next() % 4 == 0
            func text() -> String { Self.text(&random, allowControl: allowControl) }
            let favorited = Favorited(listingID: text(), summary: ListingSummary(name: text(), venue: text(), localDateTime: text(), category: text()))
            let unfavorited = Unfavorited(listingID: text())
            #expect(try DomainEvent.favorited(favorited).encode().data == EventJSON.encode(favorited))
            #expect(try DomainEvent.unfavorited(unfavorited).encode().data == EventJSON.encode(unfavorited))
            if let bytes = favorited.writtenJSON() {
                written += 1
                #expect(try bytes == EventJSON.encode(favorited))
                #expect(try DomainEvent.decode(type: Favorited.typeName, data: bytes) == .favorited(favorited))
            }
            if let bytes = unfavorited.writtenJSON() { #expect(try bytes == EventJSON.encode(unfavorited)) }
        }
        #expect(written > 2_000, "the hand-written path was exercised (\(written))")
    }
}
