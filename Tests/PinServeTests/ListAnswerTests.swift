import Foundation
import PinApp
import PinCore
@testable import PinServe
import XCTest

/// GET /api/pins writes each pin of a page from the pin kept (`PinObjectText`): the answer is
/// the JSON `pins list --json` gives, newest first, the page and the total right, and an edited
/// pin's new text (a new `ListedPin`), never its text before.
final class ListAnswerTests: XCTestCase {
    private func list(_ backend: AppBackend, _ target: String) throws -> [String: Any] {
        let answer = try backend.listPins(XCTUnwrap(RequestTarget.parse(target)))
        XCTAssertEqual(answer.status, 200)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
    }

    func testAPageIsTheListsJSONNewestFirstWithItsTotal() throws {
        let (app, backend) = try serveScratch("list-answer")
        _ = try addPin(app, 48.8584, 2.2945) { $0.title = "Tour \"Eiffel\" \u{e9}t\u{e9}"; $0.date = "2021-06-01T10:00:00+02:00"; $0.tags = ["a", "b"] }
        _ = try addPin(app, 45.764, 4.8357) { $0.title = "Lyon"; $0.date = "2022-06-01T10:00:00+02:00" }
        _ = try addPin(app, 52.52, 13.405) { $0.title = "Berlin"; $0.date = "2023-06-01T10:00:00+02:00" }

        let all = try list(backend, "/api/pins?limit=2&offset=1")
        XCTAssertEqual(all["total"] as? Int, 3)
        XCTAssertEqual(all["offset"] as? Int, 1)
        let page = try XCTUnwrap(all["pins"] as? [[String: Any]])
        XCTAssertEqual(page.map { $0["title"] as? String }, ["Lyon", "Tour \"Eiffel\" \u{e9}t\u{e9}"])
        XCTAssertEqual(page[1]["tags"] as? [String], ["a", "b"])
        XCTAssertEqual(page[1]["country"] as? String, "FR")
        XCTAssertEqual(page[1]["latitude"] as? Double, 48.8584)
        XCTAssertEqual(page[1]["date"] as? String, "2021-06-01T10:00:00+02:00")

        let french = try list(backend, "/api/pins?country=FR&limit=100")
        XCTAssertEqual(french["total"] as? Int, 2)
        XCTAssertEqual((french["pins"] as? [[String: Any]])?.map { $0["title"] as? String }, ["Lyon", "Tour \"Eiffel\" \u{e9}t\u{e9}"])

        let empty = try list(backend, "/api/pins?country=JP")
        XCTAssertEqual(empty["total"] as? Int, 0)
        XCTAssertEqual((empty["pins"] as? [Any])?.count, 0)
    }

    func testAnEditedPinIsListedWithItsNewText() throws {
        let (app, backend) = try serveScratch("list-edit")
        let lyon = try addPin(app, 45.764, 4.8357) { $0.title = "Lyon" }
        XCTAssertEqual(((try list(backend, "/api/pins"))["pins"] as? [[String: Any]])?.first?["title"] as? String, "Lyon")
        var edit = LocationEdit()
        edit.title = "Lugdunum"
        _ = try app.editPin(lyon.id.uuidString, edit)
        XCTAssertEqual(((try list(backend, "/api/pins"))["pins"] as? [[String: Any]])?.first?["title"] as? String, "Lugdunum")
    }
}
