import Foundation
import PinApp
import PinCore
@testable import PinServe
import XCTest

/// A bulk action on a filtered list is one transaction (`PinApp.changePins`, `removePins`): every
/// pin of the list changed, or none, and the deleted ones kept for their undo.
final class BulkTests: XCTestCase {
    func testABulkColourChangesEveryListedPinAndPassesOverAnUnknownId() throws {
        let (app, backend) = try serveScratch("bulk-colour")
        let pins = try [(45.764, 4.8357), (48.8566, 2.3522), (43.2965, 5.3698)].map { try addPin(app, $0.0, $0.1) }
        let unknown = UUID()
        let answer = try backend.bulk(jsonBody(["ids": [pins[0].id.uuidString, unknown.uuidString, pins[2].id.uuidString],
                                                "action": "color", "value": "#00ff00"]))
        XCTAssertEqual(String(decoding: answer.body, as: UTF8.self), #"{"changed":2}"#)
        XCTAssertEqual(try app.storedPin(pins[0].id)?.color, "#00FF00")
        XCTAssertEqual(try app.storedPin(pins[2].id)?.color, "#00FF00")
        XCTAssertEqual(try app.storedPin(pins[1].id)?.color, pins[1].color, "a pin not listed is left as it was")
    }

    /// One pin the edit cannot apply to (a name for a point): none of the pins changed, and the
    /// reason said (before, the pins before it in the list stayed changed).
    func testAllOrNone() throws {
        let (app, _) = try serveScratch("bulk-atomic")
        let city = try addPin(app, 45.764, 4.8357) { $0.type = .city; $0.name = "Lyon" }
        let point = try addPin(app, 48.8566, 2.3522)
        var edit = LocationEdit()
        edit.name = "Renamed"
        XCTAssertThrowsError(try app.changePins([city.id, point.id], edit)) { error in
            XCTAssertTrue("\(error)".contains("a point has no name"), "\(error)")
        }
        XCTAssertEqual(try app.storedPin(city.id)?.type, city.type, "the city before the point is not renamed")
    }

    func testABulkDeleteDeletesEveryListedPinAndEachComesBackByItsUndo() throws {
        let (app, backend) = try serveScratch("bulk-delete")
        let pins = try [(45.764, 4.8357), (48.8566, 2.3522), (43.2965, 5.3698)].map { try addPin(app, $0.0, $0.1) }
        let answer = try backend.bulk(jsonBody(["ids": [pins[0].id.uuidString, pins[1].id.uuidString], "action": "delete"]))
        let deleted = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])["deleted"] as? [String]
        XCTAssertEqual(deleted, [pins[0].id.lowercasedText, pins[1].id.lowercasedText])
        XCTAssertNil(try app.storedPin(pins[0].id))
        XCTAssertNil(try app.storedPin(pins[1].id))
        XCTAssertNotNil(try app.storedPin(pins[2].id))
        let restored = try restore(backend, ["ids": [pins[0].id.uuidString, pins[1].id.uuidString]])
        XCTAssertEqual(restored.status, 200, restored.answer)
        XCTAssertEqual(try app.storedPin(pins[0].id)?.coordinate, pins[0].coordinate)
        XCTAssertEqual(try app.storedPin(pins[1].id)?.title, pins[1].title)
        XCTAssertThrowsError(try backend.deletePins([UUID()])) { error in
            XCTAssertEqual((error as? RequestError)?.status, 404)
        }
    }
}

/// The browser's undo store (`Trash`): the last 10,000 pins kept, a pin kept again (deleted,
/// restored, deleted again) kept as its newest entry, never dropped by its older one's place.
final class TrashTests: XCTestCase {
    func testAPinKeptAgainAfterItsUndoIsKeptAsTheNewest() {
        let trash = Trash<Int>()
        let pin = UUID()
        trash.keep(1, id: pin)
        XCTAssertEqual(trash.take(pin), 1)
        trash.keep(2, id: pin)
        for index in 0..<9_999 { trash.keep(index, id: UUID()) }
        XCTAssertEqual(trash.counts.kept, 10_000)
        XCTAssertEqual(trash.counts.order, 10_000)
        XCTAssertEqual(trash.take(pin), 2, "among the last 10,000 kept")
        XCTAssertNil(trash.take(pin))
    }

    func testAValuePutBackIsKeptAndTheOldestGoFirst() {
        let trash = Trash<Int>()
        let ids = (0..<10_001).map { _ in UUID() }
        for (index, id) in ids.enumerated() { trash.keep(index, id: id) }
        XCTAssertNil(trash.take(ids[0]), "the oldest of 10,001 forgotten")
        XCTAssertEqual(trash.take(ids[1]), 1)
        trash.putBack(1, id: ids[1])
        XCTAssertEqual(trash.counts.kept, 10_000)
        XCTAssertEqual(trash.take(ids[1]), 1)
    }
}
