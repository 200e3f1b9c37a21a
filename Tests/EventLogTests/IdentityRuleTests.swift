import EventLog
import Foundation
import Testing

/// The identity rule for stream ids (``Identifier``, ``StreamKey``): every store refuses a
/// stream id that is not NFC or holds an invisible character, and tells streams apart by the
/// bytes of their ids, as the conformance suite's other tests, on every ``StoreKind``.
@Suite("Identity rule for stream ids")
struct IdentityRuleTests {
    static let nfc = "jos\u{E9}"
    static let nfd = "jose\u{301}"

    static func refusal(_ body: () throws -> Void) -> String? {
        do { try body(); return nil } catch let error as EventStoreError {
            guard case .invalidInput(let text) = error else { return "wrong error: \(error)" }
            return text
        } catch { return "wrong error: \(error)" }
    }

    @Test("a stream id that is not NFC is refused, alone or in a multi-stream batch, and nothing is appended", arguments: StoreKind.underTest)
    func nonNFCRefused(kind: StoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let store = subject.store
        let expected = "stream id is not in Unicode normalization form C (NFC): ids are recorded in NFC so that one id names one stream (normalize it first)"
        for id in [Self.nfd, "\u{212B}ngstr\u{F6}m", "\u{1100}\u{1161}", "a\u{327}\u{301}"] {   // decomposed é, ANGSTROM SIGN, Hangul jamo, marks
            #expect(Self.refusal { try store.append(Fixtures.event(), to: id, expectedVersion: .any) } == expected, "\(Array(id.unicodeScalars))")
        }
        if let multi = store as? any MultiStreamAppending {
            let parts = [StreamAppend(stream: Self.nfc, expectedVersion: .any, events: [Fixtures.event()]),
                         StreamAppend(stream: Self.nfd, expectedVersion: .any, events: [Fixtures.event()])]
            #expect(Self.refusal { _ = try multi.append(parts) } == expected)
        }
        #expect(try store.headPosition() == 0)
        try store.append(Fixtures.event(), to: Self.nfc, expectedVersion: .noStream)
        #expect(try store.version(of: Self.nfc) == 1)
    }

    @Test("a stream id holding a format or separator character is refused naming the code point", arguments: StoreKind.underTest)
    func invisibleRefused(kind: StoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let store = subject.store
        for (character, named) in [("\u{202E}", "U+202E (RIGHT-TO-LEFT OVERRIDE)"), ("\u{200B}", "U+200B (ZERO WIDTH SPACE)"),
                                   ("\u{FEFF}", "U+FEFF (ZERO WIDTH NO-BREAK SPACE)"), ("\u{200D}", "U+200D (ZERO WIDTH JOINER)"),
                                   ("\u{2067}", "U+2067 (RIGHT-TO-LEFT ISOLATE)"), ("\u{2028}", "U+2028 (LINE SEPARATOR)"),
                                   ("\u{AD}", "U+00AD (SOFT HYPHEN)"), ("\u{85}", "U+0085 (NEXT LINE (NEL))")] {
            let message = Self.refusal { try store.append(Fixtures.event(), to: "user" + character, expectedVersion: .any) }
            #expect(message?.hasPrefix(character == "\u{85}" ? "stream id contains a control character" : "stream id must not contain \(named)") == true,
                    "\(named): \(message ?? "accepted")")
        }
        // A zero width joiner is refused except between two emoji, where it joins them.
        for id in ["a\u{200D}b", "\u{1F469}\u{200D}", "\u{200D}\u{1F469}", "1\u{200D}2", "\u{1F469}\u{200D}x"] {
            #expect(Self.refusal { try store.append(Fixtures.event(), to: id, expectedVersion: .any) }?.hasPrefix("stream id must not contain U+200D (ZERO WIDTH JOINER)") == true,
                    "\(Array(id.unicodeScalars))")
        }
        #expect(try store.headPosition() == 0)
        try store.append(Fixtures.event(), to: "family-\u{1F469}\u{200D}\u{1F469}\u{200D}\u{1F467}", expectedVersion: .noStream)
        try store.append(Fixtures.event(), to: "rainbow-\u{1F3F3}\u{FE0F}\u{200D}\u{1F308}", expectedVersion: .noStream)
        #expect(try store.headPosition() == 2)
    }

    @Test("streams are told apart by the bytes of their ids: reading the NFD spelling of an NFC stream finds nothing", arguments: StoreKind.underTest)
    func streamsByBytes(kind: StoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let store = subject.store
        try store.append(Fixtures.events(2), to: Self.nfc, expectedVersion: .noStream)
        #expect(try store.version(of: Self.nfd) == 0)
        #expect(try store.read(stream: Self.nfd, from: 1, direction: .forwards, limit: 10).isEmpty)
        #expect(try store.read(stream: Self.nfc, from: 1, direction: .forwards, limit: 10).count == 2)
    }

    @Test("isNFC and nfc agree with Foundation's normalization, fast path included")
    func nfcAgreesWithFoundation() {
        var samples = ["", "ada", "user-42", Self.nfc, Self.nfd, "\u{212B}", "\u{C5}", "\u{1100}\u{1161}\u{11A8}", "\u{AC01}", "e\u{301}\u{301}",
                       "\u{2FF}\u{300}", "\u{2FF}", "\u{3A9}", "\u{2126}", "\u{FB01}", "\u{1E9B}\u{323}", "\u{F900}", "😀", "a\u{308}\u{301}"]
        for value in stride(from: 0x20, to: 0x3FF, by: 1) where value != 0x7F {
            let scalar = String(Unicode.Scalar(UInt32(value))!)
            samples += [scalar, "a" + scalar, scalar + "\u{301}", "e" + scalar]
        }
        for sample in samples {
            let reference = sample.precomposedStringWithCanonicalMapping
            #expect(Identifier.isNFC(sample) == Array(reference.utf8).elementsEqual(sample.utf8), "\(Array(sample.unicodeScalars))")
            #expect(Array(Identifier.nfc(sample).utf8) == Array(reference.utf8))
        }
    }

    @Test("StreamKey compares and hashes bytes; exactKey is the id when NFC and distinct otherwise")
    func keysByBytes() {
        #expect(Self.nfc == Self.nfd, "Swift's String equality is canonical equivalence: the reason for StreamKey")
        #expect(StreamKey(Self.nfc) != StreamKey(Self.nfd))
        #expect(Set([StreamKey(Self.nfc), StreamKey(Self.nfd), StreamKey(Self.nfc)]).count == 2)
        #expect([StreamKey("b"), StreamKey(Self.nfd), StreamKey("a"), StreamKey(Self.nfc)].sorted().map { Array($0.id.utf8) }
            == [Array("a".utf8), Array("b".utf8), Array(Self.nfd.utf8), Array(Self.nfc.utf8)])
        #expect(Identifier.exactKey(Self.nfc) == Self.nfc)
        #expect(Identifier.exactKey(Self.nfd) != Identifier.exactKey(Self.nfc))
        #expect(Identifier.exactKey(Self.nfd) == "\u{1}6a6f7365cc81")
    }
}
