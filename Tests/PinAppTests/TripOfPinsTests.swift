import Foundation
@testable import PinApp
@testable import PinCore
import XCTest

/// Each pin's trip, looked up in the sorted ids (`TripOfPins`), against the answers worked out
/// by hand: ids whose first bytes tie and differ only in the last (the low word), an id on no
/// trip, below, between and above the ids kept, and a pin on two trips (the later one's).
final class TripOfPinsTests: XCTestCase {
    private func id(_ text: String) -> UUID { UUID(uuidString: text)! }

    private func trip(_ day: String, _ pins: [UUID]) -> Trip {
        let start = LocalDay(text: day)!
        return Trip(start: start, end: start, awayDays: 1, countries: [], places: [], pinIDs: pins, newCountries: [],
                    daysByCountry: [:], title: day)
    }

    func testEachPinFindsItsTripAndAPinOnNoneFindsNothing() {
        let a = id("00000000-0000-0000-0000-000000000002"), b = id("00000000-0000-0000-0000-000000000001")
        let c = id("FFFFFFFF-0000-0000-0000-000000000000"), d = id("80000000-0000-0000-0000-0000000000FF")
        let shared = id("80000000-0000-0000-0000-000000000100")
        let tripOf = TripOfPins([trip("2024-01-05", [a, c, shared]), trip("2024-03-01", [d, b, shared])])
        XCTAssertEqual(tripOf[a], "2024-01-05")
        XCTAssertEqual(tripOf[b], "2024-03-01")
        XCTAssertEqual(tripOf[c], "2024-01-05")
        XCTAssertEqual(tripOf[d], "2024-03-01")
        XCTAssertEqual(tripOf[shared], "2024-03-01", "on two trips: the later one's, as a dictionary's last write gave")
        XCTAssertEqual(tripOf.count, 5)
        XCTAssertEqual(tripOf.values, ["2024-03-01", "2024-01-05", "2024-03-01", "2024-03-01", "2024-01-05"],
                       "in the order of the ids' bytes: b, a, d, shared, c")
        for none in ["00000000-0000-0000-0000-000000000000", "00000000-0000-0000-0000-000000000003",
                     "80000000-0000-0000-0000-0000000000FE", "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF"] {
            XCTAssertNil(tripOf[id(none)], none)
        }
        XCTAssertNil(TripOfPins([])[a])
    }
}
