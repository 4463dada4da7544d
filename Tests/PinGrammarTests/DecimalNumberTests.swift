import XCTest
@testable import PinGrammar

final class DecimalNumberTests: XCTestCase {
    private func parse(_ s: String, _ g: DecimalNumber.Grammar = .withExponent) -> Double? { DecimalNumber.parse(s, g) }

    func testHandWorkedValues() {
        XCTAssertEqual(parse("48.8584"), 48.8584)
        XCTAssertEqual(parse("-2.35"), -2.35)
        XCTAssertEqual(parse("+7"), 7)
        XCTAssertEqual(parse(".5"), 0.5)
        XCTAssertEqual(parse("5."), 5)
        XCTAssertEqual(parse("-0")?.sign, .minus)
        XCTAssertEqual(parse("1e-3"), 0.001)
        XCTAssertEqual(parse("2.5E+2"), 250)
        XCTAssertEqual(parse("0.1234567890123456789"), 0.1234567890123456789)
        for bad in ["", ".", "-", "+.", "1.2.3", " 1", "1 ", "0x10", "inf", "nan", "1e", "1e+", "1e999", "--1", "12a", "e5"] {
            XCTAssertNil(parse(bad), bad)
        }
    }

    /// The variants: no exponent as people type a number; no sign where a letter says it (XMP's
    /// `48,51.3N`); a bound on the digits.
    func testVariants() {
        XCTAssertNil(parse("1e3", .plain))
        XCTAssertEqual(parse("-1.5", .plain), -1.5)
        XCTAssertNil(parse("-1.5", DecimalNumber.Grammar(sign: false, exponent: false)))
        XCTAssertEqual(parse("51.3", DecimalNumber.Grammar(sign: false, exponent: false)), 51.3)
        XCTAssertNil(parse("12345", DecimalNumber.Grammar(exponent: false, maxDigits: 4)))
        XCTAssertEqual(parse("1234", DecimalNumber.Grammar(exponent: false, maxDigits: 4)), 1234)
    }

    /// A number inside a line: read past, the rest left; nothing read when it fails.
    func testScanStopsAtTheFirstByteAfterTheNumber() {
        Array("48.85,2.35".utf8).withUnsafeBufferPointer { b in
            var i = 0
            XCTAssertEqual(DecimalNumber.scan(b, &i, .withExponent), 48.85)
            XCTAssertEqual(i, 5)
        }
        Array("1e+x".utf8).withUnsafeBufferPointer { b in
            var i = 0
            XCTAssertNil(DecimalNumber.scan(b, &i, .withExponent))
            XCTAssertEqual(i, 0)
        }
        Array("3e5".utf8).withUnsafeBufferPointer { b in
            var i = 0
            XCTAssertEqual(DecimalNumber.scan(b, &i, .plain), 3)
            XCTAssertEqual(i, 1, "without exponents the e is what follows")
        }
    }

    /// Every shape of the grammar, fast path or not, equals strtod's value through Swift's
    /// `Double(_:)`, bit for bit.
    func testAgreesWithStrtod() {
        var rng = SystemRandomNumberGenerator()
        func digits(_ n: Int) -> String { String((0..<n).map { _ in Character(String(Int.random(in: 0...9, using: &rng))) }) }
        for _ in 0..<50_000 {
            var s = ["", "-", "+"].randomElement(using: &rng)! + digits(Int.random(in: 0...12, using: &rng))
            if Bool.random(using: &rng) { s += "." + digits(Int.random(in: 0...12, using: &rng)) }
            if Int.random(in: 0..<4, using: &rng) == 0 { s += ["e", "E"].randomElement(using: &rng)! + ["", "-", "+"].randomElement(using: &rng)! + digits(Int.random(in: 0...3, using: &rng)) }
            let expected = Double(s).flatMap { $0.isFinite ? $0 : nil }
            XCTAssertEqual(parse(s)?.bitPattern, expected?.bitPattern, s)
        }
    }
}
