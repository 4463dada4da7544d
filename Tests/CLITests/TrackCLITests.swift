import Foundation
import XCTest

/// `--track` in `pins inspect` and `pins import` (issue 29), on Fixtures/tracks. The positions
/// themselves are compared with exiftool's in PinImportTests/TrackAgreementTests; here: what a
/// person sees, the photo files untouched, the track that cannot be read named and the run going on.
final class TrackCLITests: XCTestCase {
    let fixtures = CLI.repo.appendingPathComponent("Fixtures/tracks")

    func testInspectGivesTheTrackPositionItsFileAndTheSecondsToTheNearestFix() throws {
        let gpx = fixtures.appendingPathComponent("segments.gpx").path
        let r = try CLI.run(["inspect", fixtures.appendingPathComponent("offset/between-fixes.jpg").path,
                             fixtures.appendingPathComponent("offset/wide-gap.jpg").path, "--track", gpx])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n").map { try! CLI.json(String($0)) as! [String: Any] }
        XCTAssertEqual(lines.count, 2)
        // 10:03:20Z, a third of the way from (48.0, 2.0) at 10:00:00Z to (48.1, 2.2) at 10:10:00Z.
        XCTAssertEqual(lines[0]["positionSource"] as? String, "track")
        XCTAssertEqual(lines[0]["latitude"] as! Double, 48.0 + 0.1 / 3, accuracy: 1e-9)
        XCTAssertEqual(lines[0]["longitude"] as! Double, 2.0 + 0.2 / 3, accuracy: 1e-9)
        XCTAssertEqual(lines[0]["trackFile"] as? String, gpx)
        XCTAssertEqual(lines[0]["secondsToTrackFix"] as? Double, 200)
        XCTAssertTrue(lines[1]["positionSource"] is NSNull)
        XCTAssertEqual(lines[1]["trackIssue"] as? String, "nearest track fix 50 min away (in a gap of the track)")
        XCTAssertTrue(r.stderr.contains("1 point without a time ignored"), r.stderr)
    }

    func testACameraZoneAndClockOffset() throws {
        let gpx = fixtures.appendingPathComponent("segments.gpx").path
        // New York wall clock 06:03:20 = 10:03:20Z; read as UTC it would be 06:03:20Z, 3 h before the track.
        let photo = fixtures.appendingPathComponent("local/new-york-between-fixes.jpg").path
        let utc = try CLI.run(["inspect", photo, "--track", gpx, "--timezone", "UTC"])
        XCTAssertTrue(utc.stdout.contains("\"trackIssue\":\"nearest track fix 3 h 56 min away (before the track)"), utc.stdout)
        let ny = try CLI.run(["inspect", photo, "--track", gpx, "--timezone", "UTC", "--camera-timezone", "America/New_York"])
        let line = try CLI.json(ny.stdout) as! [String: Any]
        XCTAssertEqual(line["latitude"] as! Double, 48.0 + 0.1 / 3, accuracy: 1e-9)
        // The same photo 200 s later on the camera's clock: 10:06:40Z, two thirds of the way.
        let late = try CLI.run(["inspect", photo, "--track", gpx, "--timezone", "UTC", "--camera-timezone", "America/New_York",
                                "--camera-clock-offset", "+03:20"])
        let lateLine = try CLI.json(late.stdout) as! [String: Any]
        XCTAssertEqual(lateLine["latitude"] as! Double, 48.0 + 0.2 / 3, accuracy: 1e-9)
        let bad = try CLI.run(["inspect", photo, "--track", gpx, "--camera-clock-offset", "1:75"])
        XCTAssertEqual(bad.status, 64)
        let alone = try CLI.run(["inspect", photo, "--camera-timezone", "UTC"])
        XCTAssertEqual(alone.status, 64)
        XCTAssertTrue(alone.stderr.contains("--camera-timezone needs --track or --estimate-positions"), alone.stderr)
    }

    /// A `--track` path that names nothing is a usage error before anything runs (issue 36
    /// item 7): exit 64, no database made, for import and inspect alike.
    func testATrackPathThatDoesNotExistIsAUsageErrorBeforeAnythingRuns() throws {
        let dir = try CLI.temporaryDirectory(self)
        let photos = dir.appendingPathComponent("photos")
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent("offset"), to: photos)
        let db = dir.appendingPathComponent("pins.db").path
        let missing = dir.appendingPathComponent("nonexist.gpx").path
        let r = try CLI.run(["import", photos.path, "--db", db, "--track", fixtures.appendingPathComponent("segments.gpx").path,
                             "--track", missing])
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertTrue(r.stderr.contains("--track \(missing): no such file or folder"), r.stderr)
        XCTAssertEqual(r.stdout, "")
        XCTAssertFalse(FileManager.default.fileExists(atPath: db), "nothing ran: no database")
        let inside = try CLI.run(["inspect", photos.path, "--track", photos.appendingPathComponent("on-fix.jpg/x.gpx").path])
        XCTAssertEqual(inside.status, 64, inside.stderr)
        XCTAssertEqual(inside.stdout, "")
    }

    /// Issue 40 item 7: `48.85,2.35,1e300` in a track was SIGILL in `TrackMatch.duration` (an
    /// Int of 1e297 seconds), and so was a clock offset of 1e23 s. A time outside the years 1 to
    /// 9999 is named with its line and left out; the rest of the track is used.
    func testATrackTimeBeyondTheYear9999IsNamedAndTheRunGoesOn() throws {
        let dir = try CLI.temporaryDirectory(self)
        let photo = fixtures.appendingPathComponent("offset/between-fixes.jpg").path
        let csv = dir.appendingPathComponent("far.csv")
        // The photo is at 10:03:20Z on 2024-05-01 (see the first test): a fix 200 s before it.
        try Data("lat,lon,time\n48.85,2.35,1e300\n48.0,2.0,2024-05-01T10:00:00Z\n48.5,2.5,-1e20\n".utf8).write(to: csv)
        let r = try CLI.run(["inspect", photo, "--track", csv.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("line 2: time 1e+297 s from 1970 outside the years 1 to 9999"), r.stderr)
        XCTAssertTrue(r.stderr.contains("line 4: time -1e+17 s from 1970 outside the years 1 to 9999"), r.stderr)
        let line = try CLI.json(r.stdout) as! [String: Any]
        XCTAssertEqual(line["latitude"] as? Double, 48.0)
        XCTAssertEqual(line["secondsToTrackFix"] as? Double, 200)
        let geojson = dir.appendingPathComponent("far.geojson")
        try Data(#"{"type":"Feature","properties":{"time":1e23},"geometry":{"type":"Point","coordinates":[2.35,48.85]}}"#.utf8).write(to: geojson)
        let g = try CLI.run(["inspect", photo, "--track", geojson.path])
        XCTAssertEqual(g.status, 0, g.stderr)
        XCTAssertTrue(g.stderr.contains("1 time outside the years 1 to 9999"), g.stderr)
        let rec = dir.appendingPathComponent("far.rec")
        try Data("2024-05-01T10:00:00Z\t*                 \t{\"_type\":\"location\",\"lat\":48.85,\"lon\":2.35,\"tst\":1e23}\n".utf8).write(to: rec)
        let o = try CLI.run(["inspect", photo, "--track", rec.path])
        XCTAssertEqual(o.status, 0, o.stderr)
        XCTAssertTrue(o.stderr.contains("line 1 (byte 0): time 1e+23 s from 1970 outside the years 1 to 9999"), o.stderr)
        for offset in ["99999999999999999999999", "3155760001"] {
            let bad = try CLI.run(["inspect", photo, "--track", csv.path, "--camera-clock-offset", offset])
            XCTAssertEqual(bad.status, 64, bad.stderr)
            XCTAssertTrue(bad.stderr.contains("--camera-clock-offset must be within ±3155760000 s (100 years)"), bad.stderr)
        }
        let century = try CLI.run(["inspect", photo, "--track", csv.path, "--camera-clock-offset", "3155760000"])
        XCTAssertEqual(century.status, 0, century.stderr)
        XCTAssertTrue(century.stdout.contains("nearest track fix 36525 d away"), century.stdout)
    }

    func testADryRunPlacesPhotosFromTracksAndSaysSoAndLeavesThePhotosAlone() throws {
        let dir = try CLI.temporaryDirectory(self)
        let photos = dir.appendingPathComponent("photos")
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent("offset"), to: photos)
        let before = try FileManager.default.contentsOfDirectory(atPath: photos.path).sorted().map {
            try Data(contentsOf: photos.appendingPathComponent($0))
        }
        let broken = dir.appendingPathComponent("broken.gpx")
        try Data("<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2\"><time>2024-05-01T00:00:00Z</time></trkpt><trkpt".utf8).write(to: broken)
        let db = dir.appendingPathComponent("pins.db").path
        let r = try CLI.run(["import", photos.path, "--dry-run", "--db", db, "--timezone", "UTC",
                             "--track", fixtures.appendingPathComponent("segments.gpx").path, "--track", broken.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("  tracks     9 photos placed from 7 fixes in 2 track files (1 could not be read, named on stderr)"), r.stdout)
        XCTAssertTrue(r.stdout.contains("Pins placed from tracks"), r.stdout)
        XCTAssertTrue(r.stdout.contains("wide-gap.jpg              no GPS position; nearest track fix 50 min away (in a gap of the track)"), r.stdout)
        XCTAssertTrue(r.stderr.contains("broken.gpx: malformed XML at byte"), r.stderr)
        XCTAssertTrue(r.stderr.contains("(the 1 fixes before it are used)"), r.stderr)
        let json = try CLI.run(["import", photos.path, "--dry-run", "--db", db, "--timezone", "UTC", "--json",
                                "--track", fixtures.appendingPathComponent("segments.gpx").path])
        let report = try CLI.json(json.stdout) as! [String: Any]
        let pins = report["pins"] as! [[String: Any]]
        let onFix = try XCTUnwrap(pins.first { $0["photo"] as? String == "on-fix.jpg" })
        XCTAssertEqual(onFix["positionSource"] as? String, "track")
        XCTAssertEqual(onFix["secondsToTrackFix"] as? Double, 0)
        XCTAssertEqual(onFix["latitude"] as? Double, 48.1)
        let after = try FileManager.default.contentsOfDirectory(atPath: photos.path).sorted().map {
            try Data(contentsOf: photos.appendingPathComponent($0))
        }
        XCTAssertEqual(before, after, "a track never changes a photo file")
    }

    /// A malformed record inside a track is named with the file, its line and why, and the rest
    /// of the file is used; a folder of tracks in other formats is read by content.
    func testAMalformedRecordIsNamedWithItsFileAndLineAndTheRestIsUsed() throws {
        let dir = try CLI.temporaryDirectory(self)
        let csv = dir.appendingPathComponent("logger.csv")
        try Data("lat,lon,time\n48.0,2.0,2024-05-01T10:00:00Z\n48.x,2.1,2024-05-01T10:05:00Z\n48.1,2.2,2024-05-01T10:10:00Z\n".utf8).write(to: csv)
        let r = try CLI.run(["inspect", fixtures.appendingPathComponent("offset/between-fixes.jpg").path, "--track", csv.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("pins inspect: track \(csv.path): line 3: latitude '48.x' or longitude '2.1' is not a number"), r.stderr)
        let line = try CLI.json(r.stdout) as! [String: Any]
        XCTAssertEqual(line["latitude"] as! Double, 48.0 + 0.1 / 3, accuracy: 1e-9)
        // A folder holding the OwnTracks log under another name.
        let folder = dir.appendingPathComponent("phone")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent("owntracks.rec"), to: folder.appendingPathComponent("log.txt"))
        let f = try CLI.run(["inspect", fixtures.appendingPathComponent("offset/between-fixes.jpg").path, "--track", folder.path])
        XCTAssertEqual(f.status, 0, f.stderr)
        let fl = try CLI.json(f.stdout) as! [String: Any]
        XCTAssertEqual(fl["trackFile"] as? String, folder.appendingPathComponent("log.txt").path)
        XCTAssertEqual(fl["longitude"] as! Double, 2.0 + 0.2 / 3, accuracy: 1e-9)
    }

    /// A pin placed by a track says so in `pins show`, text and JSON (issue 29 item 3): the track
    /// file and the seconds to its nearest fix (between-fixes.jpg: 200 s, as inspect says above).
    func testShowSaysAPinWasPlacedByATrack() throws {
        let dir = try CLI.temporaryDirectory(self)
        let library = dir.appendingPathComponent("photos").path
        try FileManager.default.createDirectory(atPath: library, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixtures.appendingPathComponent("offset/between-fixes.jpg").path,
                                         toPath: library + "/between-fixes.jpg")
        let gpx = fixtures.appendingPathComponent("segments.gpx").path
        let db = dir.appendingPathComponent("pins.sqlite").path
        let imported = try CLI.run(["import", library, "--track", gpx, "--quiet", "--db", db])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let pins = try XCTUnwrap(CLI.json(CLI.run(["list", "--json", "--db", db]).stdout) as? [[String: Any]])
        let id = try XCTUnwrap(pins.first?["id"] as? String)
        // The report's summary counts it (text and JSON).
        let again = try CLI.run(["import", library, "--track", gpx, "--dry-run", "--json", "--db", dir.appendingPathComponent("other.sqlite").path])
        let counts = try XCTUnwrap((CLI.json(again.stdout) as? [String: Any])?["counts"] as? [String: Any], again.stderr)
        XCTAssertEqual(counts["placedFromTracks"] as? Int, 1)
        let shown = try XCTUnwrap(CLI.json(CLI.run(["show", id, "--json", "--db", db]).stdout) as? [String: Any])
        let photos = try XCTUnwrap(shown["photos"] as? [[String: Any]])
        XCTAssertEqual(photos.first?["detail"] as? String, "position from the track \(gpx), nearest fix 200 s away")
        let text = try CLI.run(["show", id, "--db", db])
        XCTAssertTrue(text.stdout.contains("between-fixes.jpg (run 1): position from the track \(gpx), nearest fix 200 s away"), text.stdout)
    }
}
