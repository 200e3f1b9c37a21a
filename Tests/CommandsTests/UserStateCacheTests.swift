@testable import Commands
import Dispatch
import Foundation
import Synchronization
import Testing

/// The users' decision states kept between commands: never more than the
/// capacity, a newer state never replaced by an older one, and the same answers when many
/// threads keep and read at once.
@Suite("UserStateCache: bounded, newest kept")
struct UserStateCacheTests {
    static func user(_ version: Int64, favorite: String = "L") -> LoadedUser {
        LoadedUser(version: version, state: UserState(favorites: [favorite]))
    }

    @Test("keeps at most its capacity, for small and large capacities", arguments: [1, 3, 16, 17, 100, 1_000])
    func boundedByCapacity(capacity: Int) {
        let cache = UserStateCache(capacity: capacity)
        for n in 0..<(capacity * 3 + 50) {
            cache.keep(Self.user(1), stream: "user-\(n)")
            #expect(cache.count <= capacity)
            // The one just kept is there.
            #expect(cache.loaded(stream: "user-\(n)")?.version == 1)
        }
        // And the cache is used: with many streams, it holds more than one.
        if capacity >= 16 { #expect(cache.count > capacity / 2) }
    }

    @Test("a newer state replaces an older one, never the other way; forget drops it; streams are told apart by their bytes")
    func newestKept() {
        let cache = UserStateCache()
        cache.keep(Self.user(3, favorite: "A"), stream: "user-1")
        cache.keep(Self.user(2, favorite: "B"), stream: "user-1")
        #expect(cache.loaded(stream: "user-1") == Self.user(3, favorite: "A"))
        cache.keep(Self.user(4, favorite: "C"), stream: "user-1")
        #expect(cache.loaded(stream: "user-1") == Self.user(4, favorite: "C"))
        // "é" precomposed and decomposed are equal Strings but different stream ids.
        cache.keep(Self.user(1, favorite: "precomposed"), stream: "user-\u{E9}")
        #expect(cache.loaded(stream: "user-e\u{301}") == nil)
        cache.forget(stream: "user-1")
        #expect(cache.loaded(stream: "user-1") == nil)
        #expect(cache.loaded(stream: "user-\u{E9}")?.version == 1)
    }

    @Test("8 threads keeping rising versions of shared streams and reading them: every stream ends at its highest version")
    func concurrentKeepsAndReads() {
        let cache = UserStateCache(capacity: 1_000)
        let (streams, threads, rounds) = (200, 8, 2_000)
        @Sendable func stream(thread: Int, round: Int) -> Int { (round * 7 + thread) % streams }
        let missing = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for round in 0..<rounds {
                let name = "user-\(stream(thread: thread, round: round))"
                cache.keep(Self.user(Int64(round + 1)), stream: name)
                // What this thread just kept, or a newer state, is there.
                if (cache.loaded(stream: name)?.version ?? 0) < Int64(round + 1) { missing.add(1, ordering: .relaxed) }
            }
        }
        #expect(missing.load(ordering: .relaxed) == 0, "a thread did not find the state it had just kept, or a newer one")
        #expect(cache.count == streams)
        // The highest version any thread kept for each stream.
        var highest: [Int: Int64] = [:]
        for thread in 0..<threads {
            for round in 0..<rounds { highest[stream(thread: thread, round: round)] = max(highest[stream(thread: thread, round: round)] ?? 0, Int64(round + 1)) }
        }
        for n in 0..<streams {
            #expect(cache.loaded(stream: "user-\(n)")?.version == highest[n])
        }
    }
}
