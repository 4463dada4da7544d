import Foundation
import XCTest

final class PinCommandTests: XCTestCase {
    func testAddListStatsDelete() throws {
        let db = try CLI.temporaryDirectory(self).appendingPathComponent("pins.sqlite").path
        let paris = try CLI.run(["add", "--lat", "48.8584", "--lon", "2.2945", "--title", "Eiffel", "--date", "2024-05-01T10:00:00+02:00",
                                 "--tag", "a", "--tag", "b", "--note", "hi", "--db", db])
        XCTAssertEqual(paris.status, 0, paris.stderr)
        let parisID = CLI.addedID(paris)
        XCTAssertNotNil(UUID(uuidString: parisID))
        XCTAssertEqual(try CLI.run(["add", "--lat", "-33.8568", "--lon", "151.2153", "--color", "#00ff00", "--db", db]).status, 0)
        XCTAssertEqual(try CLI.run(["add", "--lat", "45.8326", "--lon", "6.8652", "--type", "mountain", "--name", "Mont Blanc",
                                    "--height", "4806", "--db", db]).status, 0)
        XCTAssertEqual(try CLI.run(["add", "--lat", "0", "--lon", "-30", "--db", db]).status, 0)

        let list = try CLI.json(CLI.run(["list", "--json", "--db", db]).stdout) as! [[String: Any]]
        XCTAssertEqual(list.count, 4)
        let eiffel = try XCTUnwrap(list.first { $0["title"] as? String == "Eiffel" })
        XCTAssertEqual(eiffel["country"] as? String, "FR")
        // In the pin's own offset, the one it was given with (issue 11).
        XCTAssertEqual(eiffel["date"] as? String, "2024-05-01T10:00:00+02:00")
        XCTAssertEqual(eiffel["tags"] as? [String], ["a", "b"])
        XCTAssertEqual(eiffel["note"] as? String, "hi")
        XCTAssertNil(eiffel["type"], "a point: no type key")
        // Compact objects: what is not set is left out (a point, one visit, no photo).
        XCTAssertEqual(Set(eiffel.keys), ["id", "title", "latitude", "longitude", "country", "place", "region", "regionCode", "date", "color", "note", "tags"])
        let green = try XCTUnwrap(list.first { $0["country"] as? String == "AU" })
        XCTAssertEqual(green["color"] as? String, "#00FF00")
        XCTAssertTrue(list.contains { $0["country"] == nil }, "a pin at sea has no country key")

        let onlyFR = try CLI.json(CLI.run(["list", "--country", "fr", "--json", "--db", db]).stdout) as! [[String: Any]]
        XCTAssertEqual(onlyFR.count, 2)

        var stats = try CLI.json(CLI.run(["stats", "--json", "--db", db]).stdout) as! [String: Any]
        XCTAssertEqual(stats["countriesVisited"] as? Int, 2)
        XCTAssertEqual(stats["continentsVisited"] as? Int, 2)
        let totals = stats["totals"] as! [String: Int]
        XCTAssertEqual(totals, ["pins": 4, "point": 3, "city": 0, "mountain": 1, "withoutCountry": 1, "wanted": 0])
        let countries = stats["countries"] as! [[String: Any]]
        XCTAssertEqual(countries.first?["id"] as? String, "FR")
        XCTAssertEqual(countries.first?["name"] as? String, "France")
        XCTAssertEqual(countries.first?["pinCount"] as? Int, 2)

        let deleted = try CLI.run(["delete", parisID, "--db", db])
        XCTAssertEqual(deleted.status, 0, deleted.stderr)
        stats = try CLI.json(CLI.run(["stats", "--json", "--db", db]).stdout) as! [String: Any]
        XCTAssertEqual((stats["countries"] as! [[String: Any]]).first { $0["id"] as? String == "FR" }?["pinCount"] as? Int, 1)
        XCTAssertEqual(try CLI.run(["delete", parisID, "--db", db]).status, 1)
    }

    func testDatabasePathFromEnvironment() throws {
        let dir = try CLI.temporaryDirectory(self)
        let xdg = dir.appendingPathComponent("xdg").path
        XCTAssertEqual(try CLI.run(["add", "--lat", "1", "--lon", "2"], environment: ["XDG_DATA_HOME": xdg]).status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: xdg + "/pins/pins.sqlite"))
        let explicit = dir.appendingPathComponent("env.sqlite").path
        XCTAssertEqual(try CLI.run(["add", "--lat", "1", "--lon", "2"], environment: ["PINS_DB": explicit, "XDG_DATA_HOME": xdg]).status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: explicit))
    }

    /// `pins list --json` objects are compact (a map page holds 10,000 of them): degrees with at
    /// most 7 decimals, and a key only when it is set. The expected texts are written by hand.
    func testListJSONObjectsLeaveOutWhatIsNotSet() throws {
        let db = try CLI.temporaryDirectory(self).appendingPathComponent("pins.sqlite").path
        func add(_ args: [String]) throws -> String {
            let run = try CLI.run(["add", "--color", "#112233", "--db", db] + args)
            XCTAssertEqual(run.status, 0, run.stderr)
            return CLI.addedID(run)
        }
        // London in January: offset 0, which the date writes as Z (as for an unknown offset), so
        // utcOffset says it; 51.50072919 is 51.5007292 at 7 decimals.
        let bigBen = try add(["--lat", "51.50072919", "--lon", "-0.12462", "--title", "Big Ben", "--date", "2024-01-10T12:00"])
        // A mountain: type and its object; the date shows its offset, so no utcOffset.
        let snowdon = try add(["--lat", "53.0685", "--lon", "-4.0763", "--title", "Snowdon", "--type", "mountain", "--name", "Snowdon",
                               "--height", "1085", "--date", "2024-08-01T09:00:00+01:00"])
        let list = try CLI.run(["list", "--json", "--db", db])
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertEqual(list.stdout, "[" + [
            ##"{"color":"#112233","country":"GB","date":"2024-01-10T12:00:00Z","id":"\##(bigBen)","latitude":51.5007292,"##
                + ##""longitude":-0.12462,"place":"London","region":"England","regionCode":"GB-ENG","title":"Big Ben","utcOffset":0}"##,
            ##"{"color":"#112233","country":"GB","date":"2024-08-01T09:00:00+01:00","id":"\##(snowdon)","latitude":53.0685,"##
                + ##""longitude":-4.0763,"mountain":{"achievedHeight":1085,"height":1085,"name":"Snowdon"},"place":"Llanberis","region":"Wales","regionCode":"GB-WLS","title":"Snowdon","type":"mountain"}"##,
        ].joined(separator: ",") + "]\n")
        // Edited, three visits, a tag and a note: each appears once set.
        XCTAssertEqual(try CLI.run(["edit", bigBen, "--visits", "3", "--tag", "clock", "--note", "n", "--db", db]).status, 0)
        let edited = try CLI.run(["show", bigBen, "--json", "--db", db]).stdout
        let object = try XCTUnwrap(CLI.json(edited) as? [String: Any])
        XCTAssertEqual(object["visitCount"] as? Int, 3)
        XCTAssertEqual(object["edited"] as? Bool, true)
        XCTAssertEqual(object["tags"] as? [String], ["clock"])
        XCTAssertEqual(object["note"] as? String, "n")
    }

    func testReadingCommandsNeverCreateTheDatabase() throws {
        let db = try CLI.temporaryDirectory(self).appendingPathComponent("none.sqlite").path
        // A missing database is an error naming it (a mistyped --db is not "No pins."), and it is
        // still not created.
        for command in ["list", "stats", "runs", "cities", "mountains"] {
            let run = try CLI.run([command, "--db", db])
            XCTAssertEqual(run.status, 1, command)
            XCTAssertEqual(run.stdout, "", command)
            XCTAssertEqual(run.stderr, "pins \(command): there is no database at \(db): check --db or PINS_DB "
                + "(pins creates it at the first 'pins import' or 'pins add')\n")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: db))
    }
}
