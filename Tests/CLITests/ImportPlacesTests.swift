import Foundation
import XCTest

/// Issue 26: `pins import-places`, end to end through the built binary, on files written by
/// ogr2ogr, gpsbabel and zip (scripts/fixtures-places) and on pins' own exports.
final class ImportPlacesTests: XCTestCase {
    static let fixtures = CLI.repo.appendingPathComponent("Fixtures/places")

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
        func list() throws -> [[String: Any]] { try json(["list", "--json"]) as! [[String: Any]] }
    }

    func env() throws -> Env {
        let dir = try CLI.temporaryDirectory(self)
        return Env(dir: dir, db: dir.appendingPathComponent("pins.sqlite").path)
    }

    func fixture(_ name: String) -> String { Self.fixtures.appendingPathComponent(name).path }

    /// ogr2ogr's CSV (`-lco GEOMETRY=AS_XY`: X and Y columns, OGR's `2023/07/14 10:11:12+00`
    /// dates): five pins titled by `name`, noted by `desc`, dated in the local time of the place
    /// (the file's times are UTC: hand-converted with each zone's offset on that date).
    func testCSVFromOgr2ogr() throws {
        let e = try env()
        let report = try e.json(["import-places", fixture("from-ogr2ogr.csv"), "--json"]) as! [String: Any]
        let counts = report["counts"] as! [String: Any]
        XCTAssertEqual(counts["created"] as? Int, 5)
        let pins = try e.list()
        XCTAssertEqual(pins.map { $0["title"] as! String }, ["Matterhorn", "San Francisco", "Eiffel Tower", "Louvre", "Tokyo Tower"])
        XCTAssertEqual(pins.map { $0["date"] as! String }, ["2021-08-20T08:45:00+02:00", "2022-02-03T12:30:00-08:00",
                                                            "2023-07-14T12:11:12+02:00", "2023-07-15T11:00:00+02:00",
                                                            "2024-05-01T12:00:00+09:00"])
        XCTAssertEqual(pins[1]["note"] as? String, "Café \"Tartine\", Mission")
        XCTAssertEqual(pins[1]["country"] as? String, "US")
        XCTAssertEqual(pins[4]["country"] as? String, "JP")
        XCTAssertEqual(pins[2]["latitude"] as? Double, 48.8584)
        XCTAssertEqual(pins[2]["longitude"] as? Double, 2.2945)
        // Two places 3.2 km apart in a list are two pins (no distance rule for lists)...
        XCTAssertEqual(pins.filter { $0["country"] as? String == "FR" }.count, 2)
        // ...unless --min-distance-km asks for it.
        let e2 = try env()
        let dry = try e2.json(["import-places", fixture("from-ogr2ogr.csv"), "--json", "--dry-run", "--min-distance-km", "5"]) as! [String: Any]
        let skipped = dry["skipped"] as! [[String: Any]]
        XCTAssertEqual(skipped.map { $0["reason"] as! String }, ["distance"])
        XCTAssertEqual(skipped.first?["position"] as? String, "line 3")
        XCTAssertTrue((skipped.first?["detail"] as? String ?? "").contains("'Eiffel Tower'"), "\(skipped)")
    }

    func testSameFileTwiceAddsNothingAndAChangedRecordUpdatesItsPin() throws {
        let e = try env()
        let file = e.dir.appendingPathComponent("places.csv")
        func write(_ note: String) throws {
            try "title,latitude,longitude,date,notes,tags\r\nBar Centrale,41.9022,12.4730,2024-03-02T21:00,\(note),rome;bar\r\nTrevi,41.9009,12.4833,2024-03-02,,rome\r\n"
                .write(to: file, atomically: true, encoding: .utf8)
        }
        try write("great negroni")
        try e.pins(["import-places", file.path, "--quiet"])
        XCTAssertEqual(try e.list().count, 2)
        let again = try e.json(["import-places", file.path, file.path, "--json"]) as! [String: Any]
        let counts = again["counts"] as! [String: Any]
        XCTAssertEqual(counts["created"] as? Int, 0)
        XCTAssertEqual(counts["unchanged"] as? Int, 2)
        XCTAssertEqual((counts["skipped"] as! [String: Int])["duplicate"], 2, "the same file twice in one import")
        XCTAssertEqual(try e.list().count, 2)

        try write("closed on Mondays")
        let changed = try e.json(["import-places", file.path, "--json"]) as! [String: Any]
        XCTAssertEqual((changed["updated"] as! [[String: Any]]).map { $0["title"] as! String }, ["Bar Centrale"])
        let bar = try e.list().first { $0["title"] as? String == "Bar Centrale" }!
        XCTAssertEqual(bar["note"] as? String, "closed on Mondays")
        XCTAssertEqual(bar["tags"] as? [String], ["rome", "bar"])
        XCTAssertEqual(bar["date"] as? String, "2024-03-02T21:00:00+01:00")

        // The person edits the pin: a later change in the file leaves it as edited.
        try e.pins(["edit", bar["id"] as! String, "--note", "mine"])
        try write("changed again")
        let kept = try e.json(["import-places", file.path, "--json"]) as! [String: Any]
        XCTAssertEqual((kept["skipped"] as! [[String: Any]]).map { $0["reason"] as! String }, ["edited"])
        XCTAssertEqual(try e.list().first { $0["title"] as? String == "Bar Centrale" }?["note"] as? String, "mine")
    }

    /// Issue 40 item 12 (undo): the run in which a changed record updated its pin gives the pin
    /// back as it was (note, tags and date the first file gave it), names it (`restored`), and
    /// forgets the record's digest, so importing the changed file once more updates it again.
    func testUndoingTheRunThatUpdatedAPinFromAChangedRecordGivesItBack() throws {
        let e = try env()
        let file = e.dir.appendingPathComponent("places.csv")
        func write(_ note: String, _ date: String, _ tags: String) throws {
            try "title,latitude,longitude,date,notes,tags\r\nBar Centrale,41.9022,12.4730,\(date),\(note),\(tags)\r\n"
                .write(to: file, atomically: true, encoding: .utf8)
        }
        func bar() throws -> [String: Any] { try e.list().first { $0["title"] as? String == "Bar Centrale" }! }
        try write("great negroni", "2024-03-02T21:00", "rome;bar")
        try e.pins(["import-places", file.path, "--quiet"])
        let before = try bar()
        try write("closed on Mondays", "2024-03-09T20:30", "rome")
        let changed = try e.json(["import-places", file.path, "--json"]) as! [String: Any]
        XCTAssertEqual((changed["updated"] as! [[String: Any]]).map { $0["title"] as! String }, ["Bar Centrale"])
        XCTAssertEqual(try bar()["note"] as? String, "closed on Mondays")
        let runs = try e.json(["runs", "--json"]) as! [[String: Any]]
        let run = String(runs.map { $0["id"] as! Int }.max()!)

        let dry = try e.json(["runs", "undo", run, "--dry-run", "--json"]) as! [String: Any]
        XCTAssertEqual((dry["restored"] as! [[String: Any]]).map { $0["id"] as? String }, [before["id"] as? String])
        XCTAssertEqual(try bar()["note"] as? String, "closed on Mondays", "a dry run changes nothing")
        let undo = try e.json(["runs", "undo", run, "--json"]) as! [String: Any]
        XCTAssertEqual((undo["restored"] as! [[String: Any]]).map { $0["title"] as? String }, ["Bar Centrale"])
        XCTAssertEqual((undo["changedSince"] as! [[String: Any]]).count, 0)
        let after = try bar()
        XCTAssertEqual(after["id"] as? String, before["id"] as? String)
        XCTAssertEqual(after["note"] as? String, "great negroni")
        XCTAssertEqual(after["tags"] as? [String], ["rome", "bar"])
        XCTAssertEqual(after["date"] as? String, "2024-03-02T21:00:00+01:00")
        XCTAssertEqual(try e.list().count, 1)
        XCTAssertEqual(try e.pins(["check"]).status, 0)
        // The digest went with the run: the changed file updates the pin again.
        let again = try e.json(["import-places", file.path, "--json"]) as! [String: Any]
        XCTAssertEqual((again["updated"] as! [[String: Any]]).map { $0["title"] as! String }, ["Bar Centrale"])
        XCTAssertEqual(try bar()["date"] as? String, "2024-03-09T20:30:00+01:00")
    }

    func testEachImportIsARunAndUndoRemovesWhatItMade() throws {
        let e = try env()
        try e.pins(["add", "--lat", "48.8566", "--lon", "2.3522", "--title", "By hand"])
        try e.pins(["import-places", fixture("from-ogr2ogr.csv"), "--quiet"])
        let runs = try e.json(["runs", "--json"]) as! [[String: Any]]
        XCTAssertEqual(runs.count, 1)
        XCTAssertEqual(runs[0]["created"] as? Int, 5)
        XCTAssertEqual(runs[0]["root"] as? String, "places: " + fixture("from-ogr2ogr.csv"))
        XCTAssertEqual(runs[0]["status"] as? String, "completed")
        let undo = try e.pins(["runs", "undo", "\(runs[0]["id"]!)"]).stdout
        XCTAssertTrue(undo.contains("Removed 5 pins"), undo)
        XCTAssertEqual(try e.list().map { $0["title"] as! String }, ["By hand"])
        XCTAssertEqual(try e.pins(["check"]).status, 0)
        // Forgotten with its pins: importing the file again makes them again.
        let again = try e.json(["import-places", fixture("from-ogr2ogr.csv"), "--json"]) as! [String: Any]
        XCTAssertEqual((again["counts"] as! [String: Any])["created"] as? Int, 5)
    }

    func testDryRunWritesNothing() throws {
        let e = try env()
        try e.pins(["import-places", fixture("from-ogr2ogr.csv"), "--dry-run", "--quiet"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: e.db), "a dry run creates no database")
        try e.pins(["add", "--lat", "1", "--lon", "1"])
        let before = try Data(contentsOf: URL(fileURLWithPath: e.db))
        let text = try e.pins(["import-places", fixture("from-ogr2ogr.csv"), "--dry-run"]).stdout
        XCTAssertTrue(text.contains("Would create 5 pins"), text)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: e.db)), before)
        XCTAssertEqual(try e.list().count, 1)
    }

    func testMalformedRecordsAreListedWithTheirLineAndTheRestIsImported() throws {
        let e = try env()
        let file = e.dir.appendingPathComponent("bad.csv")
        try "name;lat;lon\nok;45.1;7.6\nnot a number;forty;7\nzero;0;0\nfar;95;0\n\"open;1;2\n".write(to: file, atomically: true, encoding: .utf8)
        // The quote left open at line 6 runs to the end: the file stops there, with 65.
        let report = try CLI.json(try e.pins(["import-places", file.path, "--json"], status: 65).stdout) as! [String: Any]
        let skipped = (report["skipped"] as! [[String: Any]]).map { "\($0["position"]!) \($0["reason"]!)" }
        XCTAssertEqual(skipped, ["line 3 malformed", "line 4 noLocation", "line 5 noLocation"])
        XCTAssertEqual(try e.list().map { $0["title"] as! String }, ["ok"])
    }

    func testUnknownKindExits64NamingTheKindsReadAndImportsNothing() throws {
        let e = try env()
        let file = e.dir.appendingPathComponent("notes.txt")
        try "just some text\n".write(to: file, atomically: true, encoding: .utf8)
        let run = try e.pins(["import-places", fixture("from-ogr2ogr.csv"), file.path], status: 64)
        XCTAssertTrue(run.stderr.contains("notes.txt: not a place file"), run.stderr)
        for kind in ["GeoJSON", "KML", "KMZ", "GPX", "CSV", "Saved Places", "Semantic Location History", "Timeline"] {
            XCTAssertTrue(run.stderr.contains(kind), kind)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: e.db))
        XCTAssertEqual(try e.pins(["import-places", e.dir.appendingPathComponent("missing.csv").path], status: 66).stdout, "")
        XCTAssertEqual(try e.pins(["import-places"], status: 64).stdout, "")
    }

    /// Issue 26 item 2: pins' own CSV export read back exactly. Export, import into an empty
    /// database, export again: the same bytes but for the ids (the first column), compared by
    /// cmp(1). Tags with the separator in them, notes with line breaks and formula characters,
    /// colours, a city, a mountain with its height, dates in their own offsets.
    func testCSVRoundTripIsByteForByte() throws {
        let e = try env()
        let adds: [[String]] = [
            ["--lat", "48.8584", "--lon", "2.2945", "--title", "Eiffel; \"Tower\"", "--date", "2023-07-14T10:11:12+02:00",
             "--tag", "paris", "--tag", "a;b\\c", "--note", "line one\nline two, with comma", "--color", "#1e88e5"],
            ["--lat", "35.6586", "--lon", "139.7454", "--title", "=SUM(A1)", "--date", "2024-05-01T12:00:00+09:00", "--note", "'=quoted"],
            ["--lat", "41.9028", "--lon", "12.4964", "--type", "city", "--name", "Rome", "--date", "2022-01-02T03:04:05Z"],
            ["--lat", "45.9763", "--lon", "7.6586", "--type", "mountain", "--name", "Matterhorn", "--height", "4478",
             "--date", "2021-08-20T06:45:00-03:30", "--tag", "summit"],
            ["--lat", "-33.8568", "--lon", "151.2153", "--title", "Opera", "--date", "2020-12-31T23:59:59.250+11:00"],
        ]
        for add in adds { try e.pins(["add"] + add) }
        let first = e.dir.appendingPathComponent("first.csv"), second = e.dir.appendingPathComponent("second.csv")
        try e.pins(["export", "--format", "csv", "--out", first.path])
        let other = e.dir.appendingPathComponent("other.sqlite").path
        let imported = try CLI.run(["import-places", first.path, "--db", other, "--json"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertEqual(((try CLI.json(imported.stdout) as! [String: Any])["counts"] as! [String: Any])["created"] as? Int, 5)
        XCTAssertEqual(try CLI.run(["export", "--format", "csv", "--out", second.path, "--db", other]).status, 0)
        try Self.assertSameButIDs(first, second, idPattern: "^[0-9a-f-]{36},")
    }

    /// The two files, their ids taken out, compared by cmp(1).
    static func assertSameButIDs(_ a: URL, _ b: URL, idPattern: String, template: String = "ID,", file: StaticString = #filePath, line: UInt = #line) throws {
        let regex = try NSRegularExpression(pattern: idPattern, options: [.anchorsMatchLines])
        var stripped: [String] = []
        for (n, url) in [a, b].enumerated() {
            let text = try String(contentsOf: url, encoding: .utf8)
            XCTAssertGreaterThan(regex.numberOfMatches(in: text, range: NSRange(text.startIndex..., in: text)), 0, "no ids in \(url.lastPathComponent)", file: file, line: line)
            let out = regex.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: template)
            let path = a.deletingLastPathComponent().appendingPathComponent("stripped-\(n)").path
            try out.write(toFile: path, atomically: true, encoding: .utf8)
            stripped.append(path)
        }
        let cmp = Process()
        cmp.executableURL = URL(fileURLWithPath: "/usr/bin/cmp")
        cmp.arguments = stripped
        try cmp.run()
        cmp.waitUntilExit()
        let texts = try stripped.map { try String(contentsOfFile: $0, encoding: .utf8) }
        XCTAssertEqual(cmp.terminationStatus, 0, "cmp \(stripped.joined(separator: " ")):\n\(texts[0])\n---\n\(texts[1])", file: file, line: line)
    }
}

/// The other formats, each from the tool that writes it or, for Google's, hand-written after the
/// public descriptions of Google's location formats (each reader's
/// comment in Sources/PinPlaces/Readers/PlacesJSON.swift quotes the schema it follows).
final class ImportPlacesFormatTests: XCTestCase {
    func fixture(_ name: String) -> String { ImportPlacesTests.fixtures.appendingPathComponent(name).path }

    func importJSON(_ files: [String], db: String, extra: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let run = try CLI.run(["import-places"] + files + ["--db", db, "--json"] + extra)
        XCTAssertEqual(run.status, 0, run.stderr, file: file, line: line)
        return try CLI.json(run.stdout) as! [String: Any]
    }

    func list(_ db: String) throws -> [[String: Any]] {
        try CLI.json(try CLI.run(["list", "--json", "--db", db]).stdout) as! [[String: Any]]
    }

    /// The five places of Fixtures/places/source.geojson as each tool wrote them, in one import:
    /// the first file of each kind makes the five pins (titles, positions, UTC times in the
    /// place's offset); every later file of the same kind (a KMZ's placemarks are KML's) reads
    /// the same five records, title and position to 1e-5, so they are `duplicate`.
    func testEveryToolsFileGivesTheSamePins() throws {
        let dir = try CLI.temporaryDirectory(self)
        let db = dir.appendingPathComponent("pins.sqlite").path
        let names = ["from-gpsbabel.gpx", "from-ogr2ogr.gpx", "from-gpsbabel.kml", "from-ogr2ogr.kml", "google-earth.kmz", "stored.kmz",
                     "nested.kmz", "from-ogr2ogr.geojson"]
        let report = try importJSON(names.map(fixture), db: db)
        XCTAssertEqual((report["files"] as! [[String: Any]]).map { "\($0["kind"]!) \($0["records"]!)" },
                       ["gpx 5", "gpx 5", "kml 5", "kml 5", "kmz 5", "kmz 5", "kmz 5", "geojson 5"])
        let expected = ["Eiffel Tower 48.8584,2.2945 2023-07-14T12:11:12+02:00", "Louvre 48.8606,2.3376 2023-07-15T11:00:00+02:00",
                        "Tokyo Tower 35.6586,139.7454 2024-05-01T12:00:00+09:00", "San Francisco 37.7749,-122.4194 2022-02-03T12:30:00-08:00",
                        "Matterhorn 45.9763,7.6586 2021-08-20T08:45:00+02:00"]
        let made = report["pins"] as! [[String: Any]]
        for name in ["from-gpsbabel.gpx", "from-gpsbabel.kml", "from-ogr2ogr.geojson"] {
            XCTAssertEqual(made.filter { ($0["file"] as! String).hasSuffix(name) }
                .map { "\($0["title"]!) \($0["latitude"]!),\($0["longitude"]!) \($0["date"]!)" }, expected, name)
        }
        let skipped = report["skipped"] as! [[String: Any]]
        XCTAssertEqual(skipped.count, 25)
        XCTAssertEqual(Set(skipped.map { $0["reason"] as! String }), ["duplicate"])
        for name in ["from-ogr2ogr.gpx", "from-ogr2ogr.kml", "google-earth.kmz", "stored.kmz", "nested.kmz"] {
            XCTAssertEqual(skipped.filter { ($0["file"] as! String).hasSuffix(name) }.compactMap { $0["title"] as? String },
                           expected.map { String($0.split(separator: " ").dropLast(2).joined(separator: " ")) }, name)
        }
        let pins = try list(db)
        XCTAssertEqual(pins.count, 15)
        XCTAssertEqual(pins.first { $0["title"] as? String == "Louvre" }?["note"] as? String, "Museum")
        // gpsbabel's KML puts its waypoints in a Folder "Waypoints": a tag, as a My Maps layer.
        XCTAssertEqual(Set(pins.compactMap { $0["tags"] as? [String] }.flatMap { $0 }), ["Waypoints"])
    }

    func testDamagedKMZStopsThatFileWith65AndNamesWhy() throws {
        let dir = try CLI.temporaryDirectory(self)
        let db = dir.appendingPathComponent("pins.sqlite").path
        let run = try CLI.run(["import-places", fixture("zip-bomb-declared.kmz"), fixture("from-gpsbabel.gpx"), "--db", db, "--quiet"])
        XCTAssertEqual(run.status, 65, run.stderr)
        XCTAssertTrue(run.stderr.contains("inflates to more than the 1000 bytes it declares"), run.stderr)
        XCTAssertEqual(try list(db).count, 5, "the other file is imported")
    }

    /// Saved Places.json, both schemas (hand-written after the public descriptions, see
    /// PlacesJSON.savedPlace): titles from the place's name, its address as the note, the
    /// saved date in the place's offset; the entries at [0, 0] skipped with their reason; the
    /// two Paris places 250 m apart are two pins (a place list has no distance rule).
    func testGoogleSavedPlacesBothSchemas() throws {
        let dir = try CLI.temporaryDirectory(self)
        let db = dir.appendingPathComponent("pins.sqlite").path
        let report = try importJSON([fixture("google/saved-places-old.json"), fixture("google/saved-places-2025.json")], db: db)
        let files = (report["files"] as! [[String: Any]]).map { $0["kind"] as! String }
        XCTAssertEqual(files, ["saved-places", "saved-places"])
        let skipped = report["skipped"] as! [[String: Any]]
        XCTAssertEqual(skipped.map { "\($0["position"]!) \($0["reason"]!)" }, ["feature 3 noLocation", "feature 3 noLocation"])
        XCTAssertEqual(skipped[1]["detail"] as? String, "at 0,0: No location information is available for this saved place")
        let pins = try list(db)
        XCTAssertEqual(pins.map { "\($0["title"]!) \($0["date"]!) \($0["country"]!)" },
                       ["Eiffel Tower 2018-05-03T14:34:56+02:00 FR", "Café de l'Homme 2018-05-03T15:00:00+02:00 FR",
                        "Colosseum 2024-03-02T11:11:12+01:00 IT", "Trevi Fountain 2024-03-02T19:30:00+01:00 IT"])
        XCTAssertEqual(pins[2]["note"] as? String, "Piazza del Colosseo, 1, 00184 Roma RM, Italy")
        XCTAssertEqual(pins[0]["latitude"] as? Double, 48.8583701)
    }

    /// Takeout Semantic Location History (hand-written after the public description, see
    /// PlacesJSON.placeVisit): visits follow the app's rules as photos do. Ordered by start time;
    /// with the saved Paris places already pins: the Eiffel Tower visit is 0 m from its saved
    /// place, the Louvre 3.0 km from the café (hand-worked with the law of cosines: 2,999 m),
    /// both skipped as `distance`. The saved places are wanted (issue 40 item 12), so each visit
    /// marks the nearest one visited, dated with its start (08:11:53.190Z and 11:00Z, at
    /// +02:00 in Paris that April: the 5 km rule, as for a photo, so the Louvre visit is the
    /// café's). Versailles (14 km) is a pin at its start time
    /// (1554134400000 ms = 2019-04-01T16:00Z = 18:00+02:00); the visit without coordinates is
    /// `noLocation`; the activitySegment is not a record.
    func testSemanticLocationHistoryVisitsFollowTheDistanceRule() throws {
        let dir = try CLI.temporaryDirectory(self)
        let db = dir.appendingPathComponent("pins.sqlite").path
        _ = try importJSON([fixture("google/saved-places-old.json")], db: db)
        let report = try importJSON([fixture("google/semantic-2019_APRIL.json")], db: db)
        XCTAssertEqual((report["files"] as! [[String: Any]]).first?["records"] as? Int, 4)
        let skipped = report["skipped"] as! [[String: Any]]
        XCTAssertEqual(skipped.map { "\($0["position"]!) \($0["reason"]!) \($0["detail"]!)" },
                       ["timelineObject 2 distance 0 m from 'Eiffel Tower', a wanted place: it marks it visited",
                        "timelineObject 3 distance 2999 m from 'Café de l'Homme', a wanted place: it marks it visited",
                        "timelineObject 5 noLocation no coordinates"])
        let paris = try list(db).filter { ($0["country"] as? String) == "FR" }
        XCTAssertEqual(paris.map { "\($0["title"]!) \($0["date"]!) \($0["wanted"] as? Bool ?? false)" },
                       ["Eiffel Tower 2019-04-01T10:11:53.190+02:00 false", "Café de l'Homme 2019-04-01T13:00:00+02:00 false",
                        "Palace of Versailles 2019-04-01T18:00:00+02:00 false"])
        let made = report["pins"] as! [[String: Any]]
        XCTAssertEqual(made.map { "\($0["title"]!) \($0["date"]!)" }, ["Palace of Versailles 2019-04-01T18:00:00+02:00"])
        // Idempotent: the next run adds nothing.
        let again = try importJSON([fixture("google/semantic-2019_APRIL.json")], db: db)
        XCTAssertEqual((again["counts"] as! [String: Any])["created"] as? Int, 0)
        XCTAssertEqual((again["counts"] as! [String: Any])["unchanged"] as? Int, 1)
    }

    /// The phone's Timeline export, both variants (hand-written after the public description,
    /// see PlacesJSON.timelineVisit): each visit a pin at its place with its start time in the
    /// file's offset, titled by the gazetteer's place (the file names none: San Francisco, Tokyo
    /// Tower in Tokyo, Kyoto); the second Tokyo visit
    /// 4.06 km from the first is skipped; timelinePath, activity, rawSignals are not places.
    func testPhoneTimelineVisits() throws {
        let dir = try CLI.temporaryDirectory(self)
        let db = dir.appendingPathComponent("pins.sqlite").path
        let report = try importJSON([fixture("google/timeline-phone.json"), fixture("google/timeline-phone-array.json")], db: db)
        XCTAssertEqual((report["files"] as! [[String: Any]]).map { "\($0["kind"]!) \($0["records"]!)" }, ["timeline 3", "timeline 2"])
        XCTAssertEqual((report["skipped"] as! [[String: Any]]).map { "\($0["position"]!) \($0["reason"]!)" },
                       ["semanticSegment 3 distance", "segment 3 distance"])
        let pins = try list(db)
        XCTAssertEqual(pins.map { "\($0["title"]!) \($0["date"]!) \($0["latitude"]!),\($0["longitude"]!)" },
                       ["San Francisco, United States 2023-09-10T10:00:00-07:00 37.7749,-122.4194",
                        "Tokyo, Japan 2024-05-01T09:00:00+09:00 35.6585805,139.7454329",
                        "Kyoto, Japan 2024-05-02T08:00:00+09:00 35.0116,135.7681"])
    }

    /// Issue 26 item 2 for GeoJSON: export, import into an empty database, export again, the
    /// same bytes but for the ids (cmp), with an edited pin, tags, notes, a city, a mountain,
    /// odd offsets.
    func testGeoJSONRoundTripIsByteForByte() throws {
        let dir = try CLI.temporaryDirectory(self)
        let db = dir.appendingPathComponent("a.sqlite").path
        func pins(_ args: [String]) throws -> String {
            let run = try CLI.run(args + ["--db", db])
            XCTAssertEqual(run.status, 0, run.stderr)
            return run.stdout
        }
        let first = try pins(["add", "--lat", "48.8584", "--lon", "2.2945", "--title", "Eiffel; \"Tower\"", "--date", "2023-07-14T10:11:12+02:00",
                              "--tag", "paris", "--tag", "a;b\\c", "--note", "line one\nline two", "--color", "#1e88e5"])
        _ = try pins(["add", "--lat", "41.9028", "--lon", "12.4964", "--type", "city", "--name", "Rome", "--date", "2022-01-02T03:04:05Z"])
        _ = try pins(["add", "--lat", "45.9763", "--lon", "7.6586", "--type", "mountain", "--name", "Matterhorn", "--height", "4478",
                      "--date", "2021-08-20T06:45:00-03:30"])
        _ = try pins(["add", "--lat", "-33.8568", "--lon", "151.2153", "--title", "Opera", "--date", "2020-12-31T23:59:59.250+11:00"])
        _ = try pins(["edit", CLI.addedID(Run(status: 0, stdout: first, stderr: "")), "--note", "edited by hand"])
        let a = dir.appendingPathComponent("a.geojson"), b = dir.appendingPathComponent("b.geojson")
        _ = try pins(["export", "--format", "geojson", "--out", a.path])
        let other = dir.appendingPathComponent("b.sqlite").path
        XCTAssertEqual(((try importJSON([a.path], db: other))["counts"] as! [String: Any])["created"] as? Int, 4)
        XCTAssertEqual(try CLI.run(["export", "--format", "geojson", "--out", b.path, "--db", other]).status, 0)
        try ImportPlacesTests.assertSameButIDs(a, b, idPattern: "\"id\":\"[0-9a-f-]{36}\"", template: "\"id\":\"ID\"")
    }
}
