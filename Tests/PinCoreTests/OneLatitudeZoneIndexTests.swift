import TestSupport
import XCTest
@testable import PinCore

/// `pins add --date` without an offset finds the zone of one position from the zone outlines
/// near its latitude: that index must answer exactly as the whole one does, and as geography says.
final class OneLatitudeZoneIndexTests: XCTestCase {
    /// Along the parallel at `latitude` (step 0.05 degrees): the longitudes where `near` and
    /// `whole` disagree, and the answers met.
    static func sweep(_ latitude: Double, near: (Coordinate) -> String?, whole: (Coordinate) -> String?) -> ([Double], Set<String>) {
        var differing: [Double] = []
        var met = Set<String>()
        for step in 0..<7_200 {
            let point = Coordinate(latitude: latitude, longitude: -180 + Double(step) * 0.05)
            let answer = near(point)
            if answer != whole(point) { differing.append(point.longitude) }
            if let answer { met.insert(answer) }
        }
        return (differing, met)
    }

    /// Along whole parallels (step 0.05 degrees), the zone index made for one latitude answers
    /// as the whole.
    func testAZoneIndexForOneLatitudeAnswersAsTheWholeOne() throws {
        let data = try ShippedData.files.read("TimeZones.bin")
        let full = try TimeZoneResolver(data: data)
        for (latitude, longitude, expected) in [(35.6586, 139.7454, "Asia/Tokyo"), (48.8584, 2.2945, "Europe/Paris")] {
            let near = try TimeZoneResolver(data: data, onlyAtLatitude: latitude)
            XCTAssertEqual(near.identifier(at: Coordinate(latitude: latitude, longitude: longitude)), expected)
            let (differing, zones) = Self.sweep(latitude, near: near.identifier, whole: full.identifier)
            XCTAssertEqual(differing, [], "latitude \(latitude)")
            XCTAssertGreaterThan(zones.count, 10, "\(zones)")
        }
    }

    func testOnlyTheRingsNearTheLatitudeAreKeptWhole() throws {
        var polygons = CountryPolygons()
        polygons.add(code: "AA", name: "North", rings: [[(0, 10), (1, 10), (1, 11)]])
        polygons.add(code: "BB", name: "South", rings: [[(0, -10), (1, -10), (1, -11)], [(0, 0), (1, 0), (1, 9.5)]])
        let kept = polygons.reaching(latitudes: 9...12)
        XCTAssertEqual(kept.codes, ["AA", "BB"], "countries keep their indices")
        XCTAssertEqual(kept.rings.map(\.country), [0, 1])
        XCTAssertEqual(kept.rings.map(\.count), [4, 4], "whole rings, closed")
        XCTAssertEqual(Array(kept.ys), [10, 10, 11, 10, 0, 0, 9.5, 0])
    }
}
