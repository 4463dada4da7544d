import Foundation
import PinApp
import PinCore
@testable import PinServe
@testable import PinStore
import XCTest

/// GET /api/stats answers from the pins the service keeps (not read again): the same object as
/// `pins stats --json` (`PinApp.statistics()`, read from the database), and the numbers worked
/// out by hand: Paris and Lyon in two French regions, Kyoto a place only wanted (it counts as
/// wanted alone, and not for Japan), and after an edit that moves Lyon to Osaka, Japan visited.
final class StatsAnswerTests: XCTestCase {
    private func object(_ body: [UInt8]) throws -> NSDictionary {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(body)) as? NSDictionary)
    }

    func testTheStatisticsOfTheKeptPinsAreThoseOfTheDatabase() throws {
        let (app, backend) = try serveScratch("stats-answer")
        _ = try addPin(app, 48.8584, 2.2945) { $0.title = "Tour Eiffel" }
        let lyon = try addPin(app, 45.764, 4.8357) { $0.title = "Lyon" }
        let kyoto = try addPin(app, 35.0116, 135.7681) { $0.title = "Kyoto" }
        let db = try PinDatabase(path: app.databasePath)
        try db.connection.run("UPDATE locations SET wanted = 1 WHERE id = ?", [kyoto.id.uuidString.lowercased()])
        _ = try backend.storedPins()  // kept before the next change, brought up to date by the answer

        let served = try object(try backend.stats().body)
        XCTAssertEqual(served, try object(Array(JSONSerialization.data(withJSONObject: try app.statistics().jsonObject))))
        XCTAssertEqual(served["countriesVisited"] as? Int, 1)
        let totals = try XCTUnwrap(served["totals"] as? [String: Any])
        XCTAssertEqual(totals["pins"] as? Int, 2)
        XCTAssertEqual(totals["wanted"] as? Int, 1)
        let france = try XCTUnwrap((served["countries"] as? [[String: Any]])?.first)
        XCTAssertEqual(france["id"] as? String, "FR")
        XCTAssertEqual(france["pinCount"] as? Int, 2)
        XCTAssertEqual(france["regionsVisited"] as? Int, 2)

        var move = LocationEdit()
        move.coordinate = Coordinate(latitude: 34.6937, longitude: 135.5023)
        _ = try app.editPin(lyon.id.uuidString, move)
        let moved = try object(try backend.stats().body)
        XCTAssertEqual(moved, try object(Array(JSONSerialization.data(withJSONObject: try app.statistics().jsonObject))))
        XCTAssertEqual(moved["countriesVisited"] as? Int, 2)
    }
}
