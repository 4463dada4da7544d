import Foundation
import XCTest

/// Issue 40 item 12: a wish list is not a visit. Google's Saved Places (and any place file
/// imported with --wanted) are pins marked `wanted`: left out of countries, statistics and
/// trips until a photo near one or `pins edit --visited` makes it a visit.
final class WantedPlacesTests: XCTestCase {
    /// Saved Places.json in Takeout's form (a FeatureCollection of Points whose properties carry
    /// "Google Maps URL" and a "Location"), written here: the Trocadéro in Paris, 522 m from
    /// where the sample library's IMG_0001 was taken (48.85837, 2.294481 by exiftool; the
    /// haversine on pins' 6,371 km sphere, worked in Python: 0.52216 km), and Kinkaku-ji in Kyoto.
    static let savedPlaces = """
        {"type": "FeatureCollection", "features": [
         {"type": "Feature", "geometry": {"type": "Point", "coordinates": [2.2893, 48.8616]},
          "properties": {"Google Maps URL": "http://maps.google.com/?cid=111", "Title": "Trocadéro",
           "Published": "2020-01-02T10:00:00Z", "Updated": "2020-01-02T10:00:00Z",
           "Location": {"Business Name": "Trocadéro", "Country Code": "FR",
            "Geo Coordinates": {"Latitude": "48.8616", "Longitude": "2.2893"}}}},
         {"type": "Feature", "geometry": {"type": "Point", "coordinates": [135.7292, 35.0394]},
          "properties": {"Google Maps URL": "http://maps.google.com/?cid=222", "Title": "Kinkaku-ji",
           "Published": "2021-03-04T10:00:00Z", "Updated": "2021-03-04T10:00:00Z",
           "Location": {"Business Name": "Kinkaku-ji", "Country Code": "JP",
            "Geo Coordinates": {"Latitude": "35.0394", "Longitude": "135.7292"}}}}
        ]}
        """

    struct Env {
        let dir: URL
        let db: String
        @discardableResult
        func pins(_ args: [String], status: Int32 = 0, file: StaticString = #filePath, line: UInt = #line) throws -> Run {
            let run = try CLI.run(args + ["--db", db])
            XCTAssertEqual(run.status, status, "\(args): \(run.stderr)", file: file, line: line)
            return run
        }
        func json(_ args: [String], file: StaticString = #filePath, line: UInt = #line) throws -> Any {
            try CLI.json(try pins(args, file: file, line: line).stdout)
        }
        func list(_ more: [String] = []) throws -> [[String: Any]] { try json(["list", "--json"] + more) as! [[String: Any]] }
        func stats() throws -> [String: Any] { try json(["stats", "--json"]) as! [String: Any] }
    }

    func importedSavedPlaces() throws -> (Env, String) {
        let dir = try CLI.temporaryDirectory(self)
        let e = Env(dir: dir, db: dir.appendingPathComponent("pins.sqlite").path)
        let file = dir.appendingPathComponent("Saved Places.json")
        try Data(Self.savedPlaces.utf8).write(to: file)
        try e.pins(["import-places", file.path, "--quiet"])
        return (e, file.path)
    }

    func testSavedPlacesAreWantedAndCountInNoStatistics() throws {
        let (e, file) = try importedSavedPlaces()
        let pins = try e.list()
        XCTAssertEqual(pins.map { "\($0["title"]!) \($0["country"]!) \($0["wanted"] as? Bool ?? false)" },
                       ["Trocadéro FR true", "Kinkaku-ji JP true"])
        let stats = try e.stats()
        XCTAssertEqual(stats["countriesVisited"] as? Int, 0, "a saved temple adds no Japan")
        XCTAssertEqual(stats["continentsVisited"] as? Int, 0)
        XCTAssertEqual((stats["totals"] as! [String: Int])["pins"], 0)
        XCTAssertEqual((stats["totals"] as! [String: Int])["wanted"], 2)
        let text = try e.pins(["stats"]).stdout
        XCTAssertTrue(text.hasPrefix("Pins: 0 (points 0, cities 0, mountains 0)\nCountries visited: 0 of 249 (0.0 %, ISO 3166-1)\n"), text)
        XCTAssertTrue(text.hasSuffix("Wanted, not visited yet: 2 (counted in nothing above; 'pins list --wanted')\n"), text)
        XCTAssertFalse(text.contains("Japan"), text)
        // The GeoJSON export with the visited countries: the two points, no country polygon.
        let export = try e.json(["export", "--format", "geojson", "--countries"]) as! [String: Any]
        let geometries = (export["features"] as! [[String: Any]]).map { ($0["geometry"] as! [String: Any])["type"] as! String }
        XCTAssertEqual(geometries, ["Point", "Point"], "a saved place paints no country")
        let trips = try e.json(["trips", "--json"]) as! [String: Any]
        XCTAssertEqual((trips["trips"] as! [Any]).count, 0, "a wish list is no trip")
        // Where they came from, and the filters.
        let show = try e.pins(["show", (pins[1]["id"] as! String)]).stdout
        XCTAssertTrue(show.contains("source    imported from \(file) (run 1)"), show)
        XCTAssertTrue(show.contains("wanted    yes: a place to go, not a visit"), show)
        XCTAssertEqual(try e.list(["--source", "places"]).count, 2)
        XCTAssertEqual(try e.list(["--source", "manual"]).count, 0, "imported places are not made by hand")
        XCTAssertEqual(try e.list(["--wanted"]).count, 2)
        XCTAssertEqual(try e.list(["--visited"]).count, 0)
        let both = try e.pins(["list", "--wanted", "--visited"], status: 64)
        XCTAssertTrue(both.stderr.contains("--wanted and --visited exclude each other"), both.stderr)
    }

    func testAnEditMakesAWantedPlaceVisitedAndBack() throws {
        let (e, _) = try importedSavedPlaces()
        let kyoto = try e.list(["--country", "JP"])[0]["id"] as! String
        try e.pins(["edit", kyoto, "--visited"])
        var stats = try e.stats()
        XCTAssertEqual((stats["countries"] as! [[String: Any]]).map { $0["id"] as! String }, ["JP"])
        XCTAssertEqual((stats["totals"] as! [String: Int])["wanted"], 1)
        XCTAssertNil(try e.list(["--country", "JP"])[0]["wanted"], "a visit has no wanted key")
        try e.pins(["edit", kyoto, "--wanted"])
        stats = try e.stats()
        XCTAssertEqual(stats["countriesVisited"] as? Int, 0)
        XCTAssertEqual(try e.pins(["check"]).status, 0, "the country counts still agree with the pins")
    }

    /// A photo taken 0.52 km from the saved Trocadéro (the sample library's IMG_0001, Eiffel
    /// Tower, 2023-07-14 10:11:12.39 +02:00 by exiftool's SubSecDateTimeOriginal) marks it
    /// visited, dated by the photo to its hundredths; it
    /// makes no pin of its own. Kinkaku-ji, far from every photo, stays wanted.
    func testAPhotoNearAWantedPlaceMarksItVisited() throws {
        let (e, _) = try importedSavedPlaces()
        let photos = e.dir.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: CLI.repo.appendingPathComponent("Fixtures/library/2023/07-paris/IMG_0001.jpg"),
                                         to: photos.appendingPathComponent("IMG_0001.jpg"))
        let report = try e.json(["import", photos.path, "--json"]) as! [String: Any]
        XCTAssertEqual((report["counts"] as! [String: Any])["created"] as? Int, 0)
        let skipped = report["skipped"] as! [[String: Any]]
        XCTAssertEqual(skipped.map { $0["detail"] as? String },
                       ["0.52 km from pin 'Trocadéro', a wanted place: it marks it visited"])
        let pins = try e.list()
        XCTAssertEqual(pins.map { "\($0["title"]!) \($0["date"]!) \($0["wanted"] as? Bool ?? false)" },
                       ["Kinkaku-ji 2021-03-04T19:00:00+09:00 true", "Trocadéro 2023-07-14T10:11:12.390+02:00 false"])
        let stats = try e.stats()
        XCTAssertEqual((stats["countries"] as! [[String: Any]]).map { $0["id"] as! String }, ["FR"])
        XCTAssertEqual((stats["totals"] as! [String: Int])["wanted"], 1)
        let show = try e.pins(["show", pins[1]["id"] as! String]).stdout
        XCTAssertTrue(show.contains("IMG_0001.jpg"), "the photo that made it a visit is listed: \(show)")
        // The next run decides nothing again and changes nothing.
        let again = try e.json(["import", photos.path, "--json"]) as! [String: Any]
        XCTAssertEqual((again["counts"] as! [String: Any])["created"] as? Int, 0)
        XCTAssertEqual(try e.list().map { $0["date"] as! String }, pins.map { $0["date"] as! String })
    }

    /// `--wanted` makes any place file a wish list (here a GeoJSON point, pins' own form).
    func testAnyPlaceFileWithWanted() throws {
        let dir = try CLI.temporaryDirectory(self)
        let e = Env(dir: dir, db: dir.appendingPathComponent("pins.sqlite").path)
        let file = dir.appendingPathComponent("list.geojson")
        try Data(#"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[-3.7038,40.4168]},"properties":{"name":"Madrid"}}]}"#.utf8).write(to: file)
        try e.pins(["import-places", file.path, "--wanted", "--quiet"])
        XCTAssertEqual(try e.list()[0]["wanted"] as? Bool, true)
        XCTAssertEqual(try e.stats()["countriesVisited"] as? Int, 0)
    }

    /// Item 12's text outputs: `pins list` marks a wanted pin ("point*", and the count says what
    /// the mark means), and `import-places` says how many of the pins it created are wanted.
    func testListMarksWantedPinsAndTheImportCountsThem() throws {
        let dir = try CLI.temporaryDirectory(self)
        let e = Env(dir: dir, db: dir.appendingPathComponent("pins.sqlite").path)
        let file = dir.appendingPathComponent("Saved Places.json")
        try Data(Self.savedPlaces.utf8).write(to: file)
        let dry = try e.json(["import-places", file.path, "--dry-run", "--json"]) as! [String: Any]
        XCTAssertEqual((dry["counts"] as! [String: Any])["wanted"] as? Int, 2)
        XCTAssertEqual((dry["pins"] as! [[String: Any]]).map { $0["wanted"] as? Bool }, [true, true])
        let text = try e.pins(["import-places", file.path]).stdout
        XCTAssertTrue(text.contains("\nCreated 2 pins (2 wanted: places to go, not visits)\n"), text)
        try e.pins(["add", "--lat", "48.8584", "--lon", "2.2945", "--title", "Eiffel", "--date", "2024-01-15"])
        let lines = try e.pins(["list"]).stdout.split(separator: "\n").map(String.init)
        let type = lines[0].range(of: "TYPE")!.lowerBound.utf16Offset(in: lines[0])
        func typeCell(_ title: String) -> String {
            let line = lines.first { $0.hasSuffix(title) }!
            return String(line.dropFirst(type).prefix { $0 != " " })
        }
        XCTAssertEqual(typeCell("Trocadéro"), "point*", lines.joined(separator: "\n"))
        XCTAssertEqual(typeCell("Kinkaku-ji"), "point*")
        XCTAssertEqual(typeCell("Eiffel"), "point")
        XCTAssertEqual(lines.last, "3 pins, 2 wanted (TYPE *: a place to go, not a visit)")
        XCTAssertEqual(try e.pins(["list", "--visited"]).stdout.split(separator: "\n").last, "1 pin", "no mark, no word of it")
        // Imported again: nothing created, nothing said of wanted.
        let again = try e.pins(["import-places", file.path]).stdout
        XCTAssertTrue(again.contains("\nCreated 0 pins, 2 unchanged\n"), again)
    }

    /// Item 12's undo: undoing the import whose photo marked the saved Trocadéro visited makes
    /// it wanted again (the photo's record said so: its detail), so the countries, the
    /// statistics and `pins check` are as before the run; importing again marks it visited
    /// again. A place edited since the run stays as the edit left it.
    func testUndoingTheRunThatMarkedAPlaceVisitedMakesItWantedAgain() throws {
        let (e, _) = try importedSavedPlaces()
        let photos = e.dir.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: CLI.repo.appendingPathComponent("Fixtures/library/2023/07-paris/IMG_0001.jpg"),
                                         to: photos.appendingPathComponent("IMG_0001.jpg"))
        func lastRun() throws -> String {
            String((try e.json(["runs", "--json"]) as! [[String: Any]]).map { $0["id"] as! Int }.max()!)
        }
        func trocadero() throws -> [String: Any] { try e.list().first { $0["title"] as? String == "Trocadéro" }! }
        try e.pins(["import", photos.path, "--quiet"])
        XCTAssertNil(try trocadero()["wanted"])
        let id = try trocadero()["id"] as! String
        let run = try lastRun()
        XCTAssertEqual(run, "2")
        let dry = try e.json(["runs", "undo", run, "--dry-run", "--json"]) as! [String: Any]
        XCTAssertEqual((dry["wantedAgain"] as! [[String: Any]]).map { $0["id"] as? String }, [id])
        XCTAssertNil(try trocadero()["wanted"], "a dry run changes nothing")
        let undo = try e.pins(["runs", "undo", run]).stdout
        XCTAssertTrue(undo.contains("\nMade 1 place the run had marked visited wanted again, with the date it had before:\n  \(id.prefix(8))  Trocadéro\n"), undo)
        XCTAssertEqual(try trocadero()["wanted"] as? Bool, true)
        // The date it had before the photo (its Published, 2020-01-02T10:00:00Z, at +01:00 in
        // Paris that January), not the photo's.
        XCTAssertEqual(try trocadero()["date"] as? String, "2020-01-02T11:00:00+01:00")
        XCTAssertEqual(try e.stats()["countriesVisited"] as? Int, 0, "France was the undone photo's")
        XCTAssertEqual(try e.pins(["check"]).status, 0)
        // The photo is decided again: the place visited again.
        try e.pins(["import", photos.path, "--quiet"])
        XCTAssertNil(try trocadero()["wanted"])
        XCTAssertEqual(try trocadero()["date"] as? String, "2023-07-14T10:11:12.390+02:00")
        // Edited since that run: the undo leaves it visited.
        try e.pins(["edit", id, "--note", "went there"])
        let again = try e.pins(["runs", "undo", try lastRun()]).stdout
        XCTAssertFalse(again.contains("wanted again"), again)
        XCTAssertTrue(again.contains("\nLeft 1 pin the run had changed as it is: edited, or changed by a later run, since:\n  \(id.prefix(8))  Trocadéro\n"), again)
        XCTAssertNil(try trocadero()["wanted"])
    }

    /// Issue 40 item 12 (undo): an import-places run whose Semantic Location History visits made
    /// two saved places visited (ImportPlacesTests.testSemanticLocationHistoryVisitsFollowTheDistanceRule:
    /// the Eiffel Tower and the café, dated by the visits 2019-04-01, and Versailles made) is
    /// undone: Versailles goes, and the two are wanted again with the dates the Saved Places
    /// file gave them (Published 12:34:56Z and 13:00Z, +02:00 in Paris that May); France no
    /// longer counts (the countries and statistics count visits only), and `pins check` is clean.
    func testUndoingAPlacesRunWhoseVisitsMarkedWantedPlacesVisitedMakesThemWantedAgain() throws {
        let dir = try CLI.temporaryDirectory(self)
        let e = Env(dir: dir, db: dir.appendingPathComponent("pins.sqlite").path)
        let fixtures = CLI.repo.appendingPathComponent("Fixtures/places/google")
        try e.pins(["import-places", fixtures.appendingPathComponent("saved-places-old.json").path, "--quiet"])
        func paris() throws -> [String] {
            try e.list().filter { $0["country"] as? String == "FR" }
                .map { "\($0["title"]!) \($0["date"]!) \($0["wanted"] as? Bool ?? false)" }
        }
        let saved = ["Eiffel Tower 2018-05-03T14:34:56+02:00 true", "Café de l'Homme 2018-05-03T15:00:00+02:00 true"]
        XCTAssertEqual(try paris(), saved)
        XCTAssertEqual(try e.stats()["countriesVisited"] as? Int, 0)
        try e.pins(["import-places", fixtures.appendingPathComponent("semantic-2019_APRIL.json").path, "--quiet"])
        XCTAssertEqual(try paris(), ["Eiffel Tower 2019-04-01T10:11:53.190+02:00 false", "Café de l'Homme 2019-04-01T13:00:00+02:00 false",
                                     "Palace of Versailles 2019-04-01T18:00:00+02:00 false"])
        XCTAssertEqual(try e.stats()["countriesVisited"] as? Int, 1)
        let run = String((try e.json(["runs", "--json"]) as! [[String: Any]]).map { $0["id"] as! Int }.max()!)
        let dry = try e.json(["runs", "undo", run, "--dry-run", "--json"]) as! [String: Any]
        XCTAssertEqual((dry["wantedAgain"] as! [[String: Any]]).map { "\($0["title"]!) \($0["date"]!)" }.sorted(),
                       ["Café de l'Homme 2018-05-03T15:00:00+02:00", "Eiffel Tower 2018-05-03T14:34:56+02:00"])
        let undo = try e.pins(["runs", "undo", run]).stdout
        XCTAssertTrue(undo.contains("\nMade 2 places the run had marked visited wanted again, with the date it had before:\n"), undo)
        XCTAssertEqual(try paris(), saved)
        XCTAssertEqual(try e.stats()["countriesVisited"] as? Int, 0, "France was the undone visits'")
        XCTAssertEqual(try e.pins(["check"]).status, 0)
        // The run is gone, so is what it recorded: importing the visits again marks them again.
        try e.pins(["import-places", fixtures.appendingPathComponent("semantic-2019_APRIL.json").path, "--quiet"])
        XCTAssertEqual(try paris().first, "Eiffel Tower 2019-04-01T10:11:53.190+02:00 false")
    }
}

