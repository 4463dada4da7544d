import Foundation
import XCTest

/// `pins trips`, `list --trip`, the pin JSON's `trip`, renames and a home set by hand, on pins
/// made by hand with dates in their own offset. Zürich 47.3769,8.5417 and Milan 45.4642,9.1900
/// are 217 km apart (README "Trips": a day over 50 km from home is away).
final class TripsCommandTests: XCTestCase {
    func add(_ db: String, _ lat: String, _ lon: String, _ date: String, _ title: String) throws -> String {
        let run = try CLI.run(["add", "--lat", lat, "--lon", lon, "--date", date, "--title", title, "--db", db])
        XCTAssertEqual(run.status, 0, run.stderr)
        return CLI.addedID(run)
    }

    /// Runs a tool installed by scripts/setup; fails (never skips) when it is missing.
    func tool(_ name: String, _ args: [String]) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/" + name) else {
            XCTFail("\(name) is not installed: run scripts/setup")
            throw CocoaError(.fileNoSuchFile)
        }
        let run = try CLI.run(args, executable: "/usr/bin/" + name)
        XCTAssertEqual(run.status, 0, "\(name): \(run.stderr)")
        return run.stdout
    }

    /// Each export says which trip a pin is on (issue 25 item 3), read back by GDAL, xmllint and
    /// gpsbabel: the two Milan pins carry 2024-06-08 and "Italy, June 2024", home's pins nothing.
    func testExportsNameEachPinsTrip() throws {
        let dir = try CLI.temporaryDirectory(self)
        let db = dir.appendingPathComponent("pins.sqlite").path
        for day in [1, 3, 5, 12, 14] {
            _ = try add(db, "47.3769", "8.5417", String(format: "2024-06-%02dT12:00:00+02:00", day), "home \(day)")
        }
        _ = try add(db, "45.4642", "9.1900", "2024-06-08T12:00:00+02:00", "Duomo")
        _ = try add(db, "45.4520", "9.1760", "2024-06-09T23:30:00+02:00", "Navigli")
        XCTAssertEqual(try CLI.run(["settings", "--home-lat", "47.3769", "--home-lon", "8.5417", "--db", db]).status, 0)
        func export(_ format: String) throws -> String {
            let out = dir.appendingPathComponent("pins.\(format)").path
            let run = try CLI.run(["export", "--format", format, "--out", out, "--db", db])
            XCTAssertEqual(run.status, 0, run.stderr)
            return out
        }
        for format in ["geojson", "csv"] {
            let info = try tool("ogrinfo", ["-ro", "-al", "-q", try export(format)])
            // GDAL reads the id as a Date (GeoJSON) or a String (CSV): "2024/06/08" or "2024-06-08".
            let lines = info.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            let trips = lines.filter { $0.hasPrefix("trip (") }.map { $0.components(separatedBy: " = ").last ?? "" }
            let titles = lines.filter { $0.hasPrefix("trip_title (") || $0.hasPrefix("tripTitle (") }
            XCTAssertEqual(trips.filter { ["2024/06/08", "2024-06-08"].contains($0) }.count, 2, "\(format): \(info)")
            // Home's five pins: no trip (an empty CSV cell; no property in GeoJSON).
            XCTAssertEqual(trips.filter { !["2024/06/08", "2024-06-08", "", "(null)"].contains($0) && !$0.hasPrefix("trip (") }, [], format)
            XCTAssertEqual(titles.filter { $0.hasSuffix("= Italy, June 2024") }.count, 2, "\(format): \(info)")
        }
        let kml = try export("kml")
        let values = try tool("xmllint", ["--xpath", "//*[local-name()='Data'][@name='trip']/*[local-name()='value']/text()", kml])
        XCTAssertEqual(values.split(separator: "\n").map(String.init), ["2024-06-08", "2024-06-08"])
        let gpx = try export("gpx")
        let csv = try tool("gpsbabel", ["-i", "gpx", "-f", gpx, "-o", "unicsv", "-F", "-"])
        // unicsv ends its lines with CR LF: one Character to Swift, so split on any line break.
        XCTAssertEqual(csv.split(whereSeparator: \.isNewline).filter { $0.contains("Trip: Italy, June 2024") }.count, 2, csv)
    }

    func testAWeekendInMilanFromZurichIsATripWithItsPinsTitleAndName() throws {
        let db = try CLI.temporaryDirectory(self).appendingPathComponent("pins.sqlite").path
        for day in [1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14] {
            _ = try add(db, "47.3769", "8.5417", String(format: "2024-06-%02dT12:00:00+02:00", day), "home \(day)")
        }
        let sat = try add(db, "45.4642", "9.1900", "2024-06-08T12:00:00+02:00", "Duomo")
        // 23:30 on Sunday in Milan: 21:30 UTC, still the 9th in the pin's own offset.
        let sun = try add(db, "45.4642", "9.1900", "2024-06-09T23:30:00+02:00", "Navigli")

        let doc = try CLI.json(CLI.run(["trips", "--json", "--db", db]).stdout) as! [String: Any]
        let trips = doc["trips"] as! [[String: Any]]
        XCTAssertEqual(trips.count, 1)
        XCTAssertEqual(trips[0]["id"] as? String, "2024-06-08")
        XCTAssertEqual(trips[0]["start"] as? String, "2024-06-08")
        XCTAssertEqual(trips[0]["end"] as? String, "2024-06-09")
        XCTAssertEqual(trips[0]["days"] as? Int, 2)
        XCTAssertEqual(trips[0]["title"] as? String, "Italy, June 2024")
        XCTAssertEqual(trips[0]["countries"] as? [String], ["IT"])
        // The gazetteer's place of each pin (GeoNames: "Milan"), home's too.
        XCTAssertEqual(trips[0]["places"] as? [String], ["Milan"])
        XCTAssertEqual(trips[0]["pinCount"] as? Int, 2)
        XCTAssertEqual(Set(trips[0]["pins"] as! [String]), [sat, sun])
        let homes = doc["homes"] as! [[String: Any]]
        XCTAssertEqual(homes.count, 1)
        XCTAssertEqual(homes[0]["country"] as? String, "CH")
        XCTAssertEqual(homes[0]["place"] as? String, "Zürich")
        let statistics = doc["statistics"] as! [String: Any]
        XCTAssertEqual(statistics["days"] as? [String: Int], ["2024": 14])
        XCTAssertEqual(statistics["daysAbroad"] as? [String: Int], ["2024": 2])
        XCTAssertEqual(statistics["longestTrip"] as? String, "2024-06-08")

        let listed = try CLI.json(CLI.run(["list", "--trip", "2024-06-08", "--json", "--db", db]).stdout) as! [[String: Any]]
        XCTAssertEqual(listed.map { $0["title"] as? String }, ["Duomo", "Navigli"])
        XCTAssertEqual(listed.map { $0["trip"] as? String }, ["2024-06-08", "2024-06-08"])
        let all = try CLI.json(CLI.run(["list", "--json", "--db", db]).stdout) as! [[String: Any]]
        XCTAssertNil(all.first { $0["title"] as? String == "home 1" }?["trip"], "a pin at home is on no trip")
        let shown = try CLI.json(CLI.run(["show", sat, "--json", "--db", db]).stdout) as! [String: Any]
        XCTAssertEqual(shown["trip"] as? String, "2024-06-08")

        let text = try CLI.run(["trips", "--db", db])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("2024-06-08  2024-06-09  2     2     Italy, June 2024"), text.stdout)

        // A name the person gives stays when the trip grows (a third day in Milan, added later).
        XCTAssertEqual(try CLI.run(["trips", "rename", "2024-06-08", "Nonna's birthday", "--db", db]).status, 0)
        _ = try add(db, "45.4642", "9.1900", "2024-06-07T18:00:00+02:00", "Arrival")
        let renamed = (try CLI.json(CLI.run(["trips", "--json", "--db", db]).stdout) as! [String: Any])["trips"] as! [[String: Any]]
        XCTAssertEqual(renamed.map { $0["title"] as? String }, ["Nonna's birthday"])
        XCTAssertEqual(renamed.map { $0["id"] as? String }, ["2024-06-07"])
        XCTAssertEqual(renamed.map { $0["renamed"] as? Bool }, [true])

        // Home set in Milan: the Zürich days are away now, one trip of 14 days; --no-home undoes it.
        XCTAssertEqual(try CLI.run(["settings", "--home-lat", "45.4642", "--home-lon", "9.19", "--db", db]).status, 0)
        let fromMilan = (try CLI.json(CLI.run(["trips", "--json", "--db", db]).stdout) as! [String: Any])["trips"] as! [[String: Any]]
        XCTAssertEqual(fromMilan.map { $0["id"] as? String }, ["2024-06-01"])
        XCTAssertEqual(fromMilan.map { $0["days"] as? Int }, [14])
        XCTAssertEqual(try CLI.run(["settings", "--home", "home 3", "--db", db]).status, 0, "a home named by a pin's title")
        let named = try CLI.run(["settings", "--home", "zurich", "--json", "--db", db])
        XCTAssertEqual(named.status, 0, "a home named by its place, any case, no accent: \(named.stderr)")
        let home = (try CLI.json(named.stdout) as! [String: Any])["home"] as! [String: Double]
        XCTAssertEqual(home["latitude"]!, 47.3769, accuracy: 1e-6)
        XCTAssertEqual(home["longitude"]!, 8.5417, accuracy: 1e-6)
        XCTAssertEqual(((try CLI.json(CLI.run(["trips", "--json", "--db", db]).stdout) as! [String: Any])["trips"] as! [[String: Any]]).count, 1)
        XCTAssertEqual(try CLI.run(["settings", "--no-home", "--db", db]).status, 0)
        XCTAssertEqual(((try CLI.json(CLI.run(["trips", "--json", "--db", db]).stdout) as! [String: Any])["homes"] as! [[String: Any]])
                        .map { $0["set"] as? Bool }, [false])

        XCTAssertEqual(try CLI.run(["list", "--trip", "June", "--db", db]).status, 64)
        let none = try CLI.run(["list", "--trip", "2023-01-01", "--db", db])
        XCTAssertEqual(none.status, 1)
        XCTAssertTrue(none.stderr.contains("no trip starts on 2023-01-01"), none.stderr)
        XCTAssertEqual(try CLI.run(["settings", "--home", "Atlantis", "--db", db]).status, 1)
    }

    /// Issue 40, item 16: a photo left out of the trips for its date names its file (it said
    /// only "photo"). The photo is a copy of a fixture re-dated by exiftool to 2033, at the
    /// position of the first: skipped for distance, so a photo point of the trips.
    func testALeftOutPhotoIsNamedByItsFile() throws {
        let dir = try CLI.temporaryDirectory(self)
        let library = dir.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        let source = CLI.repo.appendingPathComponent("Fixtures/library/2024/06-roma/IMG_7001.jpg")
        try FileManager.default.copyItem(at: source, to: library.appendingPathComponent("rome.jpg"))
        let later = library.appendingPathComponent("rome-2033.jpg")
        try FileManager.default.copyItem(at: source, to: later)
        let exiftool = try CLI.run(["-q", "-overwrite_original", "-DateTimeOriginal=2033:05:18 12:00:00", later.path],
                                   executable: "/usr/bin/exiftool")
        XCTAssertEqual(exiftool.status, 0, exiftool.stderr)
        let db = dir.appendingPathComponent("pins.sqlite").path
        let imported = try CLI.run(["import", library.path, "--db", db, "--timezone", "UTC", "--json"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let skipped = try XCTUnwrap((try CLI.json(imported.stdout) as? [String: Any])?["skipped"] as? [[String: Any]])
        XCTAssertEqual(skipped.map { $0["photo"] as? String }, ["rome-2033.jpg"])
        let trips = try CLI.run(["trips", "--db", db])
        XCTAssertEqual(trips.status, 0, trips.stderr)
        XCTAssertTrue(trips.stdout.contains("Left out (date before 1900 or in the future): 2033-05-18T12:00:00+02:00 photo \(later.path)"),
                      trips.stdout)
        let json = try XCTUnwrap(try CLI.json(try CLI.run(["trips", "--db", db, "--json"]).stdout) as? [String: Any])
        let left = try XCTUnwrap(json["outOfRange"] as? [[String: Any]])
        XCTAssertEqual(left.map { $0["photo"] as? String }, [later.path])
    }

    /// Issue 40, item 16: `pins add` prints the pin as `pins show` does (it printed only its
    /// id): the id first, the title, the country and the town (Tokyo Tower: Minato is in the
    /// gazetteer as "Tokyo", JP-13).
    func testAddPrintsThePinAsShowDoes() throws {
        let db = try CLI.temporaryDirectory(self).appendingPathComponent("pins.sqlite").path
        let add = try CLI.run(["add", "--lat", "35.6586", "--lon", "139.7454", "--title", "Tokyo Tower", "--date", "2024-05-01T12:00", "--db", db])
        XCTAssertEqual(add.status, 0, add.stderr)
        let lines = add.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.first?.hasPrefix("id ") == true, add.stdout)
        let id = CLI.addedID(add)
        XCTAssertNotNil(UUID(uuidString: id), add.stdout)
        for row in [["title", "Tokyo Tower"], ["country", "Japan (JP)"], ["place", "Tokyo"], ["region", "Tokyo (JP-13)"],
                    ["date", "2024-05-01T12:00:00+09:00"]] {
            XCTAssertTrue(lines.contains { $0.hasPrefix(row[0] + " ") && $0.hasSuffix("  " + row[1]) }, "\(row): \(add.stdout)")
        }
        XCTAssertEqual(add.stdout, try CLI.run(["show", id, "--db", db]).stdout)
        let json = try CLI.run(["add", "--lat", "48.8584", "--lon", "2.2945", "--json", "--db", db])
        XCTAssertNotNil(UUID(uuidString: try XCTUnwrap((try CLI.json(json.stdout) as? [String: Any])?["id"] as? String)), json.stdout)
    }
}
