import Foundation
import XCTest

/// Issue 37 step 2: a pin moved (`pins edit --lat --lon`, the call `pins serve` makes when a pin
/// is dragged) has its country, place and region found again; a title pins made follows it, a
/// City pin that was its town's takes the new town (the shared cities' counts follow), a
/// Mountain keeps its mountain and a title the person wrote stays. Hand-worked: 45.7640, 4.8357
/// is the Place Bellecour in Lyon, in the région Auvergne-Rhône-Alpes (since 2016).
final class MoveTests: XCTestCase {
    var db = ""

    override func setUpWithError() throws {
        db = try CLI.temporaryDirectory(self).appendingPathComponent("pins.sqlite").path
    }

    func pins(_ args: [String]) throws -> [String: Any] {
        let run = try CLI.run(args + ["--db", db, "--json"])
        XCTAssertEqual(run.status, 0, "\(args): \(run.stderr)")
        return try CLI.json(run.stdout) as! [String: Any]
    }

    func add(_ args: [String]) throws -> String {
        let run = try CLI.run(["add", "--lat", "48.8566", "--lon", "2.3522", "--date", "2024-05-01T10:00", "--db", db] + args)
        XCTAssertEqual(run.status, 0, run.stderr)
        return CLI.addedID(run)
    }

    func testAMovedPinIsPlacedAgainAndAMadeTitleFollows() throws {
        let point = try add([])
        let written = try add(["--title", "Our flat"])
        let city = try add(["--type", "city"])
        let mountain = try add(["--type", "mountain", "--name", "Montmartre", "--height", "130"])
        XCTAssertEqual(try pins(["show", point])["title"] as? String, "Paris, France")
        XCTAssertEqual(try pins(["show", city])["title"] as? String, "Paris")

        for id in [point, written, city, mountain] {
            let moved = try pins(["edit", id, "--lat", "45.7640", "--lon", "4.8357"])
            XCTAssertEqual(moved["country"] as? String, "FR")
            XCTAssertEqual(moved["place"] as? String, "Lyon")
            XCTAssertEqual(moved["region"] as? String, "Auvergne-Rhône-Alpes")
            XCTAssertEqual(moved["latitude"] as? Double, 45.764)
        }
        XCTAssertEqual(try pins(["show", point])["title"] as? String, "Lyon, France")
        XCTAssertEqual(try pins(["show", written])["title"] as? String, "Our flat")
        let movedCity = try pins(["show", city])
        XCTAssertEqual(movedCity["title"] as? String, "Lyon")
        XCTAssertEqual((movedCity["city"] as? [String: Any])?["name"] as? String, "Lyon")
        let movedMountain = try pins(["show", mountain])
        XCTAssertEqual(movedMountain["title"] as? String, "Montmartre")
        XCTAssertEqual((movedMountain["mountain"] as? [String: Any])?["name"] as? String, "Montmartre")

        let cities = try CLI.run(["cities", "--json", "--db", db])
        let names = (try CLI.json(cities.stdout) as! [[String: Any]]).map { "\($0["name"]!):\($0["pinCount"]!)" }
        XCTAssertEqual(names, ["Lyon:1"], "Paris's shared City went with its last pin")
        let stats = try pins(["stats"])
        let france = (stats["countries"] as! [[String: Any]]).first { $0["id"] as? String == "FR" }
        XCTAssertEqual(france?["pinCount"] as? Int, 4)
        XCTAssertEqual(france?["regionsVisited"] as? Int, 1, "all four in Auvergne-Rhône-Alpes, none left in Île-de-France")
        XCTAssertEqual(france?["placesVisited"] as? Int, 1)

        // Moved back: Paris again, as it was (the browser's undo of a drag is this move).
        XCTAssertEqual(try pins(["edit", point, "--lat", "48.8566", "--lon", "2.3522"])["title"] as? String, "Paris, France")
    }
}
