import TestSupport
import XCTest
@testable import PinCore

/// Country resolution against the shipped Natural Earth 1:10m data and hand-picked points
/// (Fixtures/countries/points.tsv: expected answers from geography, cross-checked with shapely).
final class CountryResolverTests: XCTestCase {
    static let repo = Repository.root
    nonisolated(unsafe) static var sharedFromOutlines: CountryResolver?

    /// The resolver pins uses: read from Resources/Countries.bin.
    static func resolver() throws -> CountryResolver { try ShippedData.countries() }

    /// The same index built from Resources/Countries.geojson (CountryIndexFileTests compares them).
    static func geoJSONResolver() throws -> CountryResolver {
        if let sharedFromOutlines { return sharedFromOutlines }
        let data = Data(try ShippedData.files.read("Countries.geojson"))
        let resolver = CountryResolver(polygons: try CountryGeoJSONParser.parse([UInt8](data)))
        sharedFromOutlines = resolver
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
        let data = Data(try ShippedData.files.read("Countries.geojson"))
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

    /// The outlines as flat lists, to compare with hand-worked ones.
    private func rings(_ polygons: CountryPolygons) -> [(country: String, vertices: [[Double]])] {
        polygons.rings.map { ring in
            (polygons.codes[ring.country], (ring.start..<(ring.start + ring.count)).map { [polygons.xs[$0], polygons.ys[$0]] })
        }
    }

    func testParserGivesTheHandWorkedPolygons() throws {
        // A Polygon with a hole (open exterior ring: closed on load), whitespace of every kind,
        // exponents in both cases and signs, negative numbers, an altitude, a ring of two
        // positions (not an outline: dropped), the geometry before the properties and the
        // coordinates before the type; a MultiPolygon of two polygons; a second feature of the
        // same code adds to that country; a feature without iso_a2 or with a Point is refused or
        // left out as the old parser did.
        let json = "{ \"type\" : \"FeatureCollection\" ,\n\t\"features\" : [\r\n"
            + "{\"geometry\": {\"coordinates\": [ [ [-1.5e1, -2.5E+0], [ 1.5e1 ,-25E-1 ], [15, 1.25e1, 300], [-15.0, 12.5] ],\n"
            + "  [[-1,0],[1,0],[0,1],[-1,0]], [[0, 0], [1, 1]] ], \"type\": \"Polygon\"},\n"
            + " \"type\": \"Feature\", \"properties\": {\"name\": \"Hole\", \"iso_a2\": \"HO\"}},\n"
            + "{\"type\":\"Feature\",\"properties\":{\"iso_a2\":\"MP\",\"name\":\"Multi\"},\"geometry\":{\"type\":\"MultiPolygon\","
            + "\"coordinates\":[[[[100,-0.5],[101,-0.5],[101,0.5],[100,-0.5]]],[[[-179.999999,-89.5],[-179,-89.5],[-179,-89],[-179.999999,-89.5]]]]}},\n"
            + "{\"type\":\"Feature\",\"properties\":{\"iso_a2\":null,\"name\":\"No code\"},\"geometry\":{\"type\":\"Polygon\","
            + "\"coordinates\":[[[0,0],[1,0],[1,1],[0,0]]]}},\n"
            + "{\"type\":\"Feature\",\"properties\":{\"name\":\"Hole again\",\"iso_a2\":\"HO\"},\"geometry\":{\"type\":\"Polygon\","
            + "\"coordinates\":[[[50,50],[51,50],[51,51]]]}}\n"
            + "]}\n"
        let polygons = try CountryGeoJSONParser.parse(Array(json.utf8))
        XCTAssertEqual(polygons.codes, ["HO", "MP"])
        XCTAssertEqual(polygons.names, ["Hole", "Multi"])
        let got = rings(polygons)
        let expected: [(String, [[Double]])] = [
            ("HO", [[-15, -2.5], [15, -2.5], [15, 12.5], [-15, 12.5], [-15, -2.5]]),
            ("HO", [[-1, 0], [1, 0], [0, 1], [-1, 0]]),
            ("MP", [[100, -0.5], [101, -0.5], [101, 0.5], [100, -0.5]]),
            ("MP", [[-179.999999, -89.5], [-179, -89.5], [-179, -89], [-179.999999, -89.5]]),
            ("HO", [[50, 50], [51, 50], [51, 51], [50, 50]]),
        ]
        XCTAssertEqual(got.count, expected.count)
        for (g, e) in zip(got, expected) {
            XCTAssertEqual(g.country, e.0)
            XCTAssertEqual(g.vertices, e.1)
        }
        // Each number exactly as strtod reads it (the fast path is correctly rounded).
        XCTAssertEqual(polygons.xs[polygons.rings[3].start], -179.999999)
        XCTAssertEqual(polygons.ys[polygons.rings[2].start], -0.5)
    }

    func testParserIsTheSameWhateverTheKeyOrderAndSpacing() throws {
        // One country written four ways: the same outlines each time.
        let texts = [
            #"{"features":[{"properties":{"iso_a2":"AA","name":"A"},"geometry":{"type":"Polygon","coordinates":[[[0,0],[2,0],[2,2],[0,0]]]}}]}"#,
            #"{"features":[{"geometry":{"coordinates":[[[0,0],[2,0],[2,2],[0,0]]],"type":"Polygon"},"properties":{"name":"A","iso_a2":"AA"}}]}"#,
            "{\n  \"features\": [\n    {\n      \"geometry\": {\n        \"type\": \"Polygon\",\n        \"coordinates\": [\n"
                + "          [ [ 0.0, 0e0 ], [ 2, 0 ], [ 0.2e1, 20E-1 ], [ 0, -0 ] ]\n        ]\n      },\n"
                + "      \"properties\": { \"iso_a2\": \"AA\", \"name\": \"A\", \"pop\": 1.5e6 }\n    }\n  ]\n}\n",
            #"{"features":[{"geometry":{"type":"MultiPolygon","coordinates":[[[[0,0],[2,0],[2,2]]]]},"properties":{"iso_a2":"AA","name":"A"}}]}"#,
        ]
        for text in texts {
            let polygons = try CountryGeoJSONParser.parse(Array(text.utf8))
            XCTAssertEqual(polygons.codes, ["AA"], text)
            XCTAssertEqual(polygons.xs, [0, 2, 2, 0], text)
            XCTAssertEqual(polygons.ys, [0, 0, 2, 0], text)
            XCTAssertEqual(polygons.rings.map(\.count), [4], text)
        }
    }

    /// The export's outlines: the geometry of the wanted countries' features exactly as the file
    /// spells it, in file order (a country of two features gives two), whatever the key order
    /// and spacing; the others are skipped.
    func testGeometriesOfTheWantedCountriesAsTheFileSpellsThem() throws {
        let text = #"{"type":"FeatureCollection","features":[{"properties":{"iso_a2":"AA","name":"A"},"geometry": {"type":"Polygon","coordinates":[[[0,0],[2,0],[2,2],[0,0]]]} },"#
            + #"{"geometry":{"coordinates":[[[5,5],[6,5],[6,6]]],"type":"Polygon"},"properties":{"name":"B","iso_a2":"BB"}},"#
            + #"{"geometry":{"type":"Polygon","coordinates":[[[9, 9],[8,9],[8,8]]]},"properties":{"iso_a2":"AA"}},"#
            + #"{"geometry":{"type":"Polygon","coordinates":[[[1,1],[1,2],[2,2]]]},"properties":{"iso_a2":null}}]}"#
        let found = try CountryGeoJSONParser.geometries(Array(text.utf8), of: ["AA", "CC"])
        XCTAssertEqual(found.map(\.code), ["AA", "AA"])
        XCTAssertEqual(found.map { String(decoding: $0.geometry, as: UTF8.self) },
                       [#"{"type":"Polygon","coordinates":[[[0,0],[2,0],[2,2],[0,0]]]}"#,
                        #"{"type":"Polygon","coordinates":[[[9, 9],[8,9],[8,8]]]}"#])
        XCTAssertThrowsError(try CountryGeoJSONParser.geometries(Array(text.dropLast(3).utf8), of: ["AA"]))
    }
}
