import Foundation
import XCTest

/// Issue 40 item 11: files as other apps write them, each made here byte for byte.
final class OtherAppsFilesTests: XCTestCase {
    func env() throws -> PlaceTextAndDateTests.Env {
        let dir = try CLI.temporaryDirectory(self)
        return PlaceTextAndDateTests.Env(dir: dir, db: dir.appendingPathComponent("pins.sqlite").path)
    }

    /// JSON with a UTF-8 byte order mark (Windows tools write one) was recognised, then refused
    /// at byte 0; RFC 8259 section 8.1 lets a reader ignore the mark.
    func testJSONWithAByteOrderMarkIsRead() throws {
        let e = try env()
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let geojson = try e.write("bom.geojson", bom + Array(#"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"Louvre"},"geometry":{"type":"Point","coordinates":[2.3376,48.8606]}}]}"#.utf8))
        let saved = try e.write("Saved Places.json", bom + Array(#"{"type":"FeatureCollection","features":[{"geometry":{"coordinates":[139.7454,35.6586],"type":"Point"},"properties":{"date":"2024-05-01T10:00:00Z","google_maps_url":"http://maps.google.com/?cid=1","location":{"name":"Tokyo Tower","address":"Minato"}},"type":"Feature"}]}"#.utf8))
        let run = try e.json(["import-places", geojson, saved, "--json"])
        XCTAssertEqual((run["pins"] as! [[String: Any]]).map { $0["title"] as! String }, ["Louvre", "Tokyo Tower"])
        // A track with the mark: its fix places a photo (10:03:20Z, 200 s after the fix).
        let track = try e.write("bom-track.geojson", bom + Array(#"{"type":"Feature","properties":{"time":"2024-05-01T10:00:00Z"},"geometry":{"type":"Point","coordinates":[2.0,48.0]}}"#.utf8))
        let photo = CLI.repo.appendingPathComponent("Fixtures/tracks/offset/between-fixes.jpg").path
        let r = try CLI.run(["inspect", photo, "--track", track])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual((try CLI.json(r.stdout) as! [String: Any])["secondsToTrackFix"] as? Double, 200)
    }

    /// A GeoJSON `timestamp` in Unix seconds or milliseconds, and `recorded_at`, were passed
    /// over (the place dated with the import). 1714557600 s = 2024-05-01T10:00:00Z
    /// (`date -u -d @1714557600`); in Paris then, +02:00.
    func testGeoJSONUnixTimesAndRecordedAtDateThePlace() throws {
        let e = try env()
        func feature(_ name: String, _ properties: String, _ lon: Double) -> String {
            #"{"type":"Feature","properties":{"name":"\#(name)",\#(properties)},"geometry":{"type":"Point","coordinates":[\#(lon),48.85]}}"#
        }
        let features = [feature("seconds", #""timestamp":1714557600"#, 2.30), feature("millis", #""timestamp":1714557600000"#, 2.32),
                        feature("text", #""timestamp":"1714557600""#, 2.34), feature("recorded", #""recorded_at":"2024-05-01T10:00:00Z""#, 2.36)]
        let file = try e.write("times.geojson", Array(#"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#.utf8))
        try e.pins(["import-places", file, "--quiet"])
        let dates = Dictionary(uniqueKeysWithValues: try e.list().map { ($0["title"] as! String, $0["date"] as! String) })
        XCTAssertEqual(dates, ["seconds": "2024-05-01T12:00:00+02:00", "millis": "2024-05-01T12:00:00+02:00",
                               "text": "2024-05-01T12:00:00+02:00", "recorded": "2024-05-01T12:00:00+02:00"])
    }

    /// A European spreadsheet's CSV: `;` between fields, decimal commas (`48,8566`).
    func testSemicolonsAndDecimalCommas() throws {
        let e = try env()
        let csv = try e.write("europe.csv", Array("name;lat;lon\r\nNotre-Dame;48,8530;2,3499\r\nthousands;1.234,5;2\r\n".utf8))
        let run = try e.json(["import-places", csv, "--json"])
        XCTAssertEqual((run["pins"] as! [[String: Any]]).map { $0["title"] as! String }, ["Notre-Dame"])
        XCTAssertEqual((run["skipped"] as! [[String: Any]]).map { $0["position"] as! String }, ["line 3"])
        let pin = try e.list()[0]
        XCTAssertEqual(pin["latitude"] as? Double, 48.853)
        XCTAssertEqual(pin["longitude"] as? Double, 2.3499)
        let track = try e.write("track.csv", Array("lat;lon;time\n48,0;2,0;2024-05-01T10:00:00Z\n".utf8))
        let photo = CLI.repo.appendingPathComponent("Fixtures/tracks/offset/between-fixes.jpg").path
        let r = try CLI.run(["inspect", photo, "--track", track])
        XCTAssertEqual((try CLI.json(r.stdout) as! [String: Any])["latitude"] as? Double, 48.0, r.stderr)
    }

    /// `import-places Records.json` said only "not a place file": it is a track, and the message
    /// says where it goes.
    func testATrackGivenToImportPlacesPointsToImportTrack() throws {
        let e = try env()
        let records = try e.write("Records.json", Array(#"{"locations":[{"latitudeE7":488566000,"longitudeE7":23522000,"timestamp":"2024-05-01T10:00:00Z"}]}"#.utf8))
        let r = try e.pins(["import-places", records], status: 64)
        XCTAssertTrue(r.stderr.contains("a track (Google Records.json), not a place file: its fixes give positions to photos with 'pins import PHOTOS --track \(records)'"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: e.db))
    }
}
