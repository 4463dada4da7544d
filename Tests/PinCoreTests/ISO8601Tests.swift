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
}
