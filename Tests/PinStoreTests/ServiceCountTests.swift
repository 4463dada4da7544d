import XCTest
import Foundation
@testable import PinStore
@testable import PinCore

final class ServiceCountTests: XCTestCase {
    var db: PinDatabase!
    var creation: CreationService!
    var service: LocationService!

    override func setUpWithError() throws {
        db = try PinDatabase(path: try temporaryDatabasePath(self))
        creation = CreationService(locator: StubLocator(), countries: CountryService(catalog: testCatalog), ids: .system)
        service = LocationService(creation: creation)
    }

    func paris() -> Coordinate { Coordinate(latitude: 48.85, longitude: 2.35) }
    func boston() -> Coordinate { Coordinate(latitude: 42.36, longitude: -71.06) }

    func counts() throws -> [String: Int] {
        var out: [String: Int] = [:]
        for c in try db.read({ try $0.countries.fetchAll() }) { out["country " + c.id] = c.pinCount }
        for c in try db.read({ try $0.sharedPlaces(City.self).fetchAll() }) { out["city " + c.name] = c.pinCount }
        for m in try db.read({ try $0.sharedPlaces(Mountain.self).fetchAll() }) { out["mountain " + m.name] = m.pinCount }
        return out
    }

    func testCreateEditTypeChangeDeleteKeepCountsEqualToARecount() throws {
        let date = Date(timeIntervalSince1970: 1_600_000_000)
        let paris1 = try creation.create(LocationDraft(title: "Paris 1", coordinate: paris(),
                                                       type: .city(CityVisitData(cityName: "Paris", cityCoordinate: paris())), date: date), using: db)
        // Same city, coordinate differing below the 4-decimal key: one shared City with 2 pins.
        let nearby = Coordinate(latitude: 48.850001, longitude: 2.350002)
        let paris2 = try creation.create(LocationDraft(title: "Paris 2", coordinate: nearby,
                                                       type: .city(CityVisitData(cityName: "Paris", cityCoordinate: nearby)), date: date), using: db)
        _ = try creation.create(LocationDraft(title: "Boston", coordinate: boston(), date: date), using: db)
        let blanc = Coordinate(latitude: 45.8326, longitude: 6.8652)
        let summit = try creation.create(LocationDraft(title: "Summit", coordinate: blanc,
            type: .mountain(MountainVisitData(mountainName: "Mont Blanc", height: 4806, mountainCoordinate: blanc, achievedHeight: 4806)), date: date), using: db)
        _ = try creation.create(LocationDraft(title: "Sea", coordinate: Coordinate(latitude: -70, longitude: 10), date: date), using: db)
        XCTAssertEqual(try counts(), ["country FR": 3, "country US": 1, "city Paris": 2, "mountain Mont Blanc": 1])
        XCTAssertEqual(try db.countMismatches(), [])

        // Type change city → point: the City loses a pin.
        var edited = paris2
        edited.type = .point
        try service.save(edited, using: db)
        XCTAssertEqual(try counts(), ["country FR": 3, "country US": 1, "city Paris": 1, "mountain Mont Blanc": 1])
        XCTAssertEqual(try db.countMismatches(), [])

        // Move a pin to another country: counts follow, the country is recomputed.
        var moved = paris1
        moved.coordinate = Coordinate(latitude: 40.7, longitude: -74.0)
        let saved = try service.save(moved, using: db)
        XCTAssertEqual(saved.countryID, "US")
        XCTAssertEqual(try counts(), ["country FR": 2, "country US": 2, "city Paris": 1, "mountain Mont Blanc": 1])
        XCTAssertEqual(try db.countMismatches(), [])

        // Delete the last pins of a mountain and a city: shared objects go at zero.
        try service.delete(id: summit.id, using: db)
        try service.delete(id: paris1.id, using: db)
        XCTAssertEqual(try counts(), ["country FR": 1, "country US": 1])
        XCTAssertEqual(try db.countMismatches(), [])

        let stats = try StatisticsService(catalog: testCatalog).calculate(using: db)
        XCTAssertEqual(stats.totalPins, 3)
        XCTAssertEqual(stats.count(of: .point), 3)
        XCTAssertEqual(stats.pinsWithoutCountry, 1)
        XCTAssertEqual(stats.countries.map(\.id).sorted(), ["FR", "US"])
        XCTAssertEqual(stats.continents.map(\.name).sorted(), ["Europe", "North America"])
    }

    /// Two squares: FR over 0..10°, US over -10..0° of longitude, 0..10° of latitude.
    static let squares = """
        {"type":"FeatureCollection","features":[
        {"type":"Feature","properties":{"iso_a2":"FR","name":"F"},"geometry":{"type":"Polygon","coordinates":[[[0,0],[10,0],[10,10],[0,10],[0,0]]]}},
        {"type":"Feature","properties":{"iso_a2":"US","name":"U"},"geometry":{"type":"Polygon","coordinates":[[[-10,0],[0,0],[0,10],[-10,10],[-10,0]]]}}]}
        """

    func testEditingThroughALocatorNotYetLoadedLoadsItInsteadOfStopping() throws {
        let loads = LockedCounter()
        let lazy = LazyCountryLocator {
            loads.increment()
            return CountryResolver(polygons: try CountryGeoJSONParser.parse(Array(Self.squares.utf8)), cellDegrees: 1, coastalKilometres: 0)
        }
        let service = LocationService(creation: CreationService(locator: lazy, countries: CountryService(catalog: testCatalog), ids: .system))
        // Made with a country given by the caller: nothing loaded yet. (Two, so that FR keeps a
        // pin: moving the only pin of a country out of it trips the countries foreign key in
        // LocationService.save, a separate problem.)
        var pin = try db.write { repos in
            for title in ["x", "y"] {
                try service.creation.create(LocationDraft(title: title, coordinate: Coordinate(latitude: 5, longitude: 5), date: Date()),
                                            planned: PinPlan(id: UUID(), country: "FR", title: title), in: repos)
            }
            return try repos.locations.fetchAll(countryID: nil).first { $0.title == "x" }!
        }
        XCTAssertEqual(loads.value, 0)
        // An edit moves it west: its country is looked up, which loads the outlines once.
        pin.coordinate = Coordinate(latitude: 5, longitude: -5)
        XCTAssertEqual(try service.save(pin, using: db).countryID, "US")
        XCTAssertEqual(loads.value, 1)
        XCTAssertEqual(try counts(), ["country FR": 1, "country US": 1])
        XCTAssertEqual(try db.countMismatches(), [])
    }

    func testALocatorThatCannotLoadFailsTheEditWithoutWriting() throws {
        struct Damaged: Error {}
        let service = LocationService(creation: CreationService(locator: LazyCountryLocator { throw Damaged() },
                                                                countries: CountryService(catalog: testCatalog), ids: .system))
        let pin = try creation.create(LocationDraft(title: "x", coordinate: paris(), date: Date()), using: db)
        var moved = pin
        moved.coordinate = boston()
        XCTAssertThrowsError(try service.save(moved, using: db)) { XCTAssertTrue($0 is Damaged, "\($0)") }
        XCTAssertEqual(try db.read { try $0.locations.fetch(id: pin.id) }?.coordinate, paris())
    }

    func testRejectsBadInputWithoutWriting() throws {
        XCTAssertThrowsError(try creation.create(LocationDraft(title: "x", coordinate: Coordinate(latitude: 91, longitude: 0), date: Date()), using: db))
        XCTAssertThrowsError(try creation.create(LocationDraft(title: "x", coordinate: paris(), date: Date(), color: "red"), using: db))
        XCTAssertThrowsError(try service.delete(id: UUID(), using: db))
        XCTAssertEqual(try counts(), [:])
        XCTAssertEqual(try db.read { try $0.locations.fetchAll(countryID: nil) }.count, 0)
    }

    func testCountMismatchesNoticesABrokenCount() throws {
        _ = try creation.create(LocationDraft(title: "Paris", coordinate: paris(), date: Date()), using: db)
        try db.connection.run("UPDATE countries SET pin_count = 5 WHERE id = 'FR'")
        XCTAssertEqual(try db.countMismatches(), ["country FR: pin_count 5, locations 1"])
    }

    func testStatisticsByContinentAndType() throws {
        let date = Date()
        for (lat, lon) in [(48.0, 2.0), (44.0, 4.0), (40.0, -100.0)] {
            _ = try creation.create(LocationDraft(title: "p", coordinate: Coordinate(latitude: lat, longitude: lon), date: date), using: db)
        }
        let stats = try StatisticsService(catalog: testCatalog).calculate(using: db)
        XCTAssertEqual(stats.countries.map(\.id), ["FR", "US"])       // most pins first
        XCTAssertEqual(stats.countries.map(\.pinCount), [2, 1])
        XCTAssertEqual(stats.continents.map(\.name), ["Europe", "North America"])
        XCTAssertEqual(stats.continents.map(\.countryCount), [1, 1])
    }
}

/// The photos a pin stands for are days too: trip points (README "Trips").
final class TripPointsTests: XCTestCase {
    func testPhotosSkippedForDistanceOrIntervalAreOnePointPerDayAndCellWithTheNearestPinsCountry() throws {
        let db = try PinDatabase(path: try temporaryDatabasePath(self))  // removed after the test
        let pin = Location(id: UUID(), title: "Zürich", coordinate: Coordinate(latitude: 47.3769, longitude: 8.5417), countryID: "CH",
                           date: Date(timeIntervalSince1970: 1_717_236_000))
        try db.write { repos in
            try repos.countries.save(Country(id: "CH", name: "Switzerland", continent: "Europe", pinCount: 1))
            try repos.locations.insert(pin)
        }
        // Three photos on 2024-06-02 (+02:00) in one cell, one on the 3rd 3 km away, one
        // accepted photo (its pin stands for it) and one without a position.
        let rows: [(Double, Double?, String)] = [(1_717_315_200, 47.3771, "distance"), (1_717_315_260, 47.3772, "interval"),
                                                 (1_717_318_800, 47.3770, "distance"), (1_717_401_600, 47.4000, "distance"),
                                                 (1_717_405_200, 47.3769, "accepted"), (1_717_405_300, nil, "noLocation")]
        for (i, row) in rows.enumerated() {
            try db.connection.run("""
                INSERT INTO photos (path, size, mtime_ns, inode, taken_at, utc_offset, latitude, longitude, decision)
                VALUES (?, 1, 0, ?, ?, 7200, ?, ?, ?)
                """, [SQLValue.blob(Array("p\(i)".utf8)), i, row.0, row.1, row.1 == nil ? nil : 8.5417, row.2] as [SQLBindable])
        }
        let points = try db.tripPoints()
        XCTAssertEqual(points.filter { $0.pinID != nil }.count, 1)
        let photos = points.filter { $0.pinID == nil }.sorted { $0.instant < $1.instant }
        XCTAssertEqual(photos.map { $0.day.description }, ["2024-06-02", "2024-06-03"])
        XCTAssertEqual(photos.map(\.country), ["CH", "CH"])
        XCTAssertEqual(photos.map(\.coordinate.latitude), [47.38, 47.4])
    }

    /// What the trip points are read from, hashed as it is read (`tripPoints(in:latest:unless:)`):
    /// a pin's title is none of it; its date, its accepted photo's offset (the pin's own when it
    /// has none), a photo skipped for distance and time passing a point's instant are. Known
    /// inputs read no point.
    func testTheTripInputsChangeWithWhatThePointsAreMadeOfAndNothingElse() throws {
        let db = try PinDatabase(path: try temporaryDatabasePath(self))  // removed after the test
        let id = UUID()
        let pin = Location(id: id, title: "Zürich", coordinate: Coordinate(latitude: 47.3769, longitude: 8.5417), countryID: "CH",
                           date: Date(timeIntervalSince1970: 1_717_236_000))
        try db.write { repos in
            try repos.countries.save(Country(id: "CH", name: "Switzerland", continent: "Europe", pinCount: 1))
            try repos.locations.insert(pin)
        }
        let latest = Date(timeIntervalSince1970: 1_800_000_000)
        func inputs(_ latest: Date = latest) throws -> TripInputs { try db.tripPoints(in: nil, latest: latest) { _ in true }.inputs }
        func photo(_ path: String, _ decision: String, at: Double, pin: UUID?) throws {
            try db.connection.run("""
                INSERT INTO photos (path, size, mtime_ns, inode, taken_at, utc_offset, latitude, longitude, decision, location_id)
                VALUES (?, 1, 0, 1, ?, 7200, 47.3770, 8.5417, ?, ?)
                """, [SQLValue.blob(Array(path.utf8)), at, decision, pin?.uuidString.lowercased()] as [SQLBindable])
        }

        let first = try db.tripPoints(in: nil, latest: latest) { _ in false }
        XCTAssertEqual(first.points?.map(\.pinID), [id])
        XCTAssertEqual(first.inputs.count, 1)
        XCTAssertNil(try db.tripPoints(in: nil, latest: latest) { $0 == first.inputs }.points, "known inputs: no point read")

        try db.connection.run("UPDATE locations SET title = 'Zurich', color = '#1E88E5'")
        XCTAssertEqual(try inputs(), first.inputs, "a title and colour are no input")
        XCTAssertNotEqual(try inputs(Date(timeIntervalSince1970: 1_700_000_000)), first.inputs, "the pin still in the future")

        try photo("accepted.jpg", "accepted", at: 1_717_236_000, pin: id)
        let offset = try inputs()
        XCTAssertNotEqual(offset, first.inputs, "the pin's offset is its photo's now")
        XCTAssertEqual(offset.count, 1, "an accepted photo is no point of its own")

        try photo("skipped.jpg", "distance", at: 1_717_240_000, pin: nil)
        let skipped = try inputs()
        XCTAssertEqual(skipped.count, 2)
        XCTAssertNotEqual(skipped, offset)

        try db.connection.run("UPDATE locations SET date = date + 60")
        XCTAssertNotEqual(try inputs(), skipped, "a moved date")
        XCTAssertEqual(try db.tripPoints(in: nil, latest: latest) { $0 == skipped }.points?.count, 2, "changed inputs: the points read")
    }
}
