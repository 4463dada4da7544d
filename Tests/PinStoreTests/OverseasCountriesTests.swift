import Foundation
@testable import PinCore
@testable import PinStore
import TestSupport
import XCTest

/// Issue 38: schema 9 moves the pins stored with a sovereign's code in an overseas part that
/// ISO 3166-1 counts as a country (OverseasCountries).
final class OverseasCountriesTests: XCTestCase {
    /// A database as schema 8 left it, pins at hand-worked points (town centres from geography):
    /// Saint-Denis de La Réunion (-20.8789, 55.4481), Cayenne (4.9372, -52.3260), Longyearbyen
    /// (78.2232, 15.6267), Paris (48.8566, 2.3522), Ajaccio (41.9192, 8.7386), Tromsø
    /// (69.6492, 18.9553), a hand-made pin at Mamoudzou (-12.7806, 45.2278).
    func testAnOldDatabaseMovesItsOverseasPinsAndCounts() throws {
        let path = try temporaryDatabasePath(self)
        // id, title, lat, lon, stored country, place, photo ids, edited
        let pins: [(String, String, Double, Double, String, String?, String, Bool)] = [
            ("1", "Saint-Denis, France", -20.8789, 55.4481, "FR", "Saint-Denis", #"["/p/a.jpg"]"#, false),
            ("2", "Cayenne, France", 4.9372, -52.3260, "FR", "Cayenne", #"["/p/b.jpg"]"#, true),
            ("3", "Norway, 2019-04-02", 78.2232, 15.6267, "NO", nil, #"["/p/c.jpg"]"#, false),
            ("4", "Paris, France", 48.8566, 2.3522, "FR", "Paris", #"["/p/d.jpg"]"#, false),
            ("5", "Ajaccio, France", 41.9192, 8.7386, "FR", "Ajaccio", #"["/p/e.jpg"]"#, false),
            ("6", "Tromsø, Norway", 69.6492, 18.9553, "NO", "Tromsø", #"["/p/f.jpg"]"#, false),
            ("7", "Mamoudzou, France", -12.7806, 45.2278, "FR", "Mamoudzou", "[]", false),
        ]
        do {
            let old = try PinDatabase(path: path, migrateUpTo: 8)
            try old.connection.run("INSERT INTO countries (id, name, continent, pin_count) VALUES ('FR', 'France', 'Europe', 5), ('NO', 'Norway', 'Europe', 2)")
            for (id, title, lat, lon, country, place, photos, edited) in pins {
                try old.connection.run("""
                    INSERT INTO locations (id, title, latitude, longitude, country_id, type, date, color, visit_count, photo_ids,
                                           created_at, place, places_resolved, edited_at)
                    VALUES (?, ?, ?, ?, ?, 'point', 0, '#E53935', 1, ?, 0, ?, 1, ?)
                    """, ["00000000-0000-4000-8000-00000000000\(id)", title, lat, lon, country, photos, place, edited ? 5.0 : nil])
            }
        }
        let db = try PinDatabase(path: path)
        let stored = try db.connection.query("SELECT title, country_id FROM locations ORDER BY id") { [$0.string(0), $0.string(1)] }
        XCTAssertEqual(stored, [
            ["Saint-Denis, Réunion", "RE"],
            ["Cayenne, France", "GF"],                       // edited: the person's title stays
            ["Svalbard and Jan Mayen, 2019-04-02", "SJ"],    // the pre-places title, for PlaceBackfill
            ["Paris, France", "FR"],
            ["Ajaccio, France", "FR"],                       // Corsica is metropolitan France
            ["Tromsø, Norway", "NO"],
            ["Mamoudzou, France", "YT"],                     // made by hand: its title stays
        ])
        let counts = try db.connection.query("SELECT id, name, continent, pin_count FROM countries ORDER BY id") {
            "\($0.string(0)) \($0.string(1)) \($0.string(2)) \($0.int(3))"
        }
        XCTAssertEqual(counts, ["FR France Europe 2", "GF French Guiana South America 1", "NO Norway Europe 1",
                                "RE Réunion Africa 1", "SJ Svalbard and Jan Mayen Europe 1", "YT Mayotte Africa 1"])
        XCTAssertEqual(try db.countMismatches(), [])
    }

    /// A read-only open of the old file (migrated in memory) shows the new countries too.
    func testReadOnlyOpenSeesTheNewCodes() throws {
        let path = try temporaryDatabasePath(self)
        do {
            let old = try PinDatabase(path: path, migrateUpTo: 8)
            try old.connection.run("INSERT INTO countries (id, name, continent, pin_count) VALUES ('FR', 'France', 'Europe', 1)")
            try old.connection.run("""
                INSERT INTO locations (id, title, latitude, longitude, country_id, type, date, color, visit_count, photo_ids, created_at)
                VALUES ('00000000-0000-4000-8000-000000000001', 'x', -20.8789, 55.4481, 'FR', 'point', 0, '#E53935', 1, '[]', 0)
                """)
        }
        let reader = try PinDatabase(readOnlyPath: path)
        XCTAssertEqual(try reader.connection.query("SELECT id, pin_count FROM countries") { "\($0.string(0)) \($0.int(1))" }, ["RE 1"])
    }

    /// The boxes against the shipped outlines: each part's polygons lie inside its boxes with
    /// 22 km to spare (a pin the coastal rule gives the part is in the box), the sovereign's
    /// remaining polygons lie more than 22 km from every box (a pin the outlines give the
    /// sovereign is not moved), and the names and continents are Countries.json's.
    func testBoxesHoldEachPartAndNothingOfItsSovereign() throws {
        let codes = Set(OverseasCountries.parts.map(\.code) + OverseasCountries.parts.map(\.sovereign))
        let text = try ShippedData.files.read("Countries.geojson")
        var rings: [String: [[(Double, Double)]]] = [:]
        for (code, geometry) in try CountryGeoJSONParser.geometries(Array(text), of: codes) {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(geometry)) as? [String: Any])
            let coordinates = object["coordinates"] as? [Any] ?? []
            let polygons = (object["type"] as? String) == "Polygon" ? [coordinates] : coordinates
            for polygon in polygons {
                guard let outer = (polygon as? [Any])?.first as? [[Double]] else { continue }
                rings[code, default: []].append(outer.map { ($0[1], $0[0]) })
            }
        }
        let km = 111.2
        func kmOutside(_ box: (Double, Double, Double, Double), _ p: (Double, Double)) -> Double {
            let dy = max(box.0 - p.0, 0, p.0 - box.2) * km
            let dx = max(box.1 - p.1, 0, p.1 - box.3) * km * cos(p.0 * .pi / 180)
            return (dx * dx + dy * dy).squareRoot()
        }
        func kmInside(_ box: (Double, Double, Double, Double), _ p: (Double, Double)) -> Double {
            let ns = min(p.0 - box.0, box.2 - p.0) * km
            let ew = min(p.1 - box.1, box.3 - p.1) * km * cos(p.0 * .pi / 180)
            return min(ns, ew)
        }
        let catalog = try ShippedData.files.catalog()
        for part in OverseasCountries.parts {
            XCTAssertEqual(catalog[part.code]?.name, part.name)
            XCTAssertEqual(catalog[part.code]?.continent, part.continent)
            XCTAssertEqual(catalog[part.sovereign]?.name, OverseasCountries.sovereignNames[part.sovereign])
            XCTAssertEqual(catalog[part.sovereign]?.continent, OverseasCountries.sovereignContinents[part.sovereign])
            let sovereign = try XCTUnwrap(rings[part.sovereign])
            let nearest = sovereign.joined().map { kmOutside(part.box, $0) }.min() ?? 0
            XCTAssertGreaterThan(nearest, 22, "\(part.code): \(part.sovereign)'s land \(nearest) km from the box")
        }
        for (code, partRings) in rings where !OverseasCountries.sovereignNames.keys.contains(code) {
            for ring in partRings {
                let boxes = OverseasCountries.parts.filter { $0.code == code }.map(\.box)
                let inside = boxes.first { box in ring.allSatisfy { kmInside(box, $0) > 22 } }
                XCTAssertNotNil(inside, "\(code): a polygon at \(ring[0]) is not 22 km inside a box")
            }
        }
        XCTAssertEqual(Set(rings.keys), codes, "every part and sovereign has outlines")
    }

    /// The same answer as resolving again: at each hand-worked point the shipped outlines give
    /// the code the migration gives a pin stored as the sovereign's.
    func testTheMigrationAgreesWithTheOutlines() throws {
        let resolver = try ShippedData.countries()
        let points: [(Double, Double, String, String)] = [
            (-20.8789, 55.4481, "FR", "RE"), (4.9372, -52.3260, "FR", "GF"), (78.2232, 15.6267, "NO", "SJ"),
            (16.2411, -61.5331, "FR", "GP"), (14.6161, -61.0588, "FR", "MQ"), (-12.7806, 45.2278, "FR", "YT"),
            (12.1500, -68.2767, "NL", "BQ"), (-10.4217, 105.6791, "AU", "CX"), (-12.1880, 96.8290, "AU", "CC"),
            (-9.3800, -171.2200, "NZ", "TK"), (70.98, -8.5, "NO", "SJ"), (-54.42, 3.4, "NO", "BV"),
            (48.8566, 2.3522, "FR", "FR"), (41.9192, 8.7386, "FR", "FR"), (69.6492, 18.9553, "NO", "NO"),
        ]
        for (lat, lon, sovereign, expected) in points {
            XCTAssertEqual(resolver.countryCode(at: Coordinate(latitude: lat, longitude: lon)), expected, "\(lat),\(lon)")
            let moved = OverseasCountries.part(of: sovereign, latitude: lat, longitude: lon)?.code ?? sovereign
            XCTAssertEqual(moved, expected, "\(lat),\(lon)")
        }
    }

    func testOnlyTitlesPinsMadeAreRetitled() {
        let place = PinPlace(place: "Saint-Denis")
        XCTAssertEqual(OverseasCountries.retitled("Saint-Denis, France", place: place, from: "France", to: "Réunion"), "Saint-Denis, Réunion")
        XCTAssertEqual(OverseasCountries.retitled("France, 2019-04-02", place: place, from: "France", to: "Réunion"), "Réunion, 2019-04-02")
        XCTAssertEqual(OverseasCountries.retitled("France, trip", place: place, from: "France", to: "Réunion"), "France, trip")
        XCTAssertEqual(OverseasCountries.retitled("France, 2019-04-0x", place: place, from: "France", to: "Réunion"), "France, 2019-04-0x")
        XCTAssertEqual(OverseasCountries.retitled("Beach day", place: place, from: "France", to: "Réunion"), "Beach day")
        XCTAssertEqual(OverseasCountries.retitled("France", place: .none, from: "France", to: "Réunion"), "Réunion")
    }
}
