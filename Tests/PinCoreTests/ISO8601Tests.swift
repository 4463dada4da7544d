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
        // zone follow the rule above: an offset of odd seconds is written to the nearest minute
        // (half away from zero) and the clock shifted by that, so the text is the instant
        // (issue 40 item 5: `+00:09` after a clock shifted by 561 s was 21 s off). Instants from
        // year -6060 to 9999 (outside the years 1 to 9999: "invalid date"), offsets of real
        // zones and odd ones, fractions that round to the next second.
        var generator = SeededRandom(seed: 1)
        func reference(_ seconds: Double, _ exact: Int?) -> String {
            let offset = exact.map { Int((Double($0) / 60).rounded(.toNearestOrAwayFromZero)) * 60 }
            let shifted = seconds + Double(offset ?? 0)
            guard shifted >= -62_135_596_800, shifted < 253_402_300_800 else { return "invalid date (\(seconds) s)" }
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
        // The day before year 1 (proleptic Gregorian year 0) and 1 BC's year -1: not written
        // (they were `0000-12-31T23:59:59Z` and `00-1-12-31T23:59:59Z`, which no reader takes).
        XCTAssertEqual(ISO8601.format(Date(timeIntervalSince1970: -62_135_596_801)), "invalid date (-62135596801.0 s)")
        XCTAssertEqual(ISO8601.format(Date(timeIntervalSince1970: -62_167_219_201)), "invalid date (-62167219201.0 s)")
        // Paris's local mean time, +00:09:21 (561 s): the clock of the minute offset, +00:09.
        XCTAssertEqual(ISO8601.format(Date(timeIntervalSince1970: 0), offsetSeconds: 561), "1970-01-01T00:09:00+00:09")
        XCTAssertEqual(ISO8601.format(Date(timeIntervalSince1970: 0), offsetSeconds: -561), "1969-12-31T23:51:00-00:09")
    }

    /// Issue 40 item 5: `parse` went through Foundation's Gregorian calendar, which is Julian
    /// before 1582-10-15, so `format` (proleptic, as ISO 8601 says) wrote such a date 10 days
    /// later. One calendar now; the years 1 to 9999 only, in UTC and as written.
    func testParseIsProlepticGregorianWithinTheYears1To9999() {
        // 1500-03-01T00:00:00Z, proleptic Gregorian: `date -u -d 1500-03-01 +%s` and Python's
        // `(datetime(1500,3,1) - datetime(1970,1,1)).days` give -14,826,672,000 = -171,605 days.
        XCTAssertEqual(ISO8601.parse("1500-03-01T00:00:00Z")?.date.timeIntervalSince1970, -14_826_672_000)
        XCTAssertEqual(ISO8601.format(ISO8601.parse("1500-03-01T12:00:00+01:00")!.date, offsetSeconds: 3600), "1500-03-01T12:00:00+01:00")
        XCTAssertEqual(ISO8601.parse("0001-01-01T00:00:00Z")?.date.timeIntervalSince1970, -62_135_596_800)
        XCTAssertEqual(ISO8601.parse("9999-12-31T23:59:59Z")?.date.timeIntervalSince1970, 253_402_300_799)
        XCTAssertNotNil(ISO8601.parse("1600-02-29"))
        for refused in ["0000-06-01", "0001-01-01T00:00:00+01:00", "9999-12-31T23:00:00-05:00", "1700-02-29", "2023-04-31",
                        "2024-05-01T10:00:00+19:00", "2024-05-01T10:00:00+01:60"] {
            XCTAssertNil(ISO8601.parse(refused), refused)
        }
        // Without an offset: the default zone's at that instant (New York, EDT, -4 h).
        XCTAssertEqual(ISO8601.parse("2024-07-01T12:00", defaultZone: TimeZone(identifier: "America/New_York")!)?.date.timeIntervalSince1970,
                       1_719_849_600)
        XCTAssertTrue(ISO8601.canWrite(Date(timeIntervalSince1970: 253_402_300_799), offsetSeconds: -3600))
        XCTAssertFalse(ISO8601.canWrite(Date(timeIntervalSince1970: 253_402_300_799), offsetSeconds: 3600))
        XCTAssertFalse(ISO8601.canWrite(Date(timeIntervalSince1970: -62_135_596_800), offsetSeconds: -1))
    }
}

