import XCTest
@testable import PinFormats

/// `KMLCoordinates.first`, the one reader of `<coordinates>` for tracks and place files, on
/// hand-worked texts (OGC 07-147r2: `lon,lat[,alt]` tuples separated by white space).
final class KMLCoordinatesTests: XCTestCase {
    private func first(_ text: String) -> [Double?] {
        let r = KMLCoordinates.first(text)
        return [r.longitude, r.latitude]
    }

    func testTheFirstTuple() {
        XCTAssertEqual(first("2.35,48.85"), [2.35, 48.85])
        XCTAssertEqual(first("\n   2.35,48.85,35\n"), [2.35, 48.85])
        XCTAssertEqual(first("-122.0822035425683,37.42228990140251,0"), [-122.0822035425683, 37.42228990140251])
    }

    /// Where the two readers differed: the track reader split the whole text at commas, so a
    /// second tuple without altitude made the latitude `48.85 3` (no fix); the place reader split
    /// at white space first, so `2.35, 48.85` had an empty latitude (malformed). Both are now the
    /// first tuple's values.
    func testWhereTheTwoReadersDiffered() {
        XCTAssertEqual(first("2.35,48.85 3.1,49.2"), [2.35, 48.85])
        XCTAssertEqual(first("2.35, 48.85"), [2.35, 48.85])
        XCTAssertEqual(first("2.35 , 48.85 , 35"), [2.35, 48.85])
    }

    func testMissingOrUnreadable() {
        XCTAssertEqual(first(""), [nil, nil])
        XCTAssertEqual(first("   "), [nil, nil])
        XCTAssertEqual(first("2.35"), [2.35, nil])
        XCTAssertEqual(first("2.35,"), [2.35, nil])
        XCTAssertEqual(first(",48.85"), [nil, 48.85])
        XCTAssertEqual(first("east,north"), [nil, nil])
        XCTAssertEqual(first("2.35 48.85"), [2.35, nil])
        XCTAssertEqual(first("inf,nan"), [nil, nil])
    }
}
