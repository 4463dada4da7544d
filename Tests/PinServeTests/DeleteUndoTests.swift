import Foundation
import PinApp
import PinCore
import PinImport
import PinPlaces
@testable import PinServe
@testable import PinStore
import TestSupport
import XCTest

/// A pin deleted from the browser (DELETE /api/pins/ID, the bulk delete) and the toast's Undo
/// (POST /api/pins/restore `{"ids": [...]}`): each pin back exactly as it was stored, under its
/// id, with its city or mountain under theirs, its photos and visits.
///
/// The former undo made the pin again from a draft and lost (measured on main c0e9293 with these
/// tests): the run id, photo ids, wanted mark, visits set by hand, edited time, creation time and
/// row of every pin; an imported pin's offset (NULL: its photo's) written into its row and its
/// photos' claim on it (`photos.location_id`, cleared by the delete); the id of a city or
/// mountain the delete emptied.
final class DeleteUndoTests: XCTestCase {
    private func edit(_ app: PinApp, _ pin: Location, _ change: (inout LocationEdit) -> Void) throws {
        var edit = LocationEdit()
        change(&edit)
        _ = try app.editPin(pin.id.uuidString, edit)
    }

    /// The tables as stored, every column of every row as SQLite quotes it, by their keys; the
    /// pins' and photos' rowids too (`photos.pin` is a pin's rowid).
    private func tables(_ app: PinApp) throws -> [String: [String]] {
        let db = try PinDatabase(readOnlyPath: app.databasePath)
        var rows: [String: [String]] = [:]
        for (table, key) in [("locations", "rowid"), ("photos", "rowid"), ("cities", "id"), ("mountains", "id"),
                             ("countries", "id"), ("place_records", "key")] {
            let columns = try db.connection.query("SELECT name FROM pragma_table_info(?)", [table]) { $0.string(0) }
            let row = ((key == "rowid" ? ["rowid"] : []) + columns).map { "quote(\($0))" }.joined(separator: " || '|' || ")
            rows[table] = try db.connection.query("SELECT \(row) FROM \(table) ORDER BY \(key)", []) { $0.string(0) }
        }
        return rows
    }

    /// The toast's Undo: its status, or the status of its refusal, and the answer.
    private func undo(_ backend: AppBackend, _ ids: [UUID]) throws -> (status: Int, answer: String) {
        try restore(backend, ["ids": ids.map(\.lowercasedText)])
    }

    /// Pins of every kind a person makes, each deleted alone and undone: every table as before.
    func testAnUndoPutsEachDeletedPinBackAsItWasStored() throws {
        let (app, backend) = try serveScratch("delete-undo")
        let wish = try addPin(app, 35.6762, 139.6503) { $0.title = "Tokyo some day" }
        try edit(app, wish) { $0.wanted = true }
        let counted = try addPin(app, 48.856612345, 2.352212345) { $0.title = "Our hotel" }
        try edit(app, counted) { $0.visitCount = 4; $0.note = "four times" }
        let rome = try addPin(app, 41.9028, 12.4964) { $0.type = .city }
        let blanc = try addPin(app, 45.8326, 6.8652) { $0.type = .mountain; $0.name = "Mont Blanc"; $0.fields["height"] = .number(4806) }
        let dressed = try addPin(app, 45.764, 4.8357) { $0.note = "bouchon"; $0.tags = ["food", "France"]; $0.color = "#AA3300" }
        // Hand-checked: what the old undo's draft had no room for is stored.
        let stored = try XCTUnwrap(app.storedPin(wish.id))
        XCTAssertEqual([stored.wanted, try XCTUnwrap(app.storedPin(counted.id)).visitsByHand], [true, true])
        XCTAssertNotNil(stored.editedAt)
        XCTAssertEqual(try app.sharedPlaces(City.self).map(\.pinCount), [1], "Rome: the only pin of its city")

        for pin in [wish, counted, rome, blanc, dressed] {
            let before = try tables(app)
            let pinBefore = try XCTUnwrap(app.storedPin(pin.id))
            XCTAssertEqual(try backend.deletePins([pin.id]).status, 200)
            XCTAssertNil(try app.storedPin(pin.id))
            let (status, answer) = try undo(backend, [pin.id])
            XCTAssertEqual(status, 200, answer)
            XCTAssertEqual(try app.storedPin(pin.id), pinBefore, "\(pin.title): every field as stored before the delete")
            let after = try tables(app)
            for table in before.keys.sorted() {
                XCTAssertEqual(after[table], before[table], "\(pin.title): the \(table) table as before the delete")
            }
        }
        XCTAssertEqual(try PinDatabase(readOnlyPath: app.databasePath).countMismatches(), [])
    }

    /// A pin an import made: its run, photo ids, offset column (NULL: its photo's), its photos'
    /// claim on it and links, its visits counted from them; deleted alone, then with others in
    /// one bulk delete, undone in one restore.
    func testAnUndoGivesImportedPinsBackTheirRunPhotosAndVisits() async throws {
        let (app, backend) = try serveScratch("delete-undo")
        _ = try await app.importPhotos(ImportOptions(root: Repository.url("Fixtures/library").path))
        // Hand-checked in the fixtures (MoveUndoTests): IMG_0001.jpg (2023-07, near the Eiffel
        // Tower, +02:00) made it; 3 photos of 2 stays are its own; no offset of its own.
        let pins = try XCTUnwrap(PinDatabase(readOnlyPath: app.databasePath).read { try $0.locations.fetchAll(countryID: nil) })
        let eiffel = try XCTUnwrap(pins.first { $0.photoIDs.first?.hasSuffix("2023/07-paris/IMG_0001.jpg") == true })
        XCTAssertEqual([eiffel.photoCount, eiffel.visitCount], [3, 2])
        XCTAssertEqual(eiffel.runID, 1)
        XCTAssertEqual(eiffel.utcOffsetSeconds, 7200)
        let before = try tables(app)
        let ownOffset = try PinDatabase(readOnlyPath: app.databasePath).connection.query(
            "SELECT utc_offset IS NULL FROM locations WHERE id = ?", [eiffel.id.lowercasedText]) { $0.int(0) }
        XCTAssertEqual(ownOffset, [1], "no offset of its own: its photo's")

        XCTAssertEqual(try backend.deletePins([eiffel.id]).status, 200)
        XCTAssertEqual(try undo(backend, [eiffel.id]).status, 200)
        XCTAssertEqual(try app.storedPin(eiffel.id), eiffel)
        for table in before.keys.sorted() { XCTAssertEqual(try tables(app)[table], before[table], "the \(table) table as before the delete") }

        // The bulk delete of every pin, one undo for all.
        let answer = try backend.bulk(jsonBody(["ids": pins.map(\.id.lowercasedText), "action": "delete"]))
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(try app.pinSnapshot().pins.count, 0)
        XCTAssertEqual(try undo(backend, pins.map(\.id)).status, 200)
        for pin in pins { XCTAssertEqual(try app.storedPin(pin.id), pin, pin.title) }
        for table in before.keys.sorted() { XCTAssertEqual(try tables(app)[table], before[table], "bulk: the \(table) table as before the delete") }
        XCTAssertEqual(try PinDatabase(readOnlyPath: app.databasePath).countMismatches(), [])
    }

    /// A pin an import made, deleted, then its run undone (`pins runs undo`): the delete's Undo
    /// is refused (409) and nothing is written; before, the pin came back with the undone run's
    /// id and without the photos the run's undo forgot.
    func testTheUndoOfADeleteIsRefusedWhenItsRunWasUndoneSince() async throws {
        let (app, backend) = try serveScratch("delete-run-undone")
        let (eiffel, _) = try await importedEiffel(app)
        XCTAssertEqual(try backend.deletePins([eiffel.id]).status, 200)
        _ = try app.undoRun(1, dryRun: false)
        let before = try tables(app)
        let refused = try undo(backend, [eiffel.id])
        XCTAssertEqual(refused.status, 409, refused.answer)
        XCTAssertTrue(refused.answer.contains("run #1"), refused.answer)
        XCTAssertNil(try app.storedPin(eiffel.id))
        for table in before.keys.sorted() { XCTAssertEqual(try tables(app)[table], before[table], "the \(table) table untouched") }
    }

    /// A pin a place file made: its place record names it again (the next import of the file
    /// updates that pin instead of taking it as deleted).
    func testAnUndoGivesAPlaceFilePinItsRecord() throws {
        let (app, backend) = try serveScratch("delete-undo")
        _ = try app.importPlaces(PlacesImportOptions(files: [Repository.url("Fixtures/places/from-ogr2ogr.csv").path]))
        let louvre = try XCTUnwrap(app.pinSnapshot().pins.first { $0.title == "Louvre" })
        let before = try tables(app)
        XCTAssertEqual(before["place_records"]?.filter { $0.contains("'\(louvre.id.lowercasedText)'") }.count, 1, "its record names it")
        XCTAssertEqual(try backend.deletePins([louvre.id]).status, 200)
        XCTAssertEqual(try tables(app)["place_records"]?.filter { $0.contains("'\(louvre.id.lowercasedText)'") }.count, 0)
        XCTAssertEqual(try undo(backend, [louvre.id]).status, 200)
        for table in before.keys.sorted() { XCTAssertEqual(try tables(app)[table], before[table], "the \(table) table as before the delete") }
    }

    /// What changed between the delete and its undo: a city made again by another pin is joined
    /// (its id, not the old one); the pin restored already is refused, nothing written.
    func testAnUndoAfterTheCityWasMadeAgainJoinsItAndASecondUndoIsRefused() throws {
        let (app, backend) = try serveScratch("delete-undo")
        let rome = try addPin(app, 41.9028, 12.4964) { $0.type = .city }
        let oldCity = try XCTUnwrap(app.sharedPlaces(City.self).first)
        let deleted = try XCTUnwrap(app.removePin(rome.id))
        XCTAssertEqual(try app.sharedPlaces(City.self), [], "its last pin gone: the city went")
        let again = try addPin(app, 41.9, 12.5) { $0.type = .city }
        let newCity = try XCTUnwrap(app.sharedPlaces(City.self).first)
        XCTAssertNotEqual(newCity.id, oldCity.id)
        XCTAssertEqual(try app.undoChange(deleted).id, rome.id)
        XCTAssertEqual(try app.sharedPlaces(City.self).map(\.id), [newCity.id], "the city as it is now, its pins counted")
        XCTAssertEqual(try app.sharedPlaces(City.self).map(\.pinCount), [2])
        XCTAssertNotNil(try app.storedPin(again.id))
        // Rome's row was the only one (rowid 1); the new pin took that number: Rome takes the next.
        let rows = try PinDatabase(readOnlyPath: app.databasePath).connection.query(
            "SELECT id FROM locations ORDER BY rowid", []) { $0.string(0) }
        XCTAssertEqual(rows, [again.id.lowercasedText, rome.id.lowercasedText])

        let stored = try tables(app)
        XCTAssertThrowsError(try app.undoChange(deleted)) { XCTAssertTrue($0 is PinChangedSince, "\($0)") }
        XCTAssertEqual(try tables(app), stored)
        XCTAssertEqual(try undo(backend, [rome.id]).status, 404, "not deleted from this server")
        XCTAssertEqual(try PinDatabase(readOnlyPath: app.databasePath).countMismatches(), [])
    }
}
