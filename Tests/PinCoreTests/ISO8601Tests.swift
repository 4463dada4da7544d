import TestSupport
import XCTest
@testable import PinCore

final class ISO8601Tests: XCTestCase {
    func testFormatsWithOffsetsAndFractions() {
        // 2023-07-14T08:11:12.390Z = 1689322272.39 s (date -d @1689322272).
        let date = Date(timeIntervalSince1970: 1_689_322_272.39)
        XCTAssertEqual(ISO8601.format(date, offsetSeconds: 7200), "2023-07-14T10:11:12.390+02:00")
        XCTAssertEqual(ISO8601.format(date, offsetSeconds: -12600), "2023-07-14T04:41:12.390-03:30")
        XCTAssertEqual(ISO8601.format(date), "2023-07-14T08:11:12.390Z")
        XCTAssertEqual(ISO8601.parse("2023-07-14T10:11:12.390+02:00")?.date.timeIntervalSince1970 ?? 0, date.timeIntervalSince1970, accuracy: 1e-6)
        XCTAssertEqual(ISO8601.parse("2023-07-14T10:11:12+0200")?.offsetSeconds, 7200)
        XCTAssertNil(ISO8601.parse("2023-02-30"))
    }

    func testDatesBeyondAnyCalendarDoNotCrash() {
        for seconds in [1e19, -1e19, .infinity, .nan] {
            XCTAssertTrue(ISO8601.format(Date(timeIntervalSince1970: seconds)).hasPrefix("invalid date"))
        }
    }

    func testFormatAgreesWithTheCLibraryCalendar() {
        // The reference is glibc's gmtime_r + strftime on the shifted second; the fraction and
        // zone follow the rule above. Instants from year -6060 to 9999 (before year 1 the year is
        // written as `String(year)` padded to 4), offsets of real zones
        // and odd ones, fractions that round to the next second.
        var generator = SeededRandom(seed: 1)
        func reference(_ seconds: Double, _ offset: Int?) -> String {
            let shifted = seconds + Double(offset ?? 0)
            var whole = shifted.rounded(.down)
            var millis = Int(((shifted - whole) * 1000).rounded())
            if millis == 1000 { whole += 1; millis = 0 }
            var t = time_t(whole)
            var parts = tm()
            gmtime_r(&t, &parts)
            var buffer = [CChar](repeating: 0, count: 64)
            let n = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S", &parts)
            var text = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.count < 19 { text = String(repeating: "0", count: 19 - text.count) + text } // %Y of years < 1000, or -999 to -1
            if millis != 0 { text += String(format: ".%03d", millis) }
            guard let offset, offset != 0 else { return text + "Z" }
            return text + String(format: "%@%02d:%02d", offset < 0 ? "-" : "+", abs(offset) / 3600, abs(offset) % 3600 / 60)
        }
        let offsets: [Int?] = [nil, 0, 3600, -3600, 19_800, -12_600, 50_400, -43_200, 20_700, 1, -59, 86_399]
        var instants: [Double] = [0, -1, 86_399.9996, 951_782_400, 951_868_799.5, -62_135_596_800, 253_402_300_799.999,
                                  1_689_322_272.39, -2_208_988_800, 4_107_542_400,
                                  81_706_924.79249997]  // a Date holds it as …4.7925000x: .793, not .792
        for _ in 0..<1_000 { instants.append(Double.random(in: -253_402_257_599 ... -62_135_596_801, using: &generator).rounded()) }
        for _ in 0..<5_000 { instants.append(Double.random(in: -62_135_596_800...253_402_257_599, using: &generator).rounded()) }
        for _ in 0..<2_000 { instants.append(Double.random(in: 0...2_000_000_000, using: &generator)) }
        for drawn in instants {
            // The instant as a Date holds it (seconds since 2001): what the formatter is given.
            let seconds = Date(timeIntervalSince1970: drawn).timeIntervalSince1970
            for offset in offsets where abs(seconds + Double(offset ?? 0)) < 253_402_300_800 {
                XCTAssertEqual(ISO8601.format(Date(timeIntervalSince1970: seconds), offsetSeconds: offset), reference(seconds, offset),
                               "\(seconds) \(String(describing: offset))")
            }
        }
        // Hand-worked: a leap day, the first and last instants of the range, a fraction that rounds up.
        XCTAssertEqual(ISO8601.format(Date(timeIntervalSince1970: 951_782_400), offsetSeconds: 0), "2000-02-29T00:00:00Z")
        XCTAssertEqual(ISO8601.format(Date(timeIntervalSince1970: -62_135_596_800)), "0001-01-01T00:00:00Z")
        XCTAssertEqual(ISO8601.format(Date(timeIntervalSince1970: 253_402_300_799)), "9999-12-31T23:59:59Z")
        XCTAssertEqual(ISO8601.format(Date(timeIntervalSince1970: 86_399.9996)), "1970-01-02T00:00:00Z")
        XCTAssertEqual(ISO8601.format(Date(timeIntervalSince1970: 86_399.9996), offsetSeconds: -3600), "1970-01-01T23:00:00-01:00")
        // The day before year 1 (proleptic Gregorian year 0) and 1 BC's year -1, as before.
        XCTAssertEqual(ISO8601.format(Date(timeIntervalSince1970: -62_135_596_801)), "0000-12-31T23:59:59Z")
        XCTAssertEqual(ISO8601.format(Date(timeIntervalSince1970: -62_167_219_201)), "00-1-12-31T23:59:59Z")
    }
}

