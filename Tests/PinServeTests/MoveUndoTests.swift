import Foundation
import PinApp
import PinCore
import PinImport
@testable import PinServe
@testable import PinStore
import TestSupport
import XCTest

/// A pin dragged on the map (PATCH /api/pins/ID with a latitude and longitude) and the toast's
/// Undo (POST /api/pins/restore `{"moved": [ID]}`): the pin back exactly as it was stored, with
/// its city or mountain, and the one it joined as it was (its height, its place) unless changed
/// since; refused (409) when the pin changed after the move.
///
/// The page's former Undo PATCHed the old position back and lost (`pins show --json` and the row
/// before and after, scripts/test-serve era 4 Dec 2026): the edited mark and time (set to the
/// undo's time), a position of more than 7 decimals (rounded by the page's JSON), a title of an
/// at-sea pin (its coordinates, made "At sea"), the id of a city or mountain the move emptied.
final class MoveUndoTests: XCTestCase {
    /// The drag as the page sends it.
    @discardableResult
    private func drag(_ backend: AppBackend, _ pin: Location, _ lat: Double, _ lon: Double) throws -> [String: Any] {
        let answer = try backend.editPin(pin.id, jsonBody(["latitude": lat, "longitude": lon]))
        XCTAssertEqual(answer.status, 200)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
    }

    /// The toast's Undo: its status, or the status of its refusal, and the answer.
    private func undo(_ backend: AppBackend, _ pin: Location) throws -> (status: Int, answer: String) {
        try restore(backend, ["moved": [pin.id.lowercasedText]])
    }

    func testAnUndoPutsEachMovedPinBackAsItWasStoredWithItsCityAndMountain() throws {
        let (app, backend) = try serveScratch("move-undo")
        var hotel = try addPin(app, 48.856612345, 2.352212345) { $0.title = "Our hotel" }
        var note = LocationEdit()
        note.note = "kept"
        _ = try app.editPin(hotel.id.uuidString, note)
        hotel = try XCTUnwrap(app.storedPin(hotel.id))  // its edited time as stored
        XCTAssertNotNil(hotel.editedAt)
        let sea = try addPin(app, 45.5, -3.5)
        let rome = try addPin(app, 41.9028, 12.4964) { $0.type = .city }
        let blanc = try addPin(app, 45.8326, 6.8652) { $0.type = .mountain; $0.name = "Mont Blanc"; $0.fields["height"] = .number(4806) }
        let (cities, mountains) = (try app.sharedPlaces(City.self), try app.sharedPlaces(Mountain.self))
        // Hand-worked: Rome's city is the gazetteer's Rome (GeoNames 3169070), Mont Blanc's
        // mountain stands at the pin (4 decimals: the pin's own coordinate).
        XCTAssertEqual(cities.map(\.placeID), [3169070])
        XCTAssertEqual(mountains.map { [$0.coordinate.latitude, $0.coordinate.longitude, $0.height ?? 0] }, [[45.8326, 6.8652, 4806]])
        XCTAssertEqual(sea.title, "45.500000,-3.500000", "at sea: its coordinates")

        for (pin, to, title) in [(hotel, (45.764, 4.8357), "Our hotel"), (sea, (45.764, 4.8357), "Lyon, France"),
                                 (rome, (43.7696, 11.2558), "Florence"), (blanc, (45.9763, 7.6586), "Mont Blanc")] {
            let stored = try XCTUnwrap(app.storedPin(pin.id))
            let moved = try drag(backend, pin, to.0, to.1)
            XCTAssertEqual(moved["title"] as? String, title, "moved: a title pins made follows, one written or a mountain's stays")
            XCTAssertEqual(moved["edited"] as? Bool, true)
            if pin.id == blanc.id {
                // The mountain stood at the pin: it went with it, the old one removed (no pin left).
                XCTAssertEqual(try app.sharedPlaces(Mountain.self).map { [$0.coordinate.latitude, $0.coordinate.longitude] }, [[45.9763, 7.6586]])
                XCTAssertNotEqual(try app.sharedPlaces(Mountain.self).map(\.id), mountains.map(\.id))
            }
            let (status, answer) = try undo(backend, pin)
            XCTAssertEqual(status, 200, answer)
            XCTAssertEqual(try app.storedPin(pin.id), stored, "\(pin.title): every field as stored before the move")
        }
        // The stored values of before the move, by hand.
        let back = try XCTUnwrap(app.storedPin(hotel.id))
        XCTAssertEqual([back.coordinate.latitude, back.coordinate.longitude], [48.856612345, 2.352212345])
        XCTAssertEqual([back.title, back.note, back.place], ["Our hotel", "kept", "Paris"])
        XCTAssertEqual(back.editedAt, hotel.editedAt, "the edit of before, not the undo's time")
        let seaBack = try XCTUnwrap(app.storedPin(sea.id))
        XCTAssertEqual(seaBack.title, "45.500000,-3.500000")
        XCTAssertNil(seaBack.countryID)
        XCTAssertNil(seaBack.editedAt, "never edited")
        XCTAssertEqual(try app.storedPin(rome.id)?.title, "Rome")
        XCTAssertNil(try app.storedPin(rome.id)?.editedAt)
        // The city and the mountain the moves emptied are back under their own ids, each with
        // its one pin; Florence's city and the Zermatt mountain made by the moves are gone.
        XCTAssertEqual(try app.sharedPlaces(City.self), cities)
        XCTAssertEqual(try app.sharedPlaces(Mountain.self), mountains)
        XCTAssertEqual(try app.sharedPlaces(City.self).map(\.pinCount), [1])
        XCTAssertEqual(try app.statistics().countries.map(\.id), ["FR", "IT"])
        XCTAssertEqual(try PinDatabase(readOnlyPath: app.databasePath).countMismatches(), [])
    }

    /// A pin an import made, with photos and visits: its position of 15 decimals (a GPS rational), its photos and
    /// visits, and its offset (none of its own: its photo's is shown) as before the move.
    func testAnUndoGivesAnImportedPinBackItsPhotosVisitsAndPhotosOffset() async throws {
        let (app, backend) = try serveScratch("move-undo")
        _ = try await app.importPhotos(ImportOptions(root: Repository.url("Fixtures/library").path))
        // Hand-checked in the fixtures: IMG_0001.jpg (2023-07, near the Eiffel Tower, +02:00)
        // made it; 3 photos of 2 stays are its own.
        let pins = try XCTUnwrap(PinDatabase(readOnlyPath: app.databasePath).read { try $0.locations.fetchAll(countryID: nil) })
        let eiffel = try XCTUnwrap(pins.first { $0.photoIDs.first?.hasSuffix("2023/07-paris/IMG_0001.jpg") == true })
        XCTAssertEqual([eiffel.coordinate.latitude, eiffel.coordinate.longitude], [48.85837, 2.294481000090261])
        XCTAssertEqual([eiffel.photoCount, eiffel.visitCount], [3, 2])
        XCTAssertEqual(eiffel.utcOffsetSeconds, 7200)
        // The column as stored (`fetch` gives the photo's offset where it is NULL).
        let ownOffset = {
            try PinDatabase(readOnlyPath: app.databasePath).connection.query("SELECT utc_offset FROM locations WHERE id = ?",
                                                                            [eiffel.id.lowercasedText]) { $0.isNull(0) ? nil : $0.int(0) }.first ?? nil
        }
        XCTAssertNil(try ownOffset(), "none of its own: the photo's")

        try drag(backend, eiffel, 45.764, 4.8357)
        let moved = try XCTUnwrap(app.storedPin(eiffel.id))
        XCTAssertLessThan(moved.photoCount, 3, "in Lyon the photos of Paris are not its own")
        let (status, answer) = try undo(backend, eiffel)
        XCTAssertEqual(status, 200, answer)
        XCTAssertEqual(try app.storedPin(eiffel.id), eiffel)
        XCTAssertNil(try ownOffset())
        XCTAssertEqual(try app.storedPin(eiffel.id).map { [$0.photoCount, $0.visitCount] }, [3, 2])
        XCTAssertEqual(try PinDatabase(readOnlyPath: app.databasePath).countMismatches(), [])
    }

    /// A change after the move, by another browser, the CLI or another server, is not
    /// overwritten: the undo is refused with a 409 and the pin stays as that change left it.
    func testAnUndoAfterALaterChangeIsRefusedAndChangesNothing() throws {
        let (app, backend) = try serveScratch("move-undo")
        let paris = try addPin(app, 48.8566, 2.3522)
        try drag(backend, paris, 45.764, 4.8357)
        _ = try backend.editPin(paris.id, jsonBody(["title": "Renamed"]))  // another browser on this server
        let renamed = try XCTUnwrap(app.storedPin(paris.id))
        let refused = try undo(backend, paris)
        XCTAssertEqual(refused.status, 409)
        XCTAssertTrue(refused.answer.contains("changed since"), refused.answer)
        XCTAssertEqual(try app.storedPin(paris.id), renamed)
        XCTAssertEqual(try undo(backend, paris).status, 409, "asked again: still kept, still refused")

        // Moved again by another server (its own memory): this server's undo is refused.
        let rome = try addPin(app, 41.9028, 12.4964) { $0.type = .city }
        try drag(backend, rome, 43.7696, 11.2558)
        try drag(AppBackend(app: app, libraries: []), rome, 45.4642, 9.19)
        let milan = try XCTUnwrap(app.storedPin(rome.id))
        XCTAssertEqual(milan.place, "Milan")
        XCTAssertEqual(try undo(backend, rome).status, 409)
        XCTAssertEqual(try app.storedPin(rome.id), milan)
        XCTAssertEqual(try app.sharedPlaces(City.self).map(\.name), ["Milan"])

        // Deleted since: refused; the delete's own undo still brings it back as it was deleted.
        let lyon = try addPin(app, 45.764, 4.8357)
        try drag(backend, lyon, 43.2965, 5.3698)
        let marseille = try XCTUnwrap(app.storedPin(lyon.id))
        _ = try backend.deletePins([lyon.id])
        XCTAssertEqual(try undo(backend, lyon).status, 409)
        XCTAssertEqual(try backend.restorePins(jsonBody(["ids": [lyon.id.lowercasedText]])).status, 200)
        XCTAssertEqual(try app.storedPin(lyon.id)?.coordinate, marseille.coordinate)
        XCTAssertEqual(try undo(backend, Location(id: UUID(), title: "", coordinate: Coordinate(latitude: 0, longitude: 0), date: Date())).status, 404)
        XCTAssertEqual(try PinDatabase(readOnlyPath: app.databasePath).countMismatches(), [])
    }

    /// An imported pin dragged, then its run undone (the run keeps it: it was edited), then the
    /// drag's Undo: refused (409), the pin left where it was dragged; before, it went back to its
    /// photo's place as an unedited pin of the undone run, without its photos.
    func testTheUndoOfAMoveIsRefusedWhenItsRunWasUndoneSince() async throws {
        let (app, backend) = try serveScratch("move-run-undone")
        let (eiffel, _) = try await importedEiffel(app)
        XCTAssertEqual(try backend.editPin(eiffel.id, jsonBody(["latitude": 48.8606, "longitude": 2.3376])).status, 200)
        _ = try app.undoRun(1, dryRun: false)
        let moved = try XCTUnwrap(app.storedPin(eiffel.id), "an edited pin is kept by the run's undo")
        let refused = try restore(backend, ["moved": [eiffel.id.lowercasedText]])
        XCTAssertEqual(refused.status, 409, refused.answer)
        XCTAssertTrue(refused.answer.contains("run #1"), refused.answer)
        XCTAssertEqual(try app.storedPin(eiffel.id), moved, "left as it is")
    }

    /// A mountain pin of Mont Blanc at 4808 m, and a second "Mont Blanc" pin at 4810 m 6.6 km east
    /// (0.0848° of longitude at 45.83° N: beyond the 5 km a mountain is shared within, so its own
    /// mountain); its mountains sorted by height.
    private func twoMontBlancs(_ app: PinApp) throws -> (first: Location, second: Location, mountains: [Mountain]) {
        let first = try addPin(app, 45.8326, 6.8652) { $0.type = .mountain; $0.name = "Mont Blanc"; $0.fields["height"] = .number(4808) }
        let second = try addPin(app, 45.8326, 6.95) { $0.type = .mountain; $0.name = "Mont Blanc"; $0.fields["height"] = .number(4810) }
        let mountains = try byHeight(app)
        XCTAssertEqual(mountains.map { [$0.coordinate.latitude, $0.coordinate.longitude, $0.height ?? 0, Double($0.pinCount)] },
                       [[45.8326, 6.8652, 4808, 1], [45.8326, 6.95, 4810, 1]])
        return (first, second, mountains)
    }

    private func byHeight(_ app: PinApp) throws -> [Mountain] {
        try app.sharedPlaces(Mountain.self).sorted { ($0.height ?? 0) < ($1.height ?? 0) }
    }

    /// The height a mountain pin shows (its mountain's).
    private func shownHeight(_ app: PinApp, _ pin: Location) throws -> Double? {
        guard case let .mountain(visit)? = try app.storedPin(pin.id)?.type else { return nil }
        return visit.height
    }

    /// The second Mont Blanc dragged 76 m from the first joins its mountain and gives it its height
    /// (the last one given: 4810 m), which the first pin then shows. The Undo takes the pin back to
    /// its own mountain and gives the first its 4808 m again, shown by its pin; before, the first
    /// mountain and its pin kept 4810 m and its 4808 m was lost.
    func testAnUndoGivesTheMountainAMovedPinJoinedItsOwnHeightBack() throws {
        let (app, backend) = try serveScratch("move-undo-shared")
        let (first, second, mountains) = try twoMontBlancs(app)
        let (firstStored, secondStored) = (try app.storedPin(first.id), try app.storedPin(second.id))
        try drag(backend, second, 45.8330, 6.8660)
        XCTAssertEqual(try byHeight(app).map { [$0.coordinate.latitude, $0.coordinate.longitude, $0.height ?? 0, Double($0.pinCount)] },
                       [[45.8326, 6.8652, 4810, 2]], "joined: one mountain, the first's, at the moved pin's height")
        XCTAssertEqual(try byHeight(app).map(\.id), [mountains[0].id])
        XCTAssertEqual(try [shownHeight(app, first), shownHeight(app, second)], [4810, 4810])

        let (status, answer) = try undo(backend, second)
        XCTAssertEqual(status, 200, answer)
        XCTAssertEqual(try byHeight(app), mountains, "the first at 4808 m again, the second made again under its id at 4810 m")
        XCTAssertEqual(try [shownHeight(app, first), shownHeight(app, second)], [4808, 4810])
        XCTAssertEqual(try app.storedPin(first.id), firstStored, "the first pin as before the move")
        XCTAssertEqual(try app.storedPin(second.id), secondStored)
        XCTAssertEqual(try PinDatabase(readOnlyPath: app.databasePath).countMismatches(), [])
    }

    /// The same, with the first pin given 4809 m (another browser) after the move: its mountain
    /// and both its pins show 4809 m. The Undo goes through (200): the moved pin back on its own
    /// mountain at 4810 m, the first mountain left at 4809 m with its pin. A careful user's Undo
    /// takes back their drag but never a later change someone made on purpose: putting 4808 m
    /// back would lose the 4809 m given since. Refusing (409) would lose more: the moved pin
    /// would stay on the other mountain showing 4809 m, its own 4810 m shown nowhere, to be
    /// dragged back and typed again by hand; the pin itself was not changed since (the height
    /// it shows is its mountain's), so putting it back overwrites nothing. Before, it was refused.
    func testAnUndoLeavesTheJoinedMountainAsALaterChangeLeftIt() throws {
        let (app, backend) = try serveScratch("move-undo-shared")
        let (first, second, mountains) = try twoMontBlancs(app)
        let secondStored = try app.storedPin(second.id)
        try drag(backend, second, 45.8330, 6.8660)
        XCTAssertEqual(try backend.editPin(first.id, jsonBody(["height": 4809])).status, 200)
        XCTAssertEqual(try [shownHeight(app, first), shownHeight(app, second)], [4809, 4809])
        let firstEdited = try app.storedPin(first.id)

        let (status, answer) = try undo(backend, second)
        XCTAssertEqual(status, 200, answer)
        XCTAssertEqual(try byHeight(app).map { [$0.height ?? 0, Double($0.pinCount)] }, [[4809, 1], [4810, 1]])
        XCTAssertEqual(try byHeight(app).map(\.id), mountains.map(\.id))
        XCTAssertEqual(try app.storedPin(first.id), firstEdited, "the first pin as the later edit left it")
        XCTAssertEqual(try app.storedPin(second.id), secondStored)
        XCTAssertEqual(try [shownHeight(app, first), shownHeight(app, second)], [4809, 4810])
        XCTAssertEqual(try PinDatabase(readOnlyPath: app.databasePath).countMismatches(), [])
    }

    /// Two Mont Blanc pins on one mountain at 4808 m, recorded at the first pin (the second, 76 m
    /// from it, points there). One is taken away: the first dragged 6.6 km east (its mountain,
    /// recorded where it stood, moves with it: a mountain of its own there) or the second deleted;
    /// then the pin left is given 4809 m (another browser): its mountain is 4809 m. The Undo
    /// puts the pin back on that mountain as one of its pins, showing 4809 m: a pin put back
    /// joins its mountain as it is now and gives it no height (its 4808 m was the mountain's
    /// then, not a height given since). Before, the Undo gave the mountain the pin's old 4808 m
    /// again, and the 4809 m given after the move or delete was lost, on the mountain and on
    /// the pin left.
    func testAnUndoLeavesTheMountainAPinGoesBackToAsALaterChangeLeftIt() throws {
        for deleting in [false, true] {
            let (app, backend) = try serveScratch("move-undo-back")
            let first = try addPin(app, 45.8326, 6.8652) { $0.type = .mountain; $0.name = "Mont Blanc"; $0.fields["height"] = .number(4808) }
            let second = try addPin(app, 45.8330, 6.8660) { $0.type = .mountain; $0.name = "Mont Blanc"; $0.fields["height"] = .number(4808) }
            XCTAssertEqual(try byHeight(app).map { [$0.height ?? 0, Double($0.pinCount)] }, [[4808, 2]], "one mountain")
            let (taken, left) = deleting ? (second, first) : (first, second)
            if deleting {
                XCTAssertEqual(try backend.deletePins([taken.id]).status, 200)
            } else {
                try drag(backend, taken, 45.8326, 6.95)
                XCTAssertEqual(try byHeight(app).map { [$0.height ?? 0, Double($0.pinCount)] }, [[4808, 1], [4808, 1]])
            }
            XCTAssertEqual(try backend.editPin(left.id, jsonBody(["height": 4809])).status, 200)
            let leftEdited = try app.storedPin(left.id)

            let (status, answer) = try deleting ? restore(backend, ["ids": [taken.id.lowercasedText]]) : undo(backend, taken)
            XCTAssertEqual(status, 200, answer)
            XCTAssertEqual(try byHeight(app).map { [$0.height ?? 0, Double($0.pinCount)] }, [[4809, 2]], deleting ? "delete" : "move")
            XCTAssertEqual(try [shownHeight(app, first), shownHeight(app, second)], [4809, 4809], deleting ? "delete" : "move")
            XCTAssertEqual(try app.storedPin(left.id), leftEdited, "the pin left as the later edit left it")
            XCTAssertEqual(try PinDatabase(readOnlyPath: app.databasePath).countMismatches(), [])
        }
    }

    /// A city named Florence by hand at Fiesole (about 5 km from Florence's centre; the town there
    /// is not Florence), without a gazetteer place. Rome's city pin dragged to Florence is the
    /// gazetteer's Florence (GeoNames 3176959), whose city is that one within 15 km, which it
    /// adopts (the place id given). The Undo takes Rome back to its own city and the city named by
    /// hand has no place again; before, it stayed the gazetteer's Florence.
    func testAnUndoTakesBackACityAMovedPinAdopted() throws {
        let (app, backend) = try serveScratch("move-undo-shared")
        let fiesole = try addPin(app, 43.8066, 11.2925) { $0.type = .city; $0.name = "Florence" }
        let rome = try addPin(app, 41.9028, 12.4964) { $0.type = .city }
        let cities = try app.sharedPlaces(City.self)
        XCTAssertEqual(cities.map { [$0.name, $0.placeID.map(String.init) ?? "none"] }, [["Florence", "none"], ["Rome", "3169070"]])
        let (fiesoleStored, romeStored) = (try app.storedPin(fiesole.id), try app.storedPin(rome.id))
        try drag(backend, rome, 43.7696, 11.2558)
        XCTAssertEqual(try app.sharedPlaces(City.self).map { [$0.name, $0.placeID.map(String.init) ?? "none", String($0.pinCount)] },
                       [["Florence", "3176959", "2"]])
        XCTAssertEqual(try app.sharedPlaces(City.self).map(\.id), [cities[0].id], "adopted: the city named by hand")

        let (status, answer) = try undo(backend, rome)
        XCTAssertEqual(status, 200, answer)
        XCTAssertEqual(try app.sharedPlaces(City.self), cities, "Florence without a place again, Rome's city under its id")
        XCTAssertEqual(try app.storedPin(rome.id), romeStored)
        XCTAssertEqual(try app.storedPin(fiesole.id), fiesoleStored)
        XCTAssertEqual(try PinDatabase(readOnlyPath: app.databasePath).countMismatches(), [])
    }
}
