import XCTest
import Foundation
@testable import PinStore
@testable import PinCore

/// SplitMix64: a seeded generator, so a failing sequence can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

final class LocationEditTests: XCTestCase {
    var db: PinDatabase!
    var creation: CreationService!
    var service: LocationService!
    let date = Date(timeIntervalSince1970: 1_700_000_000)

    override func setUpWithError() throws {
        db = try PinDatabase(path: try temporaryDatabasePath(self))
        creation = CreationService(locator: StubLocator(), countries: CountryService(catalog: testCatalog), ids: .system)
        service = LocationService(creation: creation)
    }

    /// The counts as stored, and as recounted from the locations table with plain SQL (not
    /// through the repositories or services under test).
    func storedAndRecounted() throws -> (stored: [String: Int], recounted: [String: Int]) {
        let c = db.connection
        var stored: [String: Int] = [:], recounted: [String: Int] = [:]
        for (id, n) in try c.query("SELECT id, pin_count FROM countries", [], { ($0.string(0), $0.int(1)) }) { stored["country " + id] = n }
        for (id, n) in try c.query("SELECT country_id, count(*) FROM locations WHERE country_id IS NOT NULL GROUP BY country_id", [], { ($0.string(0), $0.int(1)) }) {
            recounted["country " + id] = n
        }
        for (table, type, name, coordinate) in [("cities", "city", "cityName", "cityCoordinate"), ("mountains", "mountain", "mountainName", "mountainCoordinate")] {
            for (key, n) in try c.query("SELECT name || '@' || lat_e4 || ',' || lon_e4, pin_count FROM \(table)", [], { ($0.string(0), $0.int(1)) }) {
                stored["\(type) \(key)"] = n
            }
            let rows = try c.query("""
                SELECT json_extract(type_data, '$.\(name)'), json_extract(type_data, '$.\(coordinate).latitude'),
                       json_extract(type_data, '$.\(coordinate).longitude') FROM locations WHERE type = '\(type)'
                """, []) { ($0.string(0), $0.double(1), $0.double(2)) }
            for (n, lat, lon) in rows {
                recounted["\(type) \(n)@\(Int((lat * 10_000).rounded())),\(Int((lon * 10_000).rounded()))", default: 0] += 1
            }
        }
        return (stored, recounted)
    }

    func testRandomSequencesOfAddEditDeleteKeepEveryCountEqualToARecount() throws {
        // Few places and names, so pins share countries, cities and mountains and move between them.
        let places = [Coordinate(latitude: 48.85, longitude: 2.35), Coordinate(latitude: 45.83, longitude: 6.86),
                      Coordinate(latitude: 40.71, longitude: -74.0), Coordinate(latitude: -70, longitude: 10),
                      Coordinate(latitude: 42.36, longitude: -71.06)]
        let names = ["Paris", "Mont Blanc", "Zürich", "Boston"]
        for seed: UInt64 in [1, 2, 3, 42] {
            try setUpWithError()
            var rng = SeededGenerator(state: seed)
            var expected: [UUID: Coordinate] = [:]   // what the test asked for: which pins exist, where
            for step in 0..<150 {
                let context = "seed \(seed) step \(step)"
                let roll = Int.random(in: 0..<10, using: &rng)
                if expected.isEmpty || roll < 4 {
                    let place = places.randomElement(using: &rng)!
                    let name = names.randomElement(using: &rng)!
                    let type: LocationType = [LocationType.point,
                                              .city(CityVisitData(cityName: name, cityCoordinate: place)),
                                              .mountain(MountainVisitData(mountainName: name, height: 1000, mountainCoordinate: place))]
                        .randomElement(using: &rng)!
                    let pin = try creation.create(LocationDraft(title: "p\(step)", coordinate: place, type: type, date: date), using: db)
                    expected[pin.id] = place
                } else if roll < 8 {
                    let id = expected.keys.sorted { $0.uuidString < $1.uuidString }.randomElement(using: &rng)!
                    var edit = LocationEdit()
                    if Bool.random(using: &rng) { edit.coordinate = places.randomElement(using: &rng)! }
                    switch Int.random(in: 0..<5, using: &rng) {
                    case 0: edit.type = .point
                    case 1: edit.type = .city; edit.name = names.randomElement(using: &rng)!
                    case 2: edit.type = .mountain; edit.name = names.randomElement(using: &rng)!
                    case 3: edit.name = names.randomElement(using: &rng)!   // fails on a point: must change nothing
                    default: edit.title = "edited \(step)"
                    }
                    let before = try storedAndRecounted().stored
                    do {
                        let pin = try service.edit(id: id, edit, using: db)
                        if let moved = edit.coordinate { expected[id] = moved }
                        XCTAssertNotNil(pin.editedAt, context)
                    } catch let error as ServiceError {
                        XCTAssertEqual(try storedAndRecounted().stored, before, "\(context): a refused edit (\(error)) changed counts")
                    }
                } else {
                    let id = expected.keys.sorted { $0.uuidString < $1.uuidString }.randomElement(using: &rng)!
                    try service.delete(id: id, using: db)
                    expected[id] = nil
                }
                let counts = try storedAndRecounted()
                XCTAssertEqual(counts.stored, counts.recounted, context)
                XCTAssertEqual(try db.countMismatches(), [], context)
                // Every pin is where it was asked to be, in the country of that position.
                let rows = try db.connection.query("SELECT id, latitude, longitude, country_id FROM locations", []) {
                    (UUID(uuidString: $0.string(0))!, Coordinate(latitude: $0.double(1), longitude: $0.double(2)), $0.optionalString(3))
                }
                XCTAssertEqual(Dictionary(uniqueKeysWithValues: rows.map { ($0.0, $0.1) }), expected, context)
                for row in rows { XCTAssertEqual(row.2, StubLocator().countryCode(at: row.1), context) }
                if counts.stored != counts.recounted { return }
            }
        }
    }

    func testEditMovesCountryAndSharedObjectAndKeepsOffset() throws {
        let paris = Coordinate(latitude: 48.85, longitude: 2.35), boston = Coordinate(latitude: 42.36, longitude: -71.06)
        var draft = LocationDraft(title: "Trip", coordinate: paris, type: .city(CityVisitData(cityName: "Paris", cityCoordinate: paris)), date: date,
                                  tags: ["a", "b"])
        draft.utcOffsetSeconds = 7200
        let pin = try creation.create(draft, using: db)
        var edit = LocationEdit()
        edit.coordinate = boston
        edit.name = "Boston"
        edit.addTags = ["c", "a"]
        edit.removeTags = ["b"]
        edit.note = "moved"
        let edited = try service.edit(id: pin.id, edit, now: date, using: db)
        XCTAssertEqual(edited.countryID, "US")
        XCTAssertEqual(edited.tags, ["a", "c"])
        XCTAssertEqual(edited.utcOffsetSeconds, 7200)
        XCTAssertEqual(edited.editedAt, date)
        guard case let .city(visit) = edited.type else { return XCTFail("still a city") }
        XCTAssertEqual(visit.cityName, "Boston")
        XCTAssertEqual(visit.cityCoordinate, boston, "a city recorded at the pin moves with it")
        // The country row of the last pin that left it is gone; the old city too.
        XCTAssertEqual(try db.read { try $0.countries.fetchAll() }.map(\.id), ["US"])
        XCTAssertEqual(try db.read { try $0.sharedPlaces(City.self).fetchAll() }.map(\.name), ["Boston"])
        let stored = try XCTUnwrap(try db.read { try $0.locations.fetch(id: pin.id) })
        XCTAssertEqual(stored.utcOffsetSeconds, 7200)
        XCTAssertEqual(stored.editedAt, date)
        XCTAssertEqual(stored.note, "moved")

        // A refused edit leaves the pin as it was.
        var bad = LocationEdit()
        bad.type = .mountain
        XCTAssertThrowsError(try service.edit(id: pin.id, bad, using: db))
        var badColor = LocationEdit()
        badColor.color = "red"
        XCTAssertThrowsError(try service.edit(id: pin.id, badColor, using: db))
        XCTAssertEqual(try db.read { try $0.locations.fetch(id: pin.id) }, stored)
    }

    /// An edit's visit fields by key (`LocationEdit.fields`): a field the pin's type does not
    /// have is refused with the words pins said before (a city "has no height", the height
    /// reached too), a type made without its name is refused, and a mountain's fields change
    /// in place, its shared mountain where it was.
    func testAnEditChangesTheVisitsFieldsByKeyAndRefusesAnotherTypesField() throws {
        let chamonix = Coordinate(latitude: 45.92, longitude: 6.87), summit = Coordinate(latitude: 45.8326, longitude: 6.8652)
        let paris = Coordinate(latitude: 48.85, longitude: 2.35)
        let mountain = try creation.create(LocationDraft(title: "Mont Blanc", coordinate: chamonix, type: .mountain(MountainVisitData(
            mountainName: "Mont Blanc", height: 4808, mountainCoordinate: summit, achievedHeight: 3842)), date: date), using: db)
        let city = try creation.create(LocationDraft(title: "Paris", coordinate: paris,
                                                     type: .city(CityVisitData(cityName: "Paris", cityCoordinate: paris)), date: date), using: db)
        let point = try creation.create(LocationDraft(title: "Somewhere", coordinate: paris, date: date), using: db)
        func refusal(_ pin: Location, _ change: (inout LocationEdit) -> Void) -> String? {
            var edit = LocationEdit()
            change(&edit)
            do { _ = try service.edit(id: pin.id, edit, using: db); return nil } catch { return (error as? ServiceError)?.description }
        }
        XCTAssertEqual(refusal(mountain) { $0.fields["address"] = .text("Refuge du Goûter") }, "a mountain has no address")
        XCTAssertEqual(refusal(city) { $0.fields["achievedHeight"] = .number(35) }, "a city has no height")
        XCTAssertEqual(refusal(city) { $0.fields["height"] = .number(35) }, "a city has no height")
        XCTAssertEqual(refusal(point) { $0.fields["height"] = .number(35) }, "a point has no name, address or height: use --type city or --type mountain")
        XCTAssertEqual(refusal(point) { $0.type = .mountain; $0.fields["height"] = .number(4808) }, "--type mountain needs --name")

        var higher = LocationEdit()
        higher.fields["height"] = .number(4806)
        XCTAssertEqual(try service.edit(id: mountain.id, higher, using: db).type, .mountain(MountainVisitData(
            mountainName: "Mont Blanc", height: 4806, mountainCoordinate: summit, achievedHeight: 3842)))
        var made = LocationEdit()
        made.type = .mountain
        made.name = "Montmartre"
        made.fields["height"] = .number(130)
        XCTAssertEqual(try service.edit(id: point.id, made, using: db).type, .mountain(MountainVisitData(
            mountainName: "Montmartre", height: 130, mountainCoordinate: paris, achievedHeight: 130)), "the height reached is the height")
    }

    func testDeletingTheLastPinOfACountryRemovesTheCountry() throws {
        let pin = try creation.create(LocationDraft(title: "Paris", coordinate: Coordinate(latitude: 48.85, longitude: 2.35), date: date), using: db)
        try service.delete(id: pin.id, using: db)
        XCTAssertEqual(try db.read { try $0.countries.fetchAll() }.count, 0)
        XCTAssertEqual(try db.read { try $0.locations.fetchAll(countryID: nil) }.count, 0)
    }
}
