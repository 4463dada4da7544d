import Foundation
import TestSupport
import XCTest
@testable import PinCore
@testable import PinStore

/// Issue 38 items 3 and 5 on stored pins: schema 13 hands every pin with a country to the
/// re-derive path (`PlaceBackfill`), which gives it its region by the outlines (docs/regions.md);
/// and the statistics' denominators, against the shipped data.
final class RegionsByOutlineMigrationTests: XCTestCase {
    func shipped() throws -> CreationService {
        CreationService(locator: try ShippedData.countries(), countries: CountryService(catalog: try ShippedData.files.catalog()),
                        places: try ShippedData.places(), ids: .system)
    }

    /// A database as schema 11 wrote it, regions as the place gave them: Drammen and Tromsø
    /// with none (their places carry Norway's 2020 counties), Madrid under ISO's name, a point
    /// in the Gilf Kebir desert with none (no town within 150 km), a pin titled by hand, one at sea.
    func testAnOldDatabaseGetsItsRegionsByOutline() throws {
        let path = try temporaryDatabasePath(self)
        // id, title, lat, lon, country, place, region, region code
        let pins: [(String, String, Double, Double, String?, String?, String?, String?)] = [
            ("1", "Drammen, Norway", 59.7439, 10.2045, "NO", "Drammen", nil, nil),
            ("2", "Tromsø, Norway", 69.6492, 18.9553, "NO", "Tromsø", nil, nil),
            ("3", "Madrid, Spain", 40.4168, -3.7038, "ES", "Madrid", "Madrid, Comunidad de", "ES-MD"),
            ("4", "Gilf Kebir", 23.5000, 26.0000, "EG", nil, nil, nil),
            ("5", "At sea", -70, 10, nil, nil, nil, nil),
        ]
        do {
            let old = try PinDatabase(path: path, migrateUpTo: 11)
            try old.connection.run("INSERT INTO countries (id, name, continent, pin_count) VALUES ('NO', 'Norway', 'Europe', 2), ('ES', 'Spain', 'Europe', 1), ('EG', 'Egypt', 'Africa', 1)")
            for (id, title, lat, lon, country, place, region, code) in pins {
                try old.connection.run("""
                    INSERT INTO locations (id, title, latitude, longitude, country_id, type, date, color, visit_count, photo_ids,
                                           created_at, place, region, region_code, places_resolved)
                    VALUES (?, ?, ?, ?, ?, 'point', 0, '#E53935', 1, '["/p/a.jpg"]', 0, ?, ?, ?, 1)
                    """, ["00000000-0000-4000-8000-00000000000\(id)", title, lat, lon, country, place, region, code])
            }
        }
        let db = try PinDatabase(path: path)
        XCTAssertEqual(db.schemaVersion, Migrations.latestVersion)
        XCTAssertTrue(try db.hasPinsWithoutPlaces(), "schema 13 hands the pins with a country to PlaceBackfill")
        let result = try db.write { try PlaceBackfill(creation: try shipped()).run(in: $0) }
        XCTAssertEqual(result, PlaceBackfill.Result(resolved: 4, retitled: 0), "the pin at sea was resolved already")
        let stored = try db.connection.query("SELECT title, place, region, region_code FROM locations ORDER BY id") {
            [$0.string(0), $0.optionalString(1) ?? "-", $0.optionalString(2) ?? "-", $0.optionalString(3) ?? "-"]
        }
        XCTAssertEqual(stored, [
            ["Drammen, Norway", "Drammen", "Buskerud", "-"],     // Norway's 2024 counties have no code in the gazetteer
            ["Tromsø, Norway", "Tromsø", "Troms", "-"],
            ["Madrid, Spain", "Madrid", "Madrid", "ES-MD"],      // the English name
            ["Gilf Kebir", "-", "Al Wādī al Jadīd", "EG-WAD"],   // New Valley, by its outline
            ["At sea", "-", "-", "-"],
        ])
        XCTAssertEqual(try db.write { try PlaceBackfill(creation: try shipped()).run(in: $0) }, PlaceBackfill.Result(), "once")
    }

    /// The denominators of "3 of 13 regions", from the shipped gazetteer, against the lists
    /// of ISO 3166-2 and the countries' own: metropolitan France's 13 régions (Réunion, French
    /// Guiana, Guadeloupe, Martinique and Mayotte, the other 5 of France's 18, are countries
    /// of their own in ISO 3166-1 and pins), Italy's 20 regions, Spain's 17 autonomous
    /// communities and 2 autonomous cities, the United Kingdom's 4 countries, Norway's 15
    /// counties of 2024, Germany's 16 Länder, the United States' 50 states and DC, Japan's 47
    /// prefectures, Egypt's 27 governorates.
    func testRegionCountsAreEachCountrysFirstLevel() throws {
        let places = try ShippedData.places()
        let counts = ["FR": 13, "IT": 20, "ES": 19, "GB": 4, "NO": 15, "DE": 16, "US": 51, "JP": 47, "EG": 27, "RE": 1, "GF": 1]
        for (code, count) in counts { XCTAssertEqual(places.regions(of: code).count, count, code) }
        XCTAssertEqual(Set(places.regions(of: "NO").map(\.name)), [
            "Østfold", "Akershus", "Oslo", "Innlandet", "Buskerud", "Vestfold", "Telemark", "Agder", "Rogaland",
            "Vestland", "Møre og Romsdal", "Trøndelag", "Nordland", "Troms", "Finnmark"])
        XCTAssertTrue(places.regions(of: "CN").contains { $0.name == "Yunnan" && $0.code == "CN-YN" })
        XCTAssertTrue(places.regions(of: "CN").contains { $0.name == "Xinjiang" })
    }

    /// The share of countries counts against ISO 3166-1's 249 (Countries.json less Kosovo's
    /// user-assigned XK) or the UN's 193 member states; a pin in Réunion (no member) counts in
    /// the first only.
    func testTheShareOfCountriesCountsAgainstTheChosenList() throws {
        let catalog = try ShippedData.files.catalog()
        XCTAssertEqual(catalog.entries.count, 250)
        XCTAssertEqual(CountryList.iso.total(in: catalog), 249)
        XCTAssertEqual(CountryList.un.total(in: catalog), 193)
        let pins = ["FR", "RE", "XK", "JP"].map { code in
            Location(id: UUID(), title: code, coordinate: Coordinate(latitude: 0, longitude: 0), countryID: code, date: Date(timeIntervalSince1970: 0))
        }
        var service = StatisticsService(catalog: catalog)
        let iso = service.calculate(locations: pins)
        XCTAssertEqual([iso.countries.count, iso.countriesInList, iso.countryListTotal], [4, 3, 249])
        XCTAssertEqual(iso.countryShareText, "3 of 249 (1.2 %, ISO 3166-1)")
        service.countryList = .un
        let un = service.calculate(locations: pins)
        XCTAssertEqual(un.countryShareText, "2 of 193 (1.0 %, UN member states)")
    }
}
