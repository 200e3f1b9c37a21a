import Foundation
import JSONKit
import Testing

/// `JSONScan.number` reads short decimals without text conversion (`shortDecimal`): it must
/// give exactly the Double the text conversion gives, and leave everything else to it.
@Suite struct JSONNumberTests {
    private func number(_ text: String) -> Double? {
        Data(text.utf8).withUnsafeBytes { JSONScan.number($0, 0..<$0.count) }
    }

    private func short(_ text: String) -> Double? {
        Data(text.utf8).withUnsafeBytes { JSONScan.shortDecimal($0, 0..<$0.count) }
    }

    @Test("property: decimals of up to 15 digits read bit for bit as the text conversion reads them")
    func decimalsEqualTextConversion() {
        var random = SystemRandomNumberGenerator()
        var checked = 0
        for _ in 0..<200_000 {
            let digits = Int.random(in: 1...15, using: &random)
            var text = String((0..<digits).map { _ in Character(String(Int.random(in: 0...9, using: &random))) })
            // No leading zeros before the point (JSON has none), so "0" stands alone.
            while text.count > 1, text.first == "0" { text.removeFirst() }
            if text.count > 1, Bool.random(using: &random) {
                let point = text.index(text.startIndex, offsetBy: Int.random(in: 1..<text.count, using: &random))
                text.insert(".", at: point)
            } else if Int.random(in: 0..<4, using: &random) == 0 {
                text = "0." + String(repeating: "0", count: Int.random(in: 0...5, using: &random)) + text
                if text.filter(\.isNumber).count > 15 { continue }
            }
            if Bool.random(using: &random) { text = "-" + text }
            let expected = Double(text)!
            let read = number(text)
            #expect(read?.bitPattern == expected.bitPattern, "\(text): \(String(describing: read)) against \(expected)")
            #expect(short(text)?.bitPattern == expected.bitPattern, "\(text)")
            checked += 1
        }
        #expect(checked > 150_000)
    }

    @Test("degrees, signs and zeros: the same bits as the text conversion")
    func knownValues() {
        for text in ["34.0224", "-118.2851", "0.1", "0.3", "-0.0", "-0", "0", "0.0", "123456789012345", "1.23456789012345",
                     "999999999999999", "0.000000000000001", "9007199254740.993", "5", "10", "-25.5"] {
            let expected = Double(text)!
            #expect(number(text)?.bitPattern == expected.bitPattern, "\(text)")
        }
    }

    @Test("exponents, long mantissas and malformed text are left to the text conversion (or refused)")
    func othersDecline() {
        for text in ["1e5", "1E5", "2.5e-3", "1234567890123456", "0.1234567890123456", "1.", ".5", "-", "1.2.3", "--1", "1-2", "+1", ""] {
            #expect(short(text) == nil, "\(text)")
        }
        // The whole reader still reads what the text conversion reads.
        for text in ["1e5", "2.5e-3", "1234567890123456.5", "0.12345678901234567"] {
            #expect(number(text)?.bitPattern == Double(text)!.bitPattern, "\(text)")
        }
        #expect(number("1e400") == nil)
    }
}
