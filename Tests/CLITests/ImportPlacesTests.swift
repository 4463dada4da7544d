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
        let report = try e.json(["import-places", file.path, "--json"]) as! [String: Any]
        let skipped = (report["skipped"] as! [[String: Any]]).map { "\($0["position"]!) \($0["reason"]!)" }
        XCTAssertEqual(skipped, ["line 3 malformed", "line 4 noLocation", "line 5 noLocation", "line 6 malformed"])
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
        try assertSameButIDs(first, second, idPattern: "^[0-9a-f-]{36},")
    }

    /// The two files, their ids taken out, compared by cmp(1).
    func assertSameButIDs(_ a: URL, _ b: URL, idPattern: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let regex = try NSRegularExpression(pattern: idPattern, options: [.anchorsMatchLines])
        var stripped: [String] = []
        for (n, url) in [a, b].enumerated() {
            let text = try String(contentsOf: url, encoding: .utf8)
            XCTAssertGreaterThan(regex.numberOfMatches(in: text, range: NSRange(text.startIndex..., in: text)), 0, "no ids in \(url.lastPathComponent)", file: file, line: line)
            let out = regex.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "ID,")
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
