import Foundation
@testable import PinApp
@testable import PinCore
@testable import PinStore
import TestSupport
import XCTest

/// One pin's trip (`pinDetail`'s `trip`, what `pins show` and the served page show) is found
/// from the months around the pin, not from every pin (issue 37: showing one pin of 100,000 took
/// seconds): on a hand-made timeline it is the trip `pins trips` finds over the whole history,
/// for every pin, including pins of a trip longer than the first window (which is then widened).
final class PinTripOfPinTests: XCTestCase {
    // Zürich is home; the others are 217 km (Milan) to 1,720 km (Lisbon) from it, and hundreds
    // of km from each other.
    let zurich = Coordinate(latitude: 47.3769, longitude: 8.5417)
    let tour: [(String, Coordinate)] = [
        ("Edinburgh", Coordinate(latitude: 55.9533, longitude: -3.1883)), ("Berlin", Coordinate(latitude: 52.5200, longitude: 13.4050)),
        ("Paris", Coordinate(latitude: 48.8566, longitude: 2.3522)), ("Barcelona", Coordinate(latitude: 41.3874, longitude: 2.1686)),
        ("Milan", Coordinate(latitude: 45.4642, longitude: 9.1900)), ("Vienna", Coordinate(latitude: 48.2082, longitude: 16.3738)),
        ("Rome", Coordinate(latitude: 41.9028, longitude: 12.4964)), ("Madrid", Coordinate(latitude: 40.4168, longitude: -3.7038)),
        ("Amsterdam", Coordinate(latitude: 52.3676, longitude: 4.9041)), ("Prague", Coordinate(latitude: 50.0755, longitude: 14.4378)),
        ("Lisbon", Coordinate(latitude: 38.7223, longitude: -9.1393)), ("Copenhagen", Coordinate(latitude: 55.6761, longitude: 12.5683)),
    ]
    let milan = Coordinate(latitude: 45.4642, longitude: 9.1900)

    private func add(_ app: PinApp, _ day: LocalDay, _ at: Coordinate, _ title: String) throws -> UUID {
        var new = NewPin(coordinate: at)
        new.title = title
        new.date = "\(day)T12:00:00Z"
        return try app.addPin(new).id
    }

    func testOnePinsTripIsTheTripOfTheWholeHistory() throws {
        let app = try scratchApp()
        var expected: [UUID: String?] = [:]
        var away = Set<Int>()
        // A tour of 240 days from 2023-09-01 (to 2024-04-27), ten days in each of twelve cities,
        // twice: one trip, longer than the 222 days either side of a pin, so the window of its
        // last pins is widened back to its first day. Home keeps more days than any city in
        // every month's window of 13 months (a home day every third day; 20 days a city).
        let tourStart = LocalDay(text: "2023-09-01")!.number
        for offset in 0..<240 {
            let (city, at) = tour[(offset / 10) % tour.count]
            expected[try add(app, LocalDay(tourStart + offset), at, "\(city) \(offset)")] = "2023-09-01"
            away.insert(tourStart + offset)
        }
        // A weekend in Milan (a trip of two away days) and a day there (one day: no trip).
        for text in ["2024-06-08", "2024-06-09"] {
            expected[try add(app, LocalDay(text: text)!, milan, "Milan weekend")] = "2024-06-08"
            away.insert(LocalDay(text: text)!.number)
        }
        expected[try add(app, LocalDay(text: "2024-08-20")!, milan, "Milan day")] = .some(nil)
        away.insert(LocalDay(text: "2024-08-20")!.number)
        // Home: a pin every third day of 2023 and 2024 (a few hundred metres apart), but on the days away.
        for number in stride(from: LocalDay(text: "2023-01-02")!.number, through: LocalDay(text: "2024-12-30")!.number, by: 3)
        where !away.contains(number) {
            let at = Coordinate(latitude: zurich.latitude + Double(number % 5) * 0.002, longitude: zurich.longitude)
            expected[try add(app, LocalDay(number), at, "Home \(number)")] = .some(nil)
        }
        // The whole history's trips, as `pins trips` finds them: the two, as worked out above.
        let whole = try app.tripOfPins()
        XCTAssertEqual(Set(whole.values), ["2023-09-01", "2024-06-08"])
        // pinDetail for every pin away and every fourth at home (each one a find of its own).
        for (n, (id, trip)) in expected.sorted(by: { $0.key.uuidString < $1.key.uuidString }).enumerated() {
            XCTAssertEqual(whole[id], trip, "the whole history's trip of \(id)")
            guard trip != nil || n % 4 == 0 else { continue }
            XCTAssertEqual(try app.pinDetail(id.uuidString).trip, trip, "the trip pinDetail finds for \(id)")
        }
    }

    func testAWindowReadsOnlyThePointsOfItsDates() throws {
        let app = try scratchApp()
        for text in ["2023-01-10", "2023-06-10", "2024-01-10"] { _ = try add(app, LocalDay(text: text)!, zurich, text) }
        let db = try PinDatabase(readOnlyPath: app.databasePath)
        let from = Date(timeIntervalSince1970: Double(LocalDay(text: "2023-06-01")!.number) * 86_400)
        let points = try db.tripPoints(in: from...from.addingTimeInterval(30 * 86_400))
        XCTAssertEqual(points.map { $0.day.description }, ["2023-06-10"])
        XCTAssertEqual(try db.tripPoints().count, 3)
    }
}
