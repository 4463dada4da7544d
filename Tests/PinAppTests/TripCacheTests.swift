import Foundation
@testable import PinApp
@testable import PinCore
import XCTest

/// The trips are found again only when what they are found from changed (`TripCache`): a title
/// or colour edit reuses them, a moved date finds them anew, and no stale trip is ever given.
/// Home in Zürich (12 days of June 2024 at noon UTC), Milan (217 km) on the 8th and 9th: one
/// trip, 2024-06-08, of those two pins (as TripsCommandTests works it out).
final class TripCacheTests: XCTestCase {
    private func add(_ app: PinApp, _ date: String, _ at: Coordinate, _ title: String) throws -> UUID {
        var new = NewPin(coordinate: at)
        new.title = title
        new.date = date
        return try app.addPin(new).id
    }

    func testATitleEditReusesTheTripsAndAMovedDateFindsThemAgain() throws {
        let app = try scratchApp()
        for day in [1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14] {
            _ = try add(app, String(format: "2024-06-%02dT12:00:00Z", day), Coordinate(latitude: 47.3769, longitude: 8.5417), "home \(day)")
        }
        let milan = Coordinate(latitude: 45.4642, longitude: 9.1900)
        let duomo = try add(app, "2024-06-08T12:00:00Z", milan, "Duomo")
        let navigli = try add(app, "2024-06-09T12:00:00Z", milan, "Navigli")
        func trips() throws -> [String] { [try app.tripOfPins()[duomo] ?? "none", try app.tripOfPins()[navigli] ?? "none"] }

        XCTAssertEqual(try trips(), ["2024-06-08", "2024-06-08"])
        XCTAssertEqual(app.tripCache.finds, 1, "found once for two readings of the same pins")
        var retitled = LocationEdit()
        retitled.title = "Duomo di Milano"
        retitled.color = "#1E88E5"
        _ = try app.editPin(duomo.uuidString, retitled)
        XCTAssertEqual(try trips(), ["2024-06-08", "2024-06-08"])
        XCTAssertEqual(app.tripCache.finds, 1, "a title and colour are no input of a trip")

        // Navigli moved to the 7th: the 7th is away (a point 217 km from home), the 9th empty:
        // the trip is the 7th and 8th.
        _ = try app.editPin(navigli.uuidString, LocationEdit(), date: "2024-06-07T12:00:00Z")
        XCTAssertEqual(try trips(), ["2024-06-07", "2024-06-07"])
        XCTAssertEqual(app.tripCache.finds, 2)
        // Moved to the 20th, alone: one away day on each side, no trip at all.
        _ = try app.editPin(navigli.uuidString, LocationEdit(), date: "2024-06-20T12:00:00Z")
        XCTAssertEqual(try trips(), ["none", "none"])
        // A shown pin's trip (its window's points) follows too.
        XCTAssertNil(try app.pinDetail(duomo.uuidString).trip)
        _ = try app.editPin(navigli.uuidString, LocationEdit(), date: "2024-06-09T12:00:00Z")
        XCTAssertEqual(try app.pinDetail(duomo.uuidString).trip, "2024-06-08")
        XCTAssertEqual(try trips(), ["2024-06-08", "2024-06-08"])
    }
}
