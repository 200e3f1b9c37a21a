import Foundation
import Testing
import Transfer

/// ``LineReader``'s limit on a line's length holds to the byte, wherever the line ends fall
/// among the blocks it reads (1 MiB at a time).
@Suite("LineReader: the line length limit")
struct LineReaderTests {
    static let limit = LineReader.maximumLineLength

    /// The lengths of the lines read, or the error's text.
    enum Outcome: Equatable {
        case success([Int])
        case failure(String)
    }

    /// The lines of `data`, or the error's text.
    static func lines(_ data: Data) -> Outcome {
        var reader = LineReader(source: MemoryBytes(data))
        var lengths: [Int] = []
        do {
            while let line = try reader.next() { lengths.append(line.count) }
            return .success(lengths)
        } catch {
            return .failure("\(error)")
        }
    }

    @Test("a line of exactly the limit is read; one byte more is refused naming its line, with or without a line break after it")
    func toTheByte() {
        let atLimit = Data(repeating: 0x61, count: Self.limit)
        let over = Data(repeating: 0x61, count: Self.limit + 1)
        let short = Data("{}\n".utf8)
        #expect(Self.lines(short + atLimit + Data("\n".utf8) + short) == .success([2, Self.limit, 2]))
        #expect(Self.lines(short + atLimit + Data("\r\n".utf8)) == .success([2, Self.limit]), "a CR before the LF is not counted")
        #expect(Self.lines(short + atLimit) == .success([2, Self.limit]), "the last line, without a line break")
        for tail in [Data("\n".utf8) + short, Data(), Data("\r\n".utf8)] {
            guard case .failure(let message) = Self.lines(short + over + tail) else {
                Issue.record("a line of \(Self.limit + 1) bytes was read")
                continue
            }
            #expect(message.contains("line 2 is longer than 16 MiB"), "\(message)")
        }
        // Just over the limit by the length of one block's end: the check cannot wait for the next block.
        let nearBlock = Data(repeating: 0x61, count: Self.limit + 700_000)
        guard case .failure(let message) = Self.lines(nearBlock + Data("\n".utf8)) else {
            Issue.record("a line of \(nearBlock.count) bytes was read")
            return
        }
        #expect(message.contains("line 1 is longer than 16 MiB"), "\(message)")
    }
}
