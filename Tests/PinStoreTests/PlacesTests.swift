import XCTest
import Foundation
@testable import PinStore
@testable import PinCore

/// A gazetteer of hand-picked towns (GeoNames ids, names, centres and populations as GeoNames
/// gives them), answering with the nearest within 10 km in the country asked for. The real
/// resolver's rule is tested with it; this one only feeds the places to what shows them.
struct StubPlaces: PlaceLocating {
    static let paris = Place(id: 2988507, name: "Paris", countryCode: "FR", coordinate: Coordinate(latitude: 48.85341, longitude: 2.3488), population: 2138551)
    static let versailles = Place(id: 2970153, name: "Versailles", countryCode: "FR", coordinate: Coordinate(latitude: 48.80359, longitude: 2.13424), population: 85416)
    static let boston = Place(id: 4930956, name: "Boston", countryCode: "US", coordinate: Coordinate(latitude: 42.35843, longitude: -71.05977), population: 617594)
    static let idf = Region(code: "FR-IDF", name: "Île-de-France", countryCode: "FR")
    static let massachusetts = Region(code: "US-MA", name: "Massachusetts", countryCode: "US")
    static let desert = Region(code: "US-NV", name: "Nevada", countryCode: "US")

    func match(at point: Coordinate, countryCode: String?) -> PlaceMatch {
        guard let countryCode else { return .none }
        let near = [Self.paris, Self.versailles, Self.boston].filter { $0.countryCode == countryCode }
            .map { ($0, PinFilter.kilometres($0.coordinate, point)) }.filter { $0.1 <= 10 }.min { $0.1 < $1.1 }
        let region = countryCode == "FR" ? Self.idf : (point.latitude < 40 ? Self.desert : Self.massachusetts)
        return PlaceMatch(place: near?.0, placeDistanceKm: near?.1, region: region)
    }

    func regions(of countryCode: String) -> [Region] {
        switch countryCode {
        case "FR": return (0..<18).map { Region(code: "FR-\($0)", name: "r\($0)", countryCode: "FR") }
        case "US": return (0..<51).map { Region(code: "US-\($0)", name: "s\($0)", countryCode: "US") }
        default: return []
        }
    }
}

final class PlacesTests: XCTestCase {
    var db: PinDatabase!
    var creation: CreationService!
    var service: LocationService!
    let date = Date(timeIntervalSince1970: 1_689_322_272) // 2023-07-14T08:11:12Z

    override func setUpWithError() throws {
        db = try PinDatabase(path: try temporaryDatabasePath(self))
        creation = CreationService(locator: StubLocator(), countries: CountryService(catalog: testCatalog), places: StubPlaces(), ids: .system)
        service = LocationService(creation: creation)
    }

    // The Eiffel Tower is 3.6 km from the centre of Paris; 1.2 km east of it, the Invalides.
    let eiffel = Coordinate(latitude: 48.85837, longitude: 2.29448)
    let invalides = Coordinate(latitude: 48.85666, longitude: 2.31257)
    let nevada = Coordinate(latitude: 38.5, longitude: -116.5)

    func testTitlesNameThePlaceAndCountryOrTheRegionOrTheSea() throws {
        let paris = try creation.planPhotoPin(at: eiffel, takenAt: date, utcOffsetSeconds: 7200)
        XCTAssertEqual(paris.title, "Paris, France")
        XCTAssertEqual(paris.place, PinPlace(placeID: 2988507, place: "Paris", region: "Île-de-France", regionCode: "FR-IDF"))
        let desert = try creation.planPhotoPin(at: nevada, takenAt: date, utcOffsetSeconds: 0)
        XCTAssertEqual(desert.title, "Nevada, United States of America", "no town near: the region")
        XCTAssertNil(desert.place.place)
        let sea = try creation.planPhotoPin(at: Coordinate(latitude: -70, longitude: 10), takenAt: date, utcOffsetSeconds: 0)
        XCTAssertEqual(sea.title, "At sea")
        XCTAssertEqual(sea.place, .none)
        XCTAssertEqual(PinPlace(place: "Singapore").title(countryName: "Singapore"), "Singapore", "a city-state is named once")
        XCTAssertEqual(PinPlace().title(countryName: "France"), "France")
    }

    /// A place named as its country is named once, whatever the case or accents: the ASCII
    /// shortcut and Foundation's folding agree.
    func testAPlaceNamedAsItsCountryIsNamedOnceInAnyCaseOrAccent() {
        XCTAssertEqual(PinPlace(place: "MONACO").title(countryName: "Monaco"), "Monaco")
        XCTAssertEqual(PinPlace(place: "Kuwait City").title(countryName: "Kuwait"), "Kuwait City, Kuwait")
        XCTAssertEqual(PinPlace(place: "Luxemburg").title(countryName: "Luxembourg"), "Luxemburg, Luxembourg")
        XCTAssertEqual(PinPlace(place: "Curacao").title(countryName: "Curaçao"), "Curaçao", "accents folded")
        XCTAssertEqual(PinPlace(place: "Ｍonaco").title(countryName: "Monaco"), "Monaco", "a full-width letter folded")
        XCTAssertEqual(PinPlace(place: "[onaco").title(countryName: "{onaco"), "[onaco, {onaco", "only letters have a case")
        XCTAssertEqual(PinPlace(place: "Djibouti").title(countryName: "Djibouti"), "Djibouti")
    }

    func testAPinStoresItsPlaceAndAMovedPinGetsItsNewOne() throws {
        let pin = try creation.create(LocationDraft(title: "Tower", coordinate: eiffel, date: date), using: db)
        let stored = try XCTUnwrap(try db.read { try $0.locations.fetch(id: pin.id) })
        XCTAssertEqual([stored.place, stored.region, stored.regionCode], ["Paris", "Île-de-France", "FR-IDF"])
        XCTAssertEqual(stored.placeID, 2988507)
        XCTAssertTrue(stored.placesResolved)
        XCTAssertFalse(try db.hasPinsWithoutPlaces())

        var edit = LocationEdit()
        edit.coordinate = Coordinate(latitude: 48.8049, longitude: 2.1204)
        let moved = try service.edit(id: pin.id, edit, using: db)
        XCTAssertEqual(moved.place, "Versailles")
        XCTAssertEqual(moved.title, "Tower", "a title is never made again by an edit")
        edit.coordinate = Coordinate(latitude: 42.0, longitude: -72.5) // Massachusetts, far from Boston
        let far = try service.edit(id: pin.id, edit, using: db)
        XCTAssertEqual([far.place, far.placeID.map(String.init), far.region, far.regionCode], [nil, nil, "Massachusetts", "US-MA"])
    }

    // MARK: shared cities

    func cityCounts() throws -> [String] {
        try db.read { try $0.sharedPlaces(City.self).fetchAll() }.map { "\($0.name) \($0.pinCount) \($0.placeID.map(String.init) ?? "-")" }
    }

    func cityDraft(_ at: Coordinate, name: String? = nil) -> LocationDraft {
        let match = StubPlaces().match(at: at, countryCode: "FR")
        let visit = name.map { CityVisitData(cityName: $0, cityCoordinate: at) } ?? CityVisitData(place: match.place!)
        return LocationDraft(title: "c", coordinate: at, type: .city(visit), date: date)
    }

    func testTwoCityPinsInParisShareTheGazetteersParisThroughAddEditAndDelete() throws {
        let a = try creation.create(cityDraft(eiffel), using: db)
        let b = try creation.create(cityDraft(invalides), using: db)
        XCTAssertEqual(try cityCounts(), ["Paris 2 2988507"], "1.2 km apart: one Paris with 2 pins")
        let city = try XCTUnwrap(try db.read { try $0.sharedPlaces(City.self).fetchAll() }.first)
        XCTAssertEqual(city.coordinate, StubPlaces.paris.coordinate, "its centre is the place's")
        // Typed by hand with the place's name, in any case: the same city.
        let c = try creation.create(cityDraft(invalides, name: "paris"), using: db)
        XCTAssertEqual(try cityCounts(), ["Paris 3 2988507"])
        if case let .city(visit) = c.type { XCTAssertEqual(visit.placeID, 2988507) } else { XCTFail() }
        XCTAssertEqual(try db.countMismatches(), [])

        // Renamed by hand: it leaves Paris for a city of its own.
        var rename = LocationEdit()
        rename.name = "Lutèce"
        _ = try service.edit(id: b.id, rename, using: db)
        XCTAssertEqual(try cityCounts(), ["Lutèce 1 -", "Paris 2 2988507"])
        // Moved to Versailles: a city pin that was the town it stood in follows it.
        var move = LocationEdit()
        move.coordinate = Coordinate(latitude: 48.8049, longitude: 2.1204)
        _ = try service.edit(id: a.id, move, using: db)
        XCTAssertEqual(try cityCounts(), ["Lutèce 1 -", "Paris 1 2988507", "Versailles 1 2970153"])
        XCTAssertEqual(try db.countMismatches(), [])
        // Back to a point, then deleted: the shared cities go at zero.
        var point = LocationEdit()
        point.type = .point
        _ = try service.edit(id: a.id, point, using: db)
        try service.delete(id: b.id, using: db)
        XCTAssertEqual(try cityCounts(), ["Paris 1 2988507"])
        try service.delete(id: c.id, using: db)
        XCTAssertEqual(try cityCounts(), [])
        XCTAssertEqual(try db.countMismatches(), [])
    }

    func testAPointBecomesTheCityItIsInWithoutAName() throws {
        let pin = try creation.create(LocationDraft(title: "walk", coordinate: invalides, date: date), using: db)
        var edit = LocationEdit()
        edit.type = .city
        edit.fields["address"] = .text("129 rue de Grenelle")
        let city = try service.edit(id: pin.id, edit, using: db)
        guard case let .city(visit) = city.type else { return XCTFail("\(city.type)") }
        XCTAssertEqual([visit.cityName, visit.address], ["Paris", "129 rue de Grenelle"])
        XCTAssertEqual(try cityCounts(), ["Paris 1 2988507"])
        // In the Nevada desert there is no town: a name is needed.
        let desert = try creation.create(LocationDraft(title: "desert", coordinate: nevada, date: date), using: db)
        XCTAssertThrowsError(try service.edit(id: desert.id, edit, using: db)) {
            XCTAssertEqual(($0 as? ServiceError)?.description, "no town or city is known here: --type city needs --name")
        }
    }

    func testAnOlderCityOfThePlacesNameNearbyBecomesThePlace() throws {
        // Made before cities had places: "Paris" at the Eiffel Tower.
        let old = try creation.create(cityDraft(eiffel, name: "Paris"), using: db)
        XCTAssertEqual(try cityCounts(), ["Paris 1 -"])
        _ = try creation.create(cityDraft(invalides), using: db)
        XCTAssertEqual(try cityCounts(), ["Paris 2 2988507"], "one Paris, not two")
        XCTAssertEqual(try db.countMismatches(), [])
        try service.delete(id: old.id, using: db)
        XCTAssertEqual(try cityCounts(), ["Paris 1 2988507"])
    }

    // MARK: shared mountains

    func testMountainsAreSharedByNameWithinAFewKilometresAndShareTheirHeight() throws {
        let summit = Coordinate(latitude: 45.8326, longitude: 6.8652)
        let hut = Coordinate(latitude: 45.8500, longitude: 6.8300) // 3.3 km from the summit
        let far = Coordinate(latitude: 45.9300, longitude: 6.8652) // 10.8 km north
        func mountain(_ at: Coordinate, _ name: String, height: Double?) -> LocationDraft {
            LocationDraft(title: name, coordinate: at, type: .mountain(MountainVisitData(mountainName: name, height: height,
                                                                                         mountainCoordinate: at, achievedHeight: nil)), date: date)
        }
        let a = try creation.create(mountain(summit, "Mont Blanc", height: 4808), using: db)
        let b = try creation.create(mountain(hut, "mont blanc", height: nil), using: db)
        _ = try creation.create(mountain(far, "Mont Blanc", height: nil), using: db)
        let mountains = try db.read { try $0.sharedPlaces(Mountain.self).fetchAll() }
        XCTAssertEqual(mountains.map(\.pinCount).sorted(), [1, 2], "the hut shares the summit's; 10.8 km away is another")
        guard case let .mountain(visit) = b.type else { return XCTFail() }
        XCTAssertEqual(visit.height, 4808, "a pin on a known mountain shows its height")

        var edit = LocationEdit()
        edit.fields["height"] = .number(4806)
        edit.fields["achievedHeight"] = .number(3817)
        _ = try service.edit(id: a.id, edit, using: db)
        let shared = try db.read { try $0.sharedPlaces(Mountain.self).fetchAll() }.first { $0.pinCount == 2 }
        XCTAssertEqual(shared?.height, 4806, "the shared mountain takes the new height")
        let other = try XCTUnwrap(try db.read { try $0.locations.fetch(id: b.id) })
        guard case let .mountain(otherVisit) = other.type else { return XCTFail() }
        XCTAssertEqual(otherVisit.height, 4806, "and every pin on it shows it")
        XCTAssertNil(otherVisit.achievedHeight, "the other visit's achieved height is its own")
        let edited = try XCTUnwrap(try db.read { try $0.locations.fetch(id: a.id) })
        guard case let .mountain(own) = edited.type else { return XCTFail() }
        XCTAssertEqual(own.achievedHeight, 3817)
        XCTAssertEqual(try db.countMismatches(), [])
    }

    // MARK: migration and backfill

    /// A database as the main before places wrote it (schema 5; 6 added only import-places' table): photo pins titled "<country>, <date>",
    /// one of them edited, one titled by hand, one at sea, one made by hand.
    func testAnOlderDatabaseGetsPlacesAndNewTitlesOnlyWherePinsMadeTheTitle() throws {
        let path = try temporaryDatabasePath(self)
        do {
            let old = try PinDatabase(path: path, migrateUpTo: 5)
            try old.connection.execute("""
                INSERT INTO countries VALUES ('FR', 'France', 'Europe', 4);
                INSERT INTO locations (id, title, latitude, longitude, country_id, type, date, color, visit_count, photo_ids, created_at, utc_offset, edited_at)
                VALUES
                ('00000000-0000-4000-8000-000000000001', 'France, 2023-07-14', 48.85837, 2.29448, 'FR', 'point', 1689322272, '#E53935', 1, '["/p/1.jpg"]', 0, 7200, NULL),
                ('00000000-0000-4000-8000-000000000002', 'France, 2023-07-14', 48.80359, 2.13424, 'FR', 'point', 1689322272, '#E53935', 1, '["/p/2.jpg"]', 0, 7200, 1700000000),
                ('00000000-0000-4000-8000-000000000003', 'Our hotel', 48.85666, 2.31257, 'FR', 'point', 1689322272, '#E53935', 1, '["/p/3.jpg"]', 0, 7200, NULL),
                ('00000000-0000-4000-8000-000000000004', 'France', 48.85341, 2.3488, 'FR', 'point', 1689322272, '#E53935', 1, '[]', 0, 7200, NULL),
                ('00000000-0000-4000-8000-000000000005', 'At sea, 2023-07-13', -70, 10, NULL, 'point', 1689322272, '#E53935', 1, '["/p/5.jpg"]', 0, -36000, NULL),
                ('00000000-0000-4000-8000-000000000006', 'France, 2023-07-20', 48.85837, 2.29448, 'FR', 'point', 1689322272, '#E53935', 1, '["/p/6.jpg"]', 0, 7200, NULL);
                """)
        }
        let db = try PinDatabase(path: path)
        XCTAssertEqual(db.schemaVersion, Migrations.latestVersion)
        XCTAssertTrue(try db.hasPinsWithoutPlaces())
        let result = try db.write { try PlaceBackfill(creation: creation).run(in: $0) }
        XCTAssertEqual(result, PlaceBackfill.Result(resolved: 6, retitled: 2))
        XCTAssertFalse(try db.hasPinsWithoutPlaces())
        let pins = try db.read { try $0.locations.fetchAll(countryID: nil) }.sorted { $0.id.uuidString < $1.id.uuidString }
        XCTAssertEqual(pins.map(\.title), [
            "Paris, France",        // pins' own title
            "France, 2023-07-14",   // edited since: kept
            "Our hotel",            // typed by a person
            "France",               // made by hand: kept
            "At sea",               // pins' own, at sea (the date in its own offset, -10:00)
            "France, 2023-07-20",   // not the pin's date: a person's
        ])
        XCTAssertEqual(pins.map(\.place), ["Paris", "Versailles", "Paris", "Paris", nil, "Paris"], "every pin gets its place")
        XCTAssertTrue(pins.allSatisfy(\.placesResolved))
        XCTAssertEqual(pins[0].date, Date(timeIntervalSince1970: 1_689_322_272), "the date stays the pin's")
        // A second open finds nothing to do.
        XCTAssertEqual(try db.write { try PlaceBackfill(creation: creation).run(in: $0) }, PlaceBackfill.Result())
    }

    // MARK: statistics

    func testStatisticsCountRegionsOfTheirCountryAndPlaces() throws {
        _ = try creation.create(LocationDraft(title: "a", coordinate: eiffel, date: date), using: db)
        _ = try creation.create(LocationDraft(title: "b", coordinate: invalides, date: date), using: db)
        _ = try creation.create(LocationDraft(title: "c", coordinate: Coordinate(latitude: 48.8049, longitude: 2.1204), date: date), using: db)
        _ = try creation.create(LocationDraft(title: "d", coordinate: nevada, date: date), using: db)
        _ = try creation.create(LocationDraft(title: "e", coordinate: Coordinate(latitude: 42.36, longitude: -71.06), date: date), using: db)
        let stats = try StatisticsService(catalog: testCatalog, places: StubPlaces()).calculate(using: db)
        let us = try XCTUnwrap(stats.countries.first { $0.id == "US" })
        XCTAssertEqual([us.regionsVisited, us.regionCount, us.placesVisited], [2, 51, 1])
        XCTAssertEqual(us.regionsText, "2 of 51 states")
        let fr = try XCTUnwrap(stats.countries.first { $0.id == "FR" })
        XCTAssertEqual([fr.regionsVisited, fr.regionCount, fr.placesVisited], [1, 18, 2])
        XCTAssertEqual(fr.regionsText, "1 of 18 regions")
        // Réunion, one region (ISO 3166-1's own country, FR-974 as its only unit): the word agrees with the total.
        var reunion = StatisticsValues.CountryEntry(id: "RE", name: "Réunion", continent: "Africa", pinCount: 1)
        (reunion.regionsVisited, reunion.regionCount) = (1, 1)
        XCTAssertEqual(reunion.regionsText, "1 of 1 region")
        (reunion.regionsVisited, reunion.regionCount) = (0, 1)
        XCTAssertEqual(reunion.regionsText, "0 of 1 region")
        (reunion.regionsVisited, reunion.regionCount) = (1, 0)
        XCTAssertEqual(reunion.regionsText, "1 region")
        (reunion.regionsVisited, reunion.regionCount) = (2, 0)
        XCTAssertEqual(reunion.regionsText, "2 regions")
        XCTAssertEqual([stats.regionsVisited, stats.placesVisited], [3, 3])
    }
}
