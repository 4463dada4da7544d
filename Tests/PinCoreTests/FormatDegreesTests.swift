import XCTest
@testable import PinCore

/// `formatDegrees` against Python's `'%.6f' % value` (correctly rounded, as glibc's printf),
/// digit for digit, and its one rule of its own: no "-0.000000".
final class FormatDegreesTests: XCTestCase {
    func testSixDecimalsRoundedAsPrintfRoundsThem() {
        XCTAssertEqual(formatDegrees(48.8583701), "48.858370")
        XCTAssertEqual(formatDegrees(-33.8688197), "-33.868820")
        XCTAssertEqual(formatDegrees(123.4567895), "123.456789", "the double is just below ...7895")
        XCTAssertEqual(formatDegrees(0.0000015), "0.000002", "the double is just above 0.0000015")
        XCTAssertEqual(formatDegrees(-179.9999995), "-180.000000")
        XCTAssertEqual(formatDegrees(0), "0.000000")
    }

    func testNoNegativeZero() {
        XCTAssertEqual(formatDegrees(-0.0), "0.000000")
        XCTAssertEqual(formatDegrees(-0.0000001), "0.000000")
        XCTAssertEqual(formatDegrees(2.5e-7), "0.000000")
    }

    func testAnyDoubleFitsTheBuffer() {
        // 1e300 has 301 integer digits in %f: all of them, exactly as printf writes them.
        let text = formatDegrees(1e300)
        XCTAssertEqual(text.count, 301 + 7)
        XCTAssertTrue(text.hasPrefix("1000000000000000052504760255204420248704468581108159154915854115511802457988908195786371375080447864043704443832883878176942523235360430575644792184786706982848387200926575803737830233794788090059368953234970799945081119038967640880074652742780142494579258788820056842838115669472196386865459400540160"))
        XCTAssertTrue(text.hasSuffix(".000000"))
        XCTAssertEqual(formatDegrees(-.greatestFiniteMagnitude).count, 1 + 309 + 7)
        XCTAssertEqual(formatDegrees(.infinity), "inf")
        XCTAssertEqual(formatDegrees(.nan), "nan")
    }

    func testExactHalvesRoundToEvenAsPrintfDoes() {
        // 2^-7 = 0.0078125 exactly: 7812.5 millionths, a true tie (Python: 0.007812, 0.023438).
        XCTAssertEqual(formatDegrees(0.0078125), "0.007812")
        XCTAssertEqual(formatDegrees(0.0234375), "0.023438")
        XCTAssertEqual(formatDegrees(-0.0078125), "-0.007812")
        XCTAssertEqual(formatDegrees(179.9999999), "180.000000")
        XCTAssertEqual(formatDegrees(1e-300), "0.000000")
        XCTAssertEqual(formatDegrees(5e-324), "0.000000", "the smallest subnormal")
        XCTAssertEqual(formatDegrees(8_589_934_591.999999), "8589934591.999999", "just under 2^33")
        XCTAssertEqual(formatDegrees(1e9 + 0.5), "1000000000.500000")
        XCTAssertEqual(formatDegrees(1.0 / 3), "0.333333")
    }

    func testTheIntegerPathWritesWhatPrintfWrites() {
        // Against glibc's printf itself over random doubles of every scale up to 2^33, random
        // coordinates, and exact multiples of 2^-7 (ties).
        var generator = SplitMix(seed: 99)
        var values: [Double] = []
        for _ in 0..<20_000 { values.append(generator.uniform(-180, 180)) }
        for _ in 0..<20_000 {
            let scale = Double(sign: .plus, exponent: Int(generator.next() % 70) - 40, significand: 1)
            values.append(generator.uniform(-scale, scale))
        }
        for i in 0..<5_000 { values.append(Double(i) * 0.0078125 - 19.5) }
        for value in values {
            XCTAssertEqual(fixedSixDecimals(value), printfSixDecimals(value), "\(value)")
        }
    }
}
