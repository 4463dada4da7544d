import TestSupport
import XCTest
@testable import PinFormats

final class ByteNumberTests: XCTestCase {
    private func decimal(_ s: String) -> Double? {
        Array(s.utf8).withUnsafeBufferPointer(ByteNumber.decimal)
    }

    func testHandWorkedValues() {
        XCTAssertEqual(decimal("48.1"), 48.1)
        XCTAssertEqual(decimal(" \t-2.5\r\n"), -2.5)
        XCTAssertEqual(decimal("+7"), 7)
        XCTAssertEqual(decimal("-0")?.sign, .minus)
        XCTAssertEqual(decimal("5."), 5, "strtod's form, through Double(_:)")
        XCTAssertEqual(decimal(".25"), 0.25)
        XCTAssertEqual(decimal("1e3"), 1000)
        XCTAssertEqual(decimal("0.1234567890123456789"), 0.1234567890123456789)
        XCTAssertEqual(decimal("\u{2003}3.5"), 3.5, "Unicode white space, as trimmingCharacters trims it")
        for bad in ["", " ", ".", "-", "1.2.3", "4 5", "inf", "nan", "1e999", "12a", "--1"] {
            XCTAssertNil(decimal(bad), bad)
        }
    }

    /// Every shape of decimal the fast path takes (and the ones around it) equals strtod's value
    /// through Swift's `Double(_:)` of the trimmed text, bit for bit.
    func testAgreesWithStrtod() {
        var rng = SeededRandom(seed: 1)
        for _ in 0..<50_000 {
            let intDigits = Int.random(in: 0...9, using: &rng), fracDigits = Int.random(in: 0...10, using: &rng)
            var s = ["", "-", "+"].randomElement(using: &rng)!
            for _ in 0..<intDigits { s.append(Character(String(Int.random(in: 0...9, using: &rng)))) }
            if fracDigits > 0 || Bool.random(using: &rng) { s.append(".") }
            for _ in 0..<fracDigits { s.append(Character(String(Int.random(in: 0...9, using: &rng)))) }
            let expected = Double(s).flatMap { $0.isFinite ? $0 : nil }
            XCTAssertEqual(decimal(s)?.bitPattern, expected?.bitPattern, s)
        }
    }
}
