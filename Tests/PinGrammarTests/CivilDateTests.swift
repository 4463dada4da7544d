import XCTest
@testable import PinGrammar

final class CivilDateTests: XCTestCase {
    /// Day numbers as `date -u -d 2000-03-01 +%s` / 86400 gives them.
    func testDaysFromHandWorkedDates() {
        XCTAssertEqual(CivilDate.days(year: 1970, month: 1, day: 1), 0)
        XCTAssertEqual(CivilDate.days(year: 2000, month: 3, day: 1), 11_017)
        XCTAssertEqual(CivilDate.days(year: 1969, month: 12, day: 31), -1)
        XCTAssertEqual(CivilDate.days(year: 2024, month: 2, day: 29), 19_782)
        // 0001-01-01: -62135596800 s, ISO 8601's first four-digit year.
        XCTAssertEqual(CivilDate.days(year: 1, month: 1, day: 1), -719_162)
        XCTAssertEqual(CivilDate.days(year: 9999, month: 12, day: 31), 2_932_896)
    }

    func testDateIsTheInverseOfDays() {
        for days in stride(from: -719_162, through: 2_932_896, by: 997) {
            let d = CivilDate.date(days: days)
            XCTAssertTrue(CivilDate.isValid(year: d.year, month: d.month, day: d.day), "\(days)")
            XCTAssertEqual(CivilDate.days(year: d.year, month: d.month, day: d.day), days)
        }
        XCTAssertTrue(CivilDate.date(days: 11_017) == (2000, 3, 1))
    }

    /// gmtime's split: a second before 1970 is 1969-12-31 23:59:59.
    func testSplitOfSecondsBefore1970() {
        XCTAssertTrue(CivilDate.split(seconds: -1) == (1969, 12, 31, 86_399))
        XCTAssertTrue(CivilDate.split(seconds: 1_689_329_472) == (2023, 7, 14, 36_672))
    }

    func testValidDates() {
        XCTAssertTrue(CivilDate.isValid(year: 2000, month: 2, day: 29))
        XCTAssertFalse(CivilDate.isValid(year: 1900, month: 2, day: 29))
        XCTAssertFalse(CivilDate.isValid(year: 2023, month: 4, day: 31))
        XCTAssertFalse(CivilDate.isValid(year: 0, month: 1, day: 1))
        XCTAssertFalse(CivilDate.isValid(year: 10_000, month: 1, day: 1))
        XCTAssertFalse(CivilDate.isValid(year: 2023, month: 13, day: 1))
    }
}
