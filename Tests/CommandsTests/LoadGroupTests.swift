@testable import Commands
import EventLog
import Foundation
import Synchronization
import Testing

/// A reader of users that answers each stream with its place in `names` (from 1) as the version
/// its events start at, records the reads it was asked for, and fails a read that holds a
/// stream named "fail".
final class NamingReader: UserSnapshotStreamReading, Sendable {
    let names: [String]
    init(names: [String]) { self.names = names }
    let reads = Mutex<[[String]]>([])
    let gate = Mutex<(@Sendable ([String]) -> Void)?>(nil)

    func latestSnapshot(stream: String) throws -> UserSnapshot? { nil }
    func save(_ snapshot: UserSnapshot, stream: String) throws {}
    /// The streams read alone, in order.
    let alone = Mutex<[String]>([])
    func latestSnapshotAndEvents(stream: String, limit: Int) throws -> UserSnapshotAndEvents? {
        alone.withLock { $0.append(stream) }
        if stream == "fail" { throw EventStoreError.unavailable("the read of fail alone failed") }
        return UserSnapshotAndEvents(document: nil, from: Int64((names.firstIndex(of: stream) ?? -1) + 1), events: [])
    }
    var readsUsersTogether: Bool { true }
    func latestSnapshotsAndEvents(streams: [String], limit: Int) throws -> [UserSnapshotAndEvents?] {
        gate.withLock { $0 }?(streams)
        reads.withLock { $0.append(streams) }
        if streams.contains("fail") { throw EventStoreError.unavailable("the read of \(streams.count) users failed") }
        return streams.map { stream in UserSnapshotAndEvents(document: nil, from: Int64((names.firstIndex(of: stream) ?? -1) + 1), events: []) }
    }
}

@Suite("The load group: users that threads need at once are read together")
struct LoadGroupTests {
    /// Starts `streams.count` threads, each reading its stream through `group`, while the first
    /// read is held until all the others wait; returns each thread's answer (the stream its
    /// read named, or the error's description).
    static func readAtOnce(_ streams: [String], through group: LoadGroup, _ reader: NamingReader) -> [String: String] {
        let first = Atomic<Bool>(true)
        reader.gate.withLock { gate in
            gate = { batch in
                guard first.exchange(false, ordering: .relaxed) else { return }
                let deadline = Date().addingTimeInterval(20)
                while group.waitingCount < streams.count - batch.count, Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
            }
        }
        let answers = Mutex<[String: String]>([:])
        let done = DispatchGroup()
        for stream in streams {
            done.enter()
            Thread.detachNewThread {
                let answer: String
                do {
                    answer = try group.read(stream, limit: 10, from: reader).map { reader.names[Int($0.from) - 1] } ?? "none"
                } catch {
                    answer = "error: \(error)"
                }
                answers.withLock { $0[stream, default: ""] += answer }
                done.leave()
            }
        }
        done.wait()
        return answers.withLock { $0 }
    }

    @Test("each thread gets its own user's read, and the threads that waited are read in one")
    func eachGetsItsOwn() {
        let streams = (0..<20).map { "user-\($0)" }
        let reader = NamingReader(names: streams)
        let group = LoadGroup()
        let answers = Self.readAtOnce(streams, through: group, reader)
        #expect(answers == Dictionary(uniqueKeysWithValues: streams.map { ($0, $0) }))
        let reads = reader.reads.withLock { $0 }
        #expect(reads.count == 2 && reads.map(\.count).reduce(0, +) == 20, "\(reads.map(\.count))")
        #expect(group.waitingCount == 0)
    }

    @Test("a read of several users that fails reads each of them again alone: only the user whose read fails gets an error; a user read alone gets its read's error")
    func failureIsTheFailingUsersOnly() throws {
        let reader = NamingReader(names: ["first", "fail", "other", "more", "after"])
        let group = LoadGroup()
        let answers = Self.readAtOnce(["first", "fail", "other", "more"], through: group, reader)
        let reads = reader.reads.withLock { $0 }
        let failed = try #require(reads.first { $0.contains("fail") })
        #expect(answers["fail"]?.hasPrefix("error: ") == true && answers["fail"]?.contains("failed") == true, "\(answers["fail"] ?? "")")
        for stream in ["first", "other", "more"] { #expect(answers[stream] == stream) }
        if failed.count > 1 {
            #expect(reader.alone.withLock { $0 }.sorted() == failed.sorted(), "each user of the failed read, read again alone")
        } else {
            #expect(reader.alone.withLock { $0 }.isEmpty, "a failed read of one user is that user's error")
        }
        #expect(try group.read("after", limit: 10, from: reader)?.from == 5)
        #expect(group.waitingCount == 0)
    }

    @Test("more users than one read takes are read in several, each user once")
    func batchLimit() {
        let streams = (0..<(LoadGroup.batchLimit + 10)).map { "user-\($0)" }
        let reader = NamingReader(names: streams)
        let group = LoadGroup()
        let answers = Self.readAtOnce(streams, through: group, reader)
        #expect(answers == Dictionary(uniqueKeysWithValues: streams.map { ($0, $0) }))
        let reads = reader.reads.withLock { $0 }
        #expect(reads.allSatisfy { $0.count <= LoadGroup.batchLimit })
        #expect(reads.flatMap { $0 }.sorted() == streams.sorted())
    }
}
