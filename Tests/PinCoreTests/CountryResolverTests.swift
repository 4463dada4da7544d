import XCTest
@testable import PinCore

/// Country resolution against the shipped Natural Earth 1:10m data and hand-picked points
/// (Fixtures/countries/points.tsv: expected answers from geography, cross-checked with shapely).
final class CountryResolverTests: XCTestCase {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    nonisolated(unsafe) static var shared: CountryResolver?

    static func resolver() throws -> CountryResolver {
        if let shared { return shared }
        let data = try Data(contentsOf: repo.appendingPathComponent("Resources/Countries.geojson"))
        let resolver = CountryResolver(polygons: try CountryGeoJSONParser.parse([UInt8](data)))
        shared = resolver
        return resolver
    }

    func code(_ lat: Double, _ lon: Double) throws -> String? {
        try Self.resolver().countryCode(at: Coordinate(latitude: lat, longitude: lon))
    }

    func testHandPickedPoints() throws {
        let text = try String(contentsOf: Self.repo.appendingPathComponent("Fixtures/countries/points.tsv"), encoding: .utf8)
        var checked = 0
        for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.hasPrefix("latitude") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 3, let lat = Double(fields[0]), let lon = Double(fields[1]) else { continue }
            let expected = fields[2] == "-" ? nil : fields[2]
            XCTAssertEqual(try code(lat, lon), expected, "\(lat),\(lon) \(fields.count > 3 ? fields[3] : "")")
            checked += 1
        }
        XCTAssertGreaterThan(checked, 50)
    }

    func testEnclavesAndHoles() throws {
        XCTAssertEqual(try code(-29.31, 27.48), "LS")        // Maseru, Lesotho: a hole in South Africa
        XCTAssertEqual(try code(-28.5, 26.0), "ZA")          // Free State, South Africa
        XCTAssertEqual(try code(43.9356, 12.4473), "SM")     // City of San Marino
        XCTAssertEqual(try code(41.9033, 12.4534), "VA")     // Vatican: NE 10m draws it as a 110 m box north of St Peter's
        XCTAssertEqual(try code(41.8933, 12.4829), "IT")     // Rome, Piazza Venezia
    }

    func testPolesAndOpenOcean() throws {
        XCTAssertEqual(try code(-90, 0), "AQ")
        XCTAssertEqual(try code(-90, 123), "AQ")
        XCTAssertNil(try code(90, 0))
        XCTAssertNil(try code(0, -30))      // mid-Atlantic
        XCTAssertNil(try code(-40, -140))   // South Pacific
    }

    func testCoastalRule() throws {
        // About 3 km off the Promenade des Anglais, Nice: at sea, but within 22 km of France.
        XCTAssertEqual(try code(43.665, 7.27), "FR")
        // About 60 km south of Nice: open sea.
        XCTAssertNil(try code(43.15, 7.27))
    }

    func testInvalidInputHasNoCountry() throws {
        XCTAssertNil(try code(.nan, 0))
        XCTAssertNil(try code(91, 0))
        XCTAssertNil(try code(0, 181))
    }

    func testGridAgreesWithAPlainRayCastAwayFromBorders() throws {
        // Every point the grid answers must agree with a plain even-odd ray cast over all rings.
        let resolver = try Self.resolver()
        let data = try Data(contentsOf: Self.repo.appendingPathComponent("Resources/Countries.geojson"))
        let polygons = try CountryGeoJSONParser.parse([UInt8](data))
        var generator = SplitMix(seed: 7)
        for _ in 0..<60 {
            let p = Coordinate(latitude: generator.uniform(-60, 75), longitude: generator.uniform(-180, 180))
            var parity = [Bool](repeating: false, count: polygons.codes.count)
            for ring in polygons.rings {
                var j = ring.start + ring.count - 1
                for i in ring.start..<(ring.start + ring.count) {
                    let (xi, yi, xj, yj) = (polygons.xs[i], polygons.ys[i], polygons.xs[j], polygons.ys[j])
                    if (yi > p.latitude) != (yj > p.latitude),
                       p.longitude < (xj - xi) * (p.latitude - yi) / (yj - yi) + xi {
                        parity[ring.country].toggle()
                    }
                    j = i
                }
            }
            let expected = parity.firstIndex(of: true)
            XCTAssertEqual(resolver.containingCountry(p), expected, "\(p)")
        }
    }

    func testParserReadsHolesAndAnyKeyOrder() throws {
        let json = """
        {"features":[{"geometry":{"coordinates":[[[0,0],[10,0],[10,10],[0,10],[0,0]],[[4,4],[6,4],[6,6],[4,6],[4,4]]],
        "type":"Polygon"},"type":"Feature","properties":{"name":"Square \\u00e9","iso_a2":"SQ","extra":[1,{"a":null}]}},
        {"type":"Feature","properties":{"iso_a2":"IN","name":"Inner"},"geometry":{"type":"MultiPolygon",
        "coordinates":[[[[4,4],[6,4],[6,6],[4,6],[4,4]]]]}}],"type":"FeatureCollection"}
        """
        let polygons = try CountryGeoJSONParser.parse(Array(json.utf8))
        XCTAssertEqual(polygons.codes, ["SQ", "IN"])
        XCTAssertEqual(polygons.names[0], "Square é")
        XCTAssertEqual(polygons.rings.count, 3)
        let resolver = CountryResolver(polygons: polygons, cellDegrees: 1, coastalKilometres: 0)
        XCTAssertEqual(resolver.countryCode(at: Coordinate(latitude: 2, longitude: 2)), "SQ")
        XCTAssertEqual(resolver.countryCode(at: Coordinate(latitude: 5, longitude: 5)), "IN")
        XCTAssertEqual(resolver.countryCode(at: Coordinate(latitude: 5.5, longitude: 4.5)), "IN")
        XCTAssertNil(resolver.countryCode(at: Coordinate(latitude: 11, longitude: 5)))
    }

    func testParserRejectsBrokenInput() {
        for bad in ["", "{", "{\"features\":[{\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,2]}}]}",
                    "{\"features\":[{\"geometry\":{\"type\":\"Polygon\",\"coordinates\":[[[1,2],[3]]]}}]}",
                    "{\"features\":[{\"geometry\":{\"type\":\"Polygon\",\"coordinates\":[[[1,200],[3,4],[5,6]]]}}]}"] {
            XCTAssertThrowsError(try CountryGeoJSONParser.parse(Array(bad.utf8)), bad)
        }
    }
}
