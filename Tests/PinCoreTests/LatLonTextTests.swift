import XCTest
@testable import PinCore

/// The one `lat,lon` grammar (`pins locate`, `--near`): hand-picked texts and the answers a
/// person expects of them.
final class LatLonTextTests: XCTestCase {
    func position(_ text: String) -> Coordinate? { LatLonText.parse(text) }

    func failure(_ text: String) -> String? {
        Array(text.utf8).withUnsafeBufferPointer { buffer in
            if case let .failure(why) = LatLonText.parse(buffer) { return why.description }
            return nil
        }
    }

    func testDecimalDegreesWithSpacesAndACarriageReturn() throws {
        for text in ["48.8584,2.2945", " 48.8584 , 2.2945", "48.8584,\t2.2945\r", "+48.8584,+2.2945"] {
            let point = try XCTUnwrap(position(text), text)
            XCTAssertEqual(point.latitude, 48.8584, text)
            XCTAssertEqual(point.longitude, 2.2945, text)
        }
        XCTAssertEqual(position("-33.8568,151.2153")?.latitude, -33.8568)
        XCTAssertEqual(position("4.88584e1,2")?.latitude, 48.8584)
        XCTAssertEqual(position("90,-180")?.longitude, -180)
        // More than 15 significant digits go the strtod way, still correctly rounded.
        XCTAssertEqual(position("48.85840000000000001,2")?.latitude, 48.8584)
    }

    func testWhatIsNotAPositionSaysWhy() {
        XCTAssertEqual(failure(""), "empty line, expected 'lat,lon'")
        XCTAssertEqual(failure("  \r"), "empty line, expected 'lat,lon'")
        XCTAssertEqual(failure("48.85;2.35"), "expected 'lat,lon', got '48.85;2.35'")
        XCTAssertEqual(failure("48.85,east"), "expected 'lat,lon' as two decimal numbers, got '48.85,east'")
        XCTAssertEqual(failure("48.85,2.35,7"), "expected 'lat,lon', got '48.85,2.35,7'")
        XCTAssertEqual(failure("91,0"), "latitude 91.0 is out of range (-90 to 90)")
        XCTAssertEqual(failure("0,180.5"), "longitude 180.5 is out of range (-180 to 180)")
        // Forms Double(String) takes and a position typed by a person never is.
        for text in ["0x10,2", "nan,1", "inf,2", "1,-inf", "48,85,2,35"] {
            XCTAssertNil(position(text), text)
        }
    }
}
