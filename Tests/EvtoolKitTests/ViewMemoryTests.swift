import EvtoolKit
import Foundation
import Testing

/// The view memory's own rules, without a store: the bound in bytes, least recently used out
/// first, touches that drop and refuse stale answers, clears that refuse fills begun before.
@Suite("View memory")
struct ViewMemoryTests {
    static func answer(_ text: String, _ version: Int64) -> ViewMemory.Answer {
        ViewMemory.Answer(bytes: Array(text.utf8), version: version)
    }

    @Test("off until started: nothing is kept, no ticket")
    func offUntilStarted() throws {
        let memory = ViewMemory()
        #expect(!memory.isOn && memory.ticket() == nil)
        memory.start(capacityBytes: 10_000, from: 5)
        let ticket = try #require(memory.ticket())
        #expect(!memory.fill("k", Self.answer("a", 1), validThrough: 4, tags: ["s:u"], ticket: ticket), "read before the follower's start")
        #expect(memory.fill("k", Self.answer("a", 1), validThrough: 5, tags: ["s:u"], ticket: ticket))
        #expect(memory.lookup("k") == Self.answer("a", 1))
        memory.stop()
        #expect(memory.lookup("k") == nil && memory.ticket() == nil)
    }

    @Test("a touch drops the answers read before it and refuses their fills; later ones stay")
    func touches() throws {
        let memory = ViewMemory()
        memory.start(capacityBytes: 100_000, from: 0)
        let ticket = try #require(memory.ticket())
        #expect(memory.fill("fav\u{1}ada", Self.answer("ada-1", 1), validThrough: 10, tags: ["s:ada"], ticket: ticket))
        #expect(memory.fill("fav\u{1}bob", Self.answer("bob-1", 1), validThrough: 10, tags: ["s:bob"], ticket: ticket))
        #expect(memory.fill("page\u{1}ada\u{1}L1", Self.answer("page", 1), validThrough: 10, tags: ["s:ada", "l:L1"], ticket: ticket))
        memory.touch(["s:ada"], at: 10)
        #expect(memory.lookup("fav\u{1}ada") != nil, "an answer read at the touch's position has it")
        memory.touch(["l:L1"], at: 11)
        #expect(memory.lookup("page\u{1}ada\u{1}L1") == nil, "any tag drops it")
        memory.touch(["s:ada"], at: 12)
        #expect(memory.lookup("fav\u{1}ada") == nil && memory.lookup("fav\u{1}bob") != nil)
        // A slow reader that read at 11 files after the touch at 12: refused.
        #expect(!memory.fill("fav\u{1}ada", Self.answer("stale", 1), validThrough: 11, tags: ["s:ada"], ticket: ticket))
        #expect(memory.statistics.refusedFills == 1)
        #expect(memory.fill("fav\u{1}ada", Self.answer("ada-2", 2), validThrough: 12, tags: ["s:ada"], ticket: ticket))
        #expect(memory.lookup("fav\u{1}ada") == Self.answer("ada-2", 2))
        // An older fill never replaces a newer one.
        #expect(!memory.fill("fav\u{1}ada", Self.answer("older", 2), validThrough: 12, tags: ["s:ada"], ticket: ticket))
    }

    @Test("a clear drops everything and refuses the fills that began before it")
    func clears() throws {
        let memory = ViewMemory()
        memory.start(capacityBytes: 100_000, from: 0)
        let before = try #require(memory.ticket())
        #expect(memory.fill("a", Self.answer("a", 1), validThrough: 3, tags: ["s:a"], ticket: before))
        memory.clear()
        #expect(memory.lookup("a") == nil)
        #expect(!memory.fill("b", Self.answer("b", 1), validThrough: 3, tags: ["s:b"], ticket: before))
        let after = try #require(memory.ticket())
        #expect(memory.fill("b", Self.answer("b", 1), validThrough: 3, tags: ["s:b"], ticket: after))
    }

    @Test("forgotten touches raise the floor: a fill read before them is refused")
    func forgottenTouches() throws {
        let memory = ViewMemory(maximumTouches: 10)
        memory.start(capacityBytes: 100_000, from: 0)
        let ticket = try #require(memory.ticket())
        for position in 1...30 { memory.touch(["s:u\(position)"], at: Int64(position)) }
        // The touch of u1 at 1 is forgotten; a read at 0 might have missed it.
        #expect(!memory.fill("fav\u{1}u1", Self.answer("x", 0), validThrough: 0, tags: ["s:u1"], ticket: ticket))
        #expect(!memory.fill("fav\u{1}u25", Self.answer("x", 0), validThrough: 19, tags: ["s:u25"], ticket: ticket))
        #expect(memory.fill("fav\u{1}u25", Self.answer("x", 1), validThrough: 30, tags: ["s:u25"], ticket: ticket))
    }

    @Test("the bound in bytes holds; the least recently used go first")
    func bound() throws {
        let capacity = 20_000
        let memory = ViewMemory()
        memory.start(capacityBytes: capacity, from: 0)
        let ticket = try #require(memory.ticket())
        let body = String(repeating: "x", count: 500)
        for index in 0..<200 {
            #expect(memory.fill("k\(index)", Self.answer(body, Int64(index)), validThrough: 0, tags: ["s:u\(index)"], ticket: ticket))
            if index >= 1 { _ = memory.lookup("k0") }   // k0 stays in use
            #expect(memory.statistics.bytes <= capacity)
        }
        let statistics = memory.statistics
        #expect(statistics.evictions > 100 && statistics.count < 40 && statistics.count > 10, "\(statistics)")
        #expect(memory.lookup("k0") != nil, "the answer in use is kept")
        #expect(memory.lookup("k1") == nil, "the oldest unused went first")
        #expect(memory.lookup("k199") != nil)
        // An answer too large for a quarter of the bound is not kept at all.
        #expect(!memory.fill("big", Self.answer(String(repeating: "y", count: capacity / 4), 1), validThrough: 0, tags: [], ticket: ticket))
        #expect(memory.statistics.bytes <= capacity)
    }
}
