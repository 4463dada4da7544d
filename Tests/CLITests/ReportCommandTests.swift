import Foundation
import XCTest

final class ReportCommandTests: XCTestCase {
    func testWritesThePageOfTheDatabaseAndItsFilter() throws {
        let dir = try CLI.temporaryDirectory(self)
        let db = dir.appendingPathComponent("pins.sqlite").path
        for (lat, lon, title) in [(48.8584, 2.2945, "Eiffel"), (35.6762, 139.6503, "Tokyo </script>")] {
            let add = try CLI.run(["add", "--lat", "\(lat)", "--lon", "\(lon)", "--title", title, "--db", db])
            XCTAssertEqual(add.status, 0, add.stderr)
        }
        let page = dir.appendingPathComponent("map.html").path
        let run = try CLI.run(["report", "--db", db, "--out", page])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, "Wrote \(page): 2 pins\n")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        let list = try CLI.json(try CLI.run(["list", "--json", "--db", db]).stdout) as? [[String: Any]]
        XCTAssertEqual(try islandObjects(html).map { $0["id"] as? String }, list?.map { $0["id"] as? String })
        XCTAssertTrue(html.contains("Tokyo \\u003c/script\\u003e"))
        // Only FR: one pin; the default file name is pins-map.html in the working folder.
        let france = try CLI.run(["report", "--db", db, "--country", "fr"], cwd: dir.path)
        XCTAssertEqual(france.status, 0, france.stderr)
        XCTAssertEqual(try islandObjects(try String(contentsOfFile: dir.appendingPathComponent("pins-map.html").path, encoding: .utf8)).count, 1)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(), ["map.html", "pins-map.html", "pins.sqlite"])
        // The filters of pins list: the page holds what `pins list --json` with them prints.
        let searched = try CLI.run(["report", "--db", db, "--out", page, "--search", "tokyo", "--type", "point"])
        XCTAssertEqual(searched.status, 0, searched.stderr)
        let listed = try CLI.json(try CLI.run(["list", "--json", "--db", db, "--search", "tokyo", "--type", "point"]).stdout) as? [[String: Any]]
        let shown = try islandObjects(try String(contentsOfFile: page, encoding: .utf8))
        XCTAssertEqual(shown.count, 1)
        XCTAssertEqual(shown.map { $0["id"] as? String }, listed?.map { $0["id"] as? String })
        XCTAssertTrue(try String(contentsOfFile: page, encoding: .utf8).contains("--search tokyo --type point"))
    }

    /// Issue 38 item 1: the page carries the water of its pins' tiles (a pin in Lausanne: Lake
    /// Geneva's tile, 6°E 46°N, in the sea path); without Water.bin, or with a damaged one, the
    /// page is still written, with its countries, and a warning names the file.
    func testThePageCarriesWaterAndGoesOnWithoutIt() throws {
        let dir = try CLI.temporaryDirectory(self)
        let db = dir.appendingPathComponent("pins.sqlite").path
        XCTAssertEqual(try CLI.run(["add", "--lat", "46.52", "--lon", "6.63", "--title", "Lausanne", "--db", db]).status, 0)
        let page = dir.appendingPathComponent("map.html").path
        let run = try CLI.run(["report", "--db", db, "--out", page])
        XCTAssertEqual([run.status, run.stderr] as [AnyHashable], [0, ""])
        let html = try String(contentsOfFile: page, encoding: .utf8)
        // The tile's square in world units × 32 at width 20,000: x 186/360 × 640,000 = 330,667.
        XCTAssertTrue(html.contains(#"<path class="sea" d="M330667 "#), String(html.prefix(0)))
        XCTAssertTrue(html.contains(#"<path class="river" d="M"#))
        let data = dir.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        for name in ["Countries.bin", "Countries.json", "Places.bin", "Regions.bin", "WorldMap.json"] {
            try FileManager.default.copyItem(at: CLI.repo.appendingPathComponent("Resources/\(name)"), to: data.appendingPathComponent(name))
        }
        for damage in [nil, Array("PINSWT1\n".utf8) + [1, 0, 0]] as [[UInt8]?] {
            if let damage { try Data(damage).write(to: data.appendingPathComponent("Water.bin")) }
            let without = try CLI.run(["report", "--db", db, "--out", page], environment: ["PINS_DATA_DIR": data.path])
            XCTAssertEqual(without.status, 0, without.stderr)
            XCTAssertTrue(without.stderr.contains("\(data.path)/Water.bin") && without.stderr.contains("the map draws no water"), without.stderr)
            let plain = try String(contentsOfFile: page, encoding: .utf8)
            XCTAssertFalse(plain.contains(#"class="sea""#))
            XCTAssertTrue(plain.contains(#"id="c-CH""#), "the countries are still drawn")
        }
    }

    /// A database that does not exist is an error, as for `list` (issue 22 item 6: a mistyped
    /// --db wrote an empty page over the good one): no page, no database.
    func testNoDatabaseIsAnErrorAndCreatesNothing() throws {
        let dir = try CLI.temporaryDirectory(self)
        let db = dir.appendingPathComponent("none.sqlite").path
        let run = try CLI.run(["report", "--db", db, "--out", dir.appendingPathComponent("m.html").path])
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertEqual(run.stderr, "pins report: there is no database at \(db): check --db or PINS_DB "
            + "(pins creates it at the first 'pins import' or 'pins add')\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [])
    }

    func testUsageAndWriteErrors() throws {
        let dir = try CLI.temporaryDirectory(self)
        let db = dir.appendingPathComponent("pins.sqlite").path
        XCTAssertEqual(try CLI.run(["add", "--lat", "48.8584", "--lon", "2.2945", "--db", db]).status, 0)
        XCTAssertEqual(try CLI.run(["report", "--country", "FRA", "--db", db]).status, 64)
        XCTAssertEqual(try CLI.run(["report", "extra", "--db", db]).status, 64)
        let missing = dir.appendingPathComponent("no/such/folder/map.html").path
        let failed = try CLI.run(["report", "--db", db, "--out", missing])
        XCTAssertEqual(failed.status, 1)
        XCTAssertTrue(failed.stderr.contains(missing), failed.stderr)
    }

    func testImportHTMLDrawsTheRunAndADryRunWritesNoDatabase() throws {
        let dir = try CLI.temporaryDirectory(self)
        let db = dir.appendingPathComponent("pins.sqlite").path
        let library = CLI.repo.appendingPathComponent("Fixtures/library").path
        let dryPage = dir.appendingPathComponent("dry.html").path
        let dry = try CLI.run(["import", library, "--dry-run", "--json", "--timezone", "UTC", "--db", db, "--html", dryPage])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: db), "a dry run with --html created the database")
        let report = try XCTUnwrap(try CLI.json(dry.stdout) as? [String: Any])
        let counts = try XCTUnwrap(report["counts"] as? [String: Any])
        let dryRun = try island(try String(contentsOfFile: dryPage, encoding: .utf8), "run-data") as? [String: Any]
        XCTAssertEqual(dryRun?["dryRun"] as? Bool, true)
        XCTAssertEqual((dryRun?["created"] as? [Any])?.count, counts["created"] as? Int)
        XCTAssertEqual(dryRun?["counts"] as? [String: Int], counts["skipped"] as? [String: Int])

        // A real run: its pins are in pins-data, and the run's entries name them.
        let page = dir.appendingPathComponent("real.html").path
        let real = try CLI.run(["import", library, "--quiet", "--timezone", "UTC", "--db", db, "--html", page])
        XCTAssertEqual(real.status, 0, real.stderr)
        let html = try String(contentsOfFile: page, encoding: .utf8)
        let pinIDs = Set(try islandObjects(html).compactMap { $0["id"] as? String })
        let runData = try XCTUnwrap(try island(html, "run-data") as? [String: Any])
        let created = Set((runData["created"] as? [[String: Any]] ?? []).compactMap { $0["pin"] as? String })
        XCTAssertEqual(created.count, counts["created"] as? Int)
        XCTAssertEqual(created, pinIDs)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".") }, [])
    }

    func testThumbnailsOfPhotosStillWhereTheirPinsSay() throws {
        let dir = try CLI.temporaryDirectory(self)
        let fixtures = CLI.repo.appendingPathComponent("Fixtures/thumbnail")
        let library = dir.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        for name in ["with-exif-thumbnail.jpg", "without-thumbnail.jpg"] {
            try FileManager.default.copyItem(at: fixtures.appendingPathComponent(name), to: library.appendingPathComponent(name))
        }
        // Both photos are at the same place and time: ordered by path ('-' sorts before 'o'), the
        // one with the thumbnail makes the pin and the other is skipped (interval).
        let db = dir.appendingPathComponent("pins.sqlite").path
        let imported = try CLI.run(["import", library.path, "--quiet", "--db", db])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let expected = "data:image/jpeg;base64," + (try Data(contentsOf: fixtures.appendingPathComponent("exiftool-thumbnail.jpg"))).base64EncodedString()
        /// The thumbnail of the page's one pin (pins-extra is keyed by the pin's index).
        func thumbnails(_ extra: [String]) throws -> [String?] {
            let page = dir.appendingPathComponent("map.html").path
            let run = try CLI.run(["report", "--db", db, "--out", page] + extra)
            XCTAssertEqual(run.status, 0, run.stderr)
            let html = try String(contentsOfFile: page, encoding: .utf8)
            XCTAssertEqual(try islandObjects(html).count, 1)
            let rows = try XCTUnwrap(try island(html, "pins-extra") as? [String: [String: Any]])
            return [rows["0"]?["t"] as? String]
        }
        XCTAssertEqual(try thumbnails([]), [expected])
        XCTAssertEqual(try thumbnails(["--no-thumbnails"]), [nil])
        // The file changed since it was imported: not the photo the pin was made from.
        let photo = library.appendingPathComponent("with-exif-thumbnail.jpg").path
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_000_000_000)], ofItemAtPath: photo)
        XCTAssertEqual(try thumbnails([]), [nil])
    }

    func testTheThumbnailOfATIFFPhotoIsInThePage() throws {
        let dir = try CLI.temporaryDirectory(self)
        let fixtures = CLI.repo.appendingPathComponent("Fixtures/thumbnail")
        let library = dir.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent("exif-thumbnail-ii.tif"), to: library.appendingPathComponent("scan.tif"))
        let db = dir.appendingPathComponent("pins.sqlite").path
        let imported = try CLI.run(["import", library.path, "--quiet", "--db", db])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let page = dir.appendingPathComponent("map.html").path
        let run = try CLI.run(["report", "--db", db, "--out", page])
        XCTAssertEqual(run.status, 0, run.stderr)
        let html = try String(contentsOfFile: page, encoding: .utf8)
        XCTAssertEqual(try islandObjects(html).count, 1)
        let rows = try XCTUnwrap(try island(html, "pins-extra") as? [String: [String: Any]])
        // ExifTool's `-b -ThumbnailImage` of the TIFF (scripts/fixtures-thumbnail checks it is this file).
        let expected = "data:image/jpeg;base64," + (try Data(contentsOf: fixtures.appendingPathComponent("exiftool-thumbnail.jpg"))).base64EncodedString()
        XCTAssertEqual(rows["0"]?["t"] as? String, expected)
    }

    private func island(_ html: String, _ id: String) throws -> Any { try CLI.island(html, id) }

    private func islandObjects(_ html: String) throws -> [[String: Any]] {
        try XCTUnwrap(try island(html, "pins-data") as? [[String: Any]])
    }
}
