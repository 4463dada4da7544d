import Foundation
@testable import PinCore
@testable import PinStore
import TestSupport
import XCTest

/// Issue 38 item 3: countries by the names a person writes (Natural Earth's English names where
/// ISO 3166-1 has only an official form), and schema 17 renaming what an old database stored.
final class CountryNamesTests: XCTestCase {
    /// Countries.json, checked by hand against the names in an atlas: the 11 renamed, the
    /// iso-codes common names kept, and no inverted or bracketed official form left but the
    /// three that are lists or a proper name.
    func testTheShippedNamesAreTheCommonEnglishForms() throws {
        let entries = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try ShippedData.files.read("Countries.json"))) as? [[String: Any]])
        var name: [String: String] = [:]
        for e in entries { name[e["alpha2"] as! String] = (e["name"] as! String) }
        let expected = ["RU": "Russia", "BO": "Bolivia", "IR": "Iran", "VN": "Vietnam", "KR": "South Korea", "KP": "North Korea",
                        "TZ": "Tanzania", "LA": "Laos", "SY": "Syria", "MD": "Moldova", "VE": "Venezuela", "TW": "Taiwan",
                        "BN": "Brunei", "CD": "Democratic Republic of the Congo", "CG": "Congo", "FK": "Falkland Islands",
                        "FM": "Federated States of Micronesia", "MF": "Saint Martin", "SX": "Sint Maarten", "PS": "Palestine",
                        "VA": "Vatican City", "VG": "British Virgin Islands", "VI": "United States Virgin Islands",
                        "GB": "United Kingdom", "US": "United States", "FR": "France", "RE": "Réunion"]
        for (code, want) in expected { XCTAssertEqual(name[code], want, code) }
        let official = name.filter { $0.value.contains(",") || $0.value.contains("(") }.keys.sorted()
        XCTAssertEqual(official, ["BQ", "CC", "SH"])
        for (code, _, new) in CountryNames.renamed { XCTAssertEqual(name[code], new, "CountryNames.renamed is Countries.json's") }
    }

    /// A schema 16 database with Moscow under the old name: the countries row and the made
    /// titles ("Moscow, Russian Federation", "Russian Federation, 2019-04-02") take the new
    /// name; an edited pin's and a person's own title stay.
    func testAnOldDatabaseTakesTheNewNames() throws {
        let path = try temporaryDatabasePath(self)
        let pins: [(String, String, String, String?, Bool)] = [
            ("1", "Moscow, Russian Federation", "RU", "Moscow", false),
            ("2", "Russian Federation, 2019-04-02", "RU", nil, false),
            ("3", "Kazan, Russian Federation", "RU", "Kazan", true),
            ("4", "Dacha near Moscow", "RU", "Moscow", false),
            ("5", "Road Town, Virgin Islands, British", "VG", "Road Town", false),
            ("6", "Paris, France", "FR", "Paris", false),
        ]
        do {
            let old = try PinDatabase(path: path, migrateUpTo: 16)
            try old.connection.run("""
                INSERT INTO countries (id, name, continent, pin_count) VALUES ('RU', 'Russian Federation', 'Europe', 4),
                ('VG', 'Virgin Islands, British', 'North America', 1), ('FR', 'France', 'Europe', 1)
                """)
            for (id, title, country, place, edited) in pins {
                try old.connection.run("""
                    INSERT INTO locations (id, title, latitude, longitude, country_id, type, date, color, visit_count, photo_ids,
                                           created_at, place, places_resolved, edited_at)
                    VALUES (?, ?, 55.75, 37.62, ?, 'point', 0, '#E53935', 1, '["/p/a.jpg"]', 0, ?, 1, ?)
                    """, ["00000000-0000-4000-8000-00000000000\(id)", title, country, place, edited ? 5.0 : nil])
            }
        }
        let db = try PinDatabase(path: path)
        XCTAssertEqual(try db.connection.query("SELECT title FROM locations ORDER BY id") { $0.string(0) }, [
            "Moscow, Russia", "Russia, 2019-04-02", "Kazan, Russian Federation", "Dacha near Moscow",
            "Road Town, British Virgin Islands", "Paris, France",
        ])
        XCTAssertEqual(try db.connection.query("SELECT id, name FROM countries ORDER BY id") { "\($0.string(0)) \($0.string(1))" },
                       ["FR France", "RU Russia", "VG British Virgin Islands"])
    }
}
