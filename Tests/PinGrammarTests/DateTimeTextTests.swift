import XCTest
@testable import PinGrammar

/// `DateTimeText` on hand-worked texts (RFC 3339 section 5.6, ISO 8601); instants checked with
/// `date -u -d 2023-07-14T10:11:12Z +%s` (1689329472) and Python's `datetime.fromisoformat`.
final class DateTimeTextTests: XCTestCase {
    private func scan(_ text: String, _ grammar: DateTimeText.Grammar = .iso8601) -> DateTimeText.Fields? {
        Array(text.utf8).withUnsafeBufferPointer { DateTimeText.scan($0, grammar) }
    }

    private func seconds(_ text: String, _ grammar: DateTimeText.Grammar = .iso8601) -> Double? {
        scan(text, grammar).map { Double($0.clockSeconds - ($0.offset ?? 0)) + $0.fraction }
    }

    func testTheForms() {
        XCTAssertEqual(seconds("2023-07-14T10:11:12Z"), 1_689_329_472)
        XCTAssertEqual(seconds("2023-07-14 10:11:12+02:00"), 1_689_322_272)
        XCTAssertEqual(seconds("2023-07-14T10:11:12+0200"), 1_689_322_272)
        XCTAssertEqual(seconds("2023-07-14T10:11:12+02"), 1_689_322_272)
        XCTAssertEqual(seconds("2023-07-14T10:11-02:30"), 1_689_329_460 + 9_000)
        // 1689322272.123, as Python's fromisoformat('2023-07-14T10:11:12.123+02:00').timestamp().
        XCTAssertEqual(scan("2023-07-14T10:11:12,123+02:00")?.fraction, 0.123)
        XCTAssertEqual(seconds("2023-07-14T10:11:12.123+02:00"), 1_689_322_272.123)
        let dateOnly = scan("2023-07-14")
        XCTAssertEqual(dateOnly?.hasTime, false)
        XCTAssertEqual(dateOnly?.clockSeconds, 1_689_292_800)
        XCTAssertNil(scan("2023-07-14T10:11:12")?.offset)
        XCTAssertEqual(seconds("2016-12-31T23:59:60Z"), 1_483_228_800)  // a leap second: the next second's count
        XCTAssertEqual(seconds("0001-01-01T00:00:00Z"), -62_135_596_800)
    }

    /// Where PinCore's, the track readers' and XMP's parsers differed, the spec's answer.
    func testWhereTheThreeParsersDiffered() {
        // No February 29 in 2023; the track parser took any day 1 to 31 (this was March 1).
        XCTAssertNil(scan("2023-02-29T10:00:00Z"))
        XCTAssertNotNil(scan("2024-02-29T10:00:00Z"))
        // RFC 3339's hours are 00 to 23; the track parser took 24:30 as 00:30 the next day.
        XCTAssertNil(scan("2024-05-01T24:30:00Z"))
        // RFC 3339 5.6: `t` and `z` may be lowercase; PinCore's and XMP's parsers refused `t`.
        XCTAssertEqual(seconds("2023-07-14t10:11:12z"), 1_689_329_472)
        // A fraction has at least one digit (time-secfrac = "." 1*DIGIT); PinCore's took none.
        XCTAssertNil(scan("2023-07-14T10:11:12.Z"))
        // A zone's minutes after `:` are two digits; PinCore's took `+02:` as +02:00.
        XCTAssertNil(scan("2023-07-14T10:11+02:"))
        // ISO 8601 gives a zone to a time, not to a date alone; PinCore's took `2023-07-14+02:00`.
        XCTAssertNil(scan("2023-07-14+02:00"))
        XCTAssertNil(scan("2023-07-14Z"))
        // XMP's took `:` and `-` mixed in one date; the separator is now the same at both places.
        XCTAssertNil(scan("2023-07:14T10:11:12Z", .xmp))
        XCTAssertEqual(seconds("2023:07:14 10:11:12Z", .xmp), 1_689_329_472)
    }

    func testTheXMPGrammar() {
        XCTAssertEqual(scan("2015-01-22T00:00:00 +01:00", .xmp)?.offset, 3_600)
        XCTAssertNil(scan("2015-01-22T00:00:00 +01:00"))
        XCTAssertEqual(scan("2015-01-22T00:00:00+1:30", .xmp)?.offset, 5_400)
        XCTAssertNil(scan("2015-01-22T00:00:00+130", .xmp))
        XCTAssertNil(scan("2015-01-22T00:00:00+1:30"))
        XCTAssertNil(scan("2023:07:14 10:11:12Z"))
    }

    func testMalformed() {
        for text in ["", "2023", "2023-07", "2023-7-14", "2023-13-01", "2023-00-10", "2023-07-00", "2023-07-14T", "2023-07-14T10",
                     "2023-07-14T10:60", "2023-07-14T10:11:61", "2023-07-14T10:11:12+24:00", "2023-07-14T10:11:12+02:60",
                     "2023-07-14T10:11:12 Z", " 2023-07-14", "2023-07-14T10:11:12Zx", "2023-07-14X10:11", "2023/07/14"] {
            XCTAssertNil(scan(text), text)
        }
    }

    func testGDALDates() {
        XCTAssertEqual(DateTimeText.isoDate(ofGDAL: "2024/05/01 10:00:00+00"), "2024-05-01 10:00:00+00")
        XCTAssertEqual(DateTimeText.isoDate(ofGDAL: "2024/05-01"), "2024/05-01")
        XCTAssertEqual(DateTimeText.isoDate(ofGDAL: "01/05/2024"), "01/05/2024")
    }
}
