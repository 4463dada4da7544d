import Foundation
@testable import PinCore
import XCTest

/// pins serve keeps every pin (100,000 on the bench's NAS), so a `Location`'s bytes count. Worked
/// out by hand from its fields in order (x86-64: a String 16 bytes, an Optional of an 8-byte
/// value 9, each field at its alignment): id 0, title 16, coordinate 32, countryID 48, type 64
/// (a pointer: the visits are `indirect`), date 72, color 80, visitCount 96, note 104, tags 120,
/// photoIDs 128, runID 136, utcOffsetSeconds 152, editedAt 168, place 184, placeID 200, region
/// 216, regionCode 232, placesResolved 248, visitsByHand 249, photoCount 256, wanted 264: 265.
final class LocationLayoutTests: XCTestCase {
    func testALocationIsTheSizeItsFieldsMake() {
        XCTAssertEqual(MemoryLayout<LocationType>.size, 8, "the visits held by reference")
        XCTAssertEqual(MemoryLayout<Location>.size, 265)
    }

    func testAVisitHeldByReferenceIsAValueStill() {
        let city = CityVisitData(cityName: "Kyoto", cityCoordinate: Coordinate(latitude: 35.0116, longitude: 135.7681))
        var a = Location(id: UUID(), title: "Kyoto", coordinate: city.cityCoordinate, type: .city(city), date: Date(timeIntervalSince1970: 0))
        let b = a
        var changed = city
        changed.cityName = "Kyōto"
        a.type = .city(changed)
        guard case .city(let kept) = b.type, case .city(let now) = a.type else { return XCTFail("city pins") }
        XCTAssertEqual(kept.cityName, "Kyoto", "a copy keeps its own visit")
        XCTAssertEqual(now.cityName, "Kyōto")
        XCTAssertNotEqual(a, b)
    }
}
