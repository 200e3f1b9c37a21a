@testable import Commands
import EventLog
import Foundation
import Testing

@Suite("Metadata and request ids")
struct MetadataTests {
    @Test("metadata reads back equal, with times in the log's text form")
    func roundTrip() throws {
        let metadata = EventMetadata(
            userID: "user-1", occurredAt: Timestamp.date(microseconds: 1_796_000_000_123_456),
            handledAt: Timestamp.date(microseconds: 1_796_000_000_654_321), correlationID: "corr-1",
            causationID: "cause-1", source: "api-eu-1", requestID: "req-1")
        let data = try metadata.encoded()
        #expect(String(decoding: data, as: UTF8.self) ==
            #"{"causationID":"cause-1","correlationID":"corr-1","handledAt":"2026-11-30T00:53:20.654321Z","occurredAt":"2026-11-30T00:53:20.123456Z","requestID":"req-1","schemaVersion":1,"source":"api-eu-1","userID":"user-1"}"#)
        #expect(try EventMetadata.decode(data) == metadata)
        #expect(throws: DomainEventError.self) { try EventMetadata.decode(Data(#"{"userID":"u"}"#.utf8)) }
    }

    @Test("event ids derived from a request are stable, version 8, and differ by user, request and index")
    func requestIDs() {
        let id = RequestIdentity.eventID(user: "user-1", requestID: "req-1", index: 0)
        #expect(id.lowercaseString == "3f70ae0f-20d3-8100-9a2c-db53c606d4f6")
        #expect(RequestIdentity.commandID(user: "user-1", requestID: "req-1").lowercaseString == "5a138d1d-4164-89c9-b799-3351dcd04ea1")
        #expect(RequestIdentity.eventID(user: "user-2", requestID: "req-1", index: 0) != id)
        #expect(RequestIdentity.eventID(user: "user-1", requestID: "req-2", index: 0) != id)
        #expect(RequestIdentity.eventID(user: "user-1", requestID: "req-1", index: 1) != id)
        // "user-1" + "\0req" cannot be confused with "user-1\0" + "req": NUL is refused in ids.
        #expect(throws: CommandError.self) { try Fixtures.context(user: "user-1\u{0}").validate() }
    }
}
