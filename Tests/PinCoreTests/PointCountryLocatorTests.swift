import XCTest
@testable import PinCore

/// `pins add` resolves one position from the rings near its latitude (PointCountryLocator):
/// it must answer exactly as the whole index does, and as geography says.
final class PointCountryLocatorTests: XCTestCase {
    /// Fails the test when asked: the point locator must not need all the outlines for its point.
    final class Unexpected: CountryLocating, @unchecked Sendable {
        func countryCode(at point: Coordinate) -> String? {
            XCTFail("asked the full outlines for \(point)")
            return nil
        }
        func prepare() throws {}
    }

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

    /// Whole parallels through an enclave, a hole, coasts and borders (step 0.05 degrees of
    /// longitude, 7,200 points each): every answer equals the whole index's, and the
    /// hand-checked places on them are right.
    func testAlongWholeParallelsItAnswersAsTheWholeIndex() throws {
        let data = try Data(contentsOf: CountryResolverTests.repo.appendingPathComponent("Resources/Countries.geojson"))
        let polygons = try CountryGeoJSONParser.parse([UInt8](data))
        let full = try CountryResolverTests.resolver()
        // Maseru (Lesotho inside South Africa; Chile, Argentina, Australia), Vatican (Italy, the
        // Balkans, the Caucasus, Central Asia, China, Korea, Japan, the US), the sea off Nice
        // (coastal rule).
        let places: [(Double, Double, String?)] = [(-29.31, 27.48, "LS"), (41.9033, 12.4534, "VA"), (43.665, 7.27, "FR")]
        for (latitude, longitude, expected) in places {
            let locator = PointCountryLocator(polygons: polygons, latitude: latitude, fallback: Unexpected())
            XCTAssertEqual(locator.countryCode(at: Coordinate(latitude: latitude, longitude: longitude)), expected)
            let (differing, countries) = Self.sweep(latitude, near: locator.countryCode, whole: full.countryCode)
            XCTAssertEqual(differing, [], "latitude \(latitude)")
            if latitude == 41.9033 { XCTAssertGreaterThan(countries.count, 15, "the parallel crosses many countries: \(countries)") }
        }
        // Another latitude goes to the fallback.
        let paris = PointCountryLocator(polygons: polygons, latitude: 48.8584, fallback: full)
        XCTAssertEqual(paris.countryCode(at: Coordinate(latitude: -33.8568, longitude: 151.2153)), "AU")
    }

    /// The same for the time-zone outlines (`pins add --date` without an offset): along whole
    /// parallels (step 0.05 degrees), the zone index made for one latitude answers as the whole.
    func testAZoneIndexForOneLatitudeAnswersAsTheWholeOne() throws {
        let data = [UInt8](try Data(contentsOf: CountryResolverTests.repo.appendingPathComponent("Resources/TimeZones.bin")))
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
