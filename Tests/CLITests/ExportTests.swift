import Foundation
import XCTest

/// `pins export` read back by the real consumers: GDAL (ogrinfo), xmllint, gpsbabel (installed by
/// scripts/setup: gdal-bin, libxml2-utils, gpsbabel).
final class ExportTests: XCTestCase {
    var dir: URL!
    var db: String { Self.shared.db }
    /// Said to be hostile: markup, entities, quotes, a comma, a CDATA end, apostrophes.
    var hostile: String { Self.hostile }
    static let hostile = "Honolulu <b>&\"evil\"</b>, ]]> 'x'"

    /// One database for every test here (each `add` loads the outlines: built once, not per test).
    struct Shared { let folder: URL; let db: String }
    nonisolated(unsafe) static var sharedStore: Shared?
    static var shared: Shared { sharedStore! }

    override class func setUp() {
        super.setUp()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pins-export-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let db = folder.appendingPathComponent("pins.sqlite").path
        sharedStore = Shared(folder: folder, db: db)
        for args in [["--lat", "21.3069", "--lon", "-157.8583", "--title", hostile, "--date", "2024-03-10T20:30:00-10:00",
                      "--note", "=HYPERLINK(\"http://x\")\nsecond line \u{1}", "--tag", "a,b"],
                     ["--lat", "47.3769", "--lon", "8.5417", "--title", "Zürich", "--type", "city", "--name", "Zürich", "--date", "2023-06-01T12:00:00+02:00"],
                     ["--lat", "45.8326", "--lon", "6.8652", "--title", "Summit", "--type", "mountain", "--name", "Mont Blanc",
                      "--height", "4806", "--color", "#00ff00", "--date", "2023-07-14T09:00:00+02:00"],
                     ["--lat", "-33.85678912", "--lon", "151.21534567", "--title", "Opera", "--date", "2022-01-01"]] {
            let run = try? CLI.run(["add"] + args + ["--db", db])
            precondition(run?.status == 0, "pins add failed: \(run?.stderr ?? "")")
        }
    }

    override class func tearDown() {
        if let folder = sharedStore?.folder { try? FileManager.default.removeItem(at: folder) }
        super.tearDown()
    }

    override func setUpWithError() throws {
        dir = try CLI.temporaryDirectory(self)
    }

    /// Runs a tool; fails the test (never skips it) when the tool is missing.
    func tool(_ name: String, _ args: [String], file: StaticString = #filePath, line: UInt = #line) throws -> Run {
        let path = ["/usr/bin/", "/usr/local/bin/"].map { $0 + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let path else {
            XCTFail("\(name) is not installed: run scripts/setup", file: file, line: line)
            throw CocoaError(.fileNoSuchFile)
        }
        return try CLI.run(args, executable: path)
    }

    func export(_ format: String, _ extra: [String] = []) throws -> String {
        let out = dir.appendingPathComponent("pins.\(format)").path
        let run = try CLI.run(["export", "--format", format, "--out", out, "--db", db] + extra)
        XCTAssertEqual(run.status, 0, run.stderr)
        return out
    }

    /// The POINT geometries GDAL reads, as "lon lat" text, sorted.
    func points(_ ogrinfo: String) -> [String] {
        ogrinfo.split(separator: "\n").compactMap { line -> String? in
            let t = line.trimmingCharacters(in: .whitespaces)
            // The mountain has its height as Z in KML and GPX: "POINT Z (6.8652 45.8326 4806)".
            guard let open = t.firstIndex(of: "("), t.hasPrefix("POINT") else { return nil }
            return String(t[t.index(after: open)...].dropLast()).replacingOccurrences(of: " 4806", with: "")
        }.sorted()
    }

    // Hand-written: the four positions, 7 decimals at most (the Opera House rounded from 8).
    let expectedPoints = ["-157.8583 21.3069", "151.2153457 -33.8567891", "6.8652 45.8326", "8.5417 47.3769"]

    func testGDALReadsAllFourBackWithTheSameCountAndCoordinates() throws {
        for (format, options) in [("geojson", [String]()), ("kml", []), ("gpx", []),
                                  ("csv", ["-oo", "X_POSSIBLE_NAMES=longitude", "-oo", "Y_POSSIBLE_NAMES=latitude"])] {
            let path = try export(format)
            let run = try tool("ogrinfo", ["-ro", "-al", "-q"] + options + [path])
            XCTAssertEqual(run.status, 0, "\(format): \(run.stderr)")
            XCTAssertEqual(points(run.stdout), expectedPoints, format)
            // The hostile title comes back exactly as it went in.
            let titleField = ["geojson": "title", "kml": "Name", "gpx": "name", "csv": "title"][format]!
            XCTAssertTrue(run.stdout.contains("\(titleField) (String) = \(hostile)"), "\(format):\n\(run.stdout)")
        }
        // ogr2ogr converts the GeoJSON to another format without complaint: a real consumer's path.
        let geojson = dir.appendingPathComponent("pins.geojson").path
        let gpkg = dir.appendingPathComponent("pins.gpkg").path
        XCTAssertEqual(try tool("ogr2ogr", ["-f", "GPKG", gpkg, geojson]).status, 0)
        XCTAssertEqual(points(try tool("ogrinfo", ["-ro", "-al", "-q", gpkg]).stdout), expectedPoints)
    }

    func testXMLIsWellFormedAndGPXValidatesAndGPSBabelReadsIt() throws {
        let kml = try export("kml"), gpx = try export("gpx")
        let wellFormed = try tool("xmllint", ["--noout", kml, gpx])
        XCTAssertEqual(wellFormed.status, 0, wellFormed.stderr)
        let schema = CLI.repo.appendingPathComponent("Tests/CLITests/schemas/gpx-1.1-waypoints.xsd").path
        let valid = try tool("xmllint", ["--noout", "--schema", schema, gpx])
        XCTAssertEqual(valid.status, 0, valid.stderr)
        let text = try String(contentsOfFile: gpx, encoding: .utf8)
        XCTAssertTrue(text.contains("<time>2024-03-11T06:30:00Z</time>"), "GPX times are UTC with Z")
        XCTAssertTrue(text.contains("<wpt lat=\"45.8326\" lon=\"6.8652\"><ele>4806</ele><time>"), "ele comes first")
        let babel = try tool("gpsbabel", ["-i", "gpx", "-f", gpx, "-o", "unicsv", "-F", "-"])
        XCTAssertEqual(babel.status, 0, babel.stderr)
        let rows = babel.stdout.components(separatedBy: .newlines).filter { !$0.isEmpty }.dropFirst()
        XCTAssertEqual(rows.count, 4, babel.stdout)
        XCTAssertTrue(babel.stdout.contains("Summit"), babel.stdout)
        // KML: one shared style per colour, folders per country, a TimeStamp in the pin's own offset.
        let kmlText = try String(contentsOfFile: kml, encoding: .utf8)
        XCTAssertEqual(kmlText.components(separatedBy: "<Style id=").count - 1, 2)
        XCTAssertTrue(kmlText.contains("<color>ff00ff00</color>") && kmlText.contains("<color>ff3539e5</color>"), "aabbggrr")
        XCTAssertTrue(kmlText.contains("<Folder><name>Switzerland (CH)</name>"))
        XCTAssertTrue(kmlText.contains("<TimeStamp><when>2024-03-10T20:30:00-10:00</when></TimeStamp>"))
    }

    func testCSVQuotingBOMAndFormulas() throws {
        let path = try export("csv", ["--bom", "--type", "point", "--sort", "title"])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertEqual(Array(bytes.prefix(3)), [0xEF, 0xBB, 0xBF])
        let text = String(decoding: bytes.dropFirst(3), as: UTF8.self)
        let lines = text.components(separatedBy: "\r\n")
        XCTAssertEqual(lines[0], "id,title,latitude,longitude,country,country_name,type,date,color,visit_count,note,tags,name,height,place,region,region_code,trip,trip_title,photo_count,wanted")
        // RFC 4180: quotes doubled, the field quoted; a formula defused with an apostrophe.
        XCTAssertTrue(lines[1].contains(",\"Honolulu <b>&\"\"evil\"\"</b>, ]]> 'x'\",21.3069,-157.8583,US,"), lines[1])
        XCTAssertTrue(lines[1].contains(",\"'=HYPERLINK(\"\"http://x\"\")\nsecond line \u{1}\",\"a,b\","), lines[1])
        XCTAssertTrue(lines[2].contains(",Opera,-33.8567891,151.2153457,AU,Australia,point,"), lines[2])
    }

    func testGeoJSONCountriesKMLSplitAndUsage() throws {
        let path = try export("geojson", ["--countries", "--country", "CH"])
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
        let features = object["features"] as! [[String: Any]]
        XCTAssertEqual(features.count, 2)
        let country = features[0]["properties"] as! [String: Any]
        XCTAssertEqual(country["country"] as? String, "CH")
        XCTAssertEqual(country["fill"] as? String, "#43A047")
        XCTAssertEqual((features[0]["geometry"] as! [String: Any])["type"] as? String, "Polygon")
        XCTAssertEqual(((features[1]["geometry"] as! [String: Any])["coordinates"] as! [Double]), [8.5417, 47.3769])
        XCTAssertEqual((features[1]["properties"] as! [String: Any])["date"] as? String, "2023-06-01T12:00:00+02:00")

        let out = dir.appendingPathComponent("split.kml").path
        let split = try CLI.run(["export", "--format", "kml", "--split", "3", "--out", out, "--json", "--db", db])
        XCTAssertEqual(split.status, 0, split.stderr)
        let summary = try CLI.json(split.stdout) as! [String: Any]
        XCTAssertEqual(summary["files"] as? [String], [dir.appendingPathComponent("split-1.kml").path, dir.appendingPathComponent("split-2.kml").path])
        for (file, count) in [("split-1.kml", 3), ("split-2.kml", 1)] {
            let text = try String(contentsOfFile: dir.appendingPathComponent(file).path, encoding: .utf8)
            XCTAssertEqual(text.components(separatedBy: "<Placemark ").count - 1, count, file)
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".tmp") }
        XCTAssertEqual(leftovers, [], "no temporary file left behind")

        for bad in [["--format", "shp"], [], ["--format", "kml", "--split", "2"], ["--format", "kml", "--countries"],
                    ["--format", "gpx", "--bom"], ["--format", "csv", "--json"]] {
            XCTAssertEqual(try CLI.run(["export"] + bad + ["--db", db]).status, 64, "\(bad)")
        }
        // To stdout without --out.
        let stdout = try CLI.run(["export", "--format", "csv", "--search", "zurich", "--db", db])
        XCTAssertEqual(stdout.stdout.components(separatedBy: "\r\n").count, 3, stdout.stdout)
    }

    /// The countries' outlines are Countries.geojson's own geometry, byte for byte, so two
    /// exports of the same pins are the same file (they were not: the geometry went through a
    /// dictionary, and its keys came out in a different order from one run to the next).
    func testCountryOutlinesAreTheDataFilesGeometryAndTheSameAtEveryRun() throws {
        let first = try Data(contentsOf: URL(fileURLWithPath: try export("geojson", ["--countries"])))
        for _ in 0..<3 {
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: try export("geojson", ["--countries"]))), first)
        }
        let data = try String(contentsOfFile: CLI.repo.appendingPathComponent("Resources/Countries.geojson").path, encoding: .utf8)
        let line = try XCTUnwrap(data.split(separator: "\n").first { $0.contains(#""iso_a2":"CH""#) })
        let geometry = try XCTUnwrap(line.range(of: #""geometry":"#)).upperBound
        let expected = String(line[geometry...].dropLast(2))  // the feature's "}," after it
        XCTAssertTrue(expected.hasPrefix(#"{"type":"Polygon","coordinates":[[["#), expected.prefix(60).description)
        XCTAssertTrue(String(decoding: first, as: UTF8.self).contains(#""geometry":"# + expected))
    }
}
