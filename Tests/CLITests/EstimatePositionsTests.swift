import Foundation
import XCTest
@testable import PinStore

/// Issue 36 item 4, first step: `pins inspect DIR --estimate-positions`. A phone with GPS and a
/// camera without, interleaved on a day with a car ride, a flight and a fast leg; photos made
/// here by exiftool over a fixture JPEG (ImageMagick's pixels). Every position and text below is
/// worked by hand: 0.1° of latitude is 11.1195 km (R = 6371 km), 3° is 333.6 km.
final class EstimatePositionsTests: XCTestCase {
    func testACameraBesideAPhoneGetsEstimatesWhereTheRuleAllowsAndNoneAcrossAFlight() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/exiftool") else {
            return XCTFail("exiftool is missing: scripts/setup installs libimage-exiftool-perl")
        }
        let dir = try CLI.temporaryDirectory(self)
        // The car: 10:00Z and 10:10Z, 11.1 km apart (67 km/h).
        try CLI.datedPhoto(dir, "phone-1.jpg", "2024:05:01 10:00:00", (48.0, 2.0))
        try CLI.datedPhoto(dir, "phone-2.jpg", "2024:05:01 10:10:00", (48.1, 2.0))
        try CLI.datedPhoto(dir, "cam-car.jpg", "2024:05:01 10:04:00")
        // Just after the car: 10:18Z, 8 min after phone-2 (the next phone photo is 50 min later).
        try CLI.datedPhoto(dir, "cam-after-car.jpg", "2024:05:01 10:18:00")
        // The flight: 11:00Z in Paris, 13:00Z in Barcelona; the camera at 12:00Z.
        try CLI.datedPhoto(dir, "phone-3.jpg", "2024:05:01 11:00:00", (48.8566, 2.3522))
        try CLI.datedPhoto(dir, "phone-4.jpg", "2024:05:01 13:00:00", (41.3874, 2.1686))
        try CLI.datedPhoto(dir, "cam-flight.jpg", "2024:05:01 12:00:00")
        // Too fast: 333.6 km in 30 min (667 km/h); the camera 15 min from both.
        try CLI.datedPhoto(dir, "phone-5.jpg", "2024:05:01 14:00:00", (41.0, 2.0))
        try CLI.datedPhoto(dir, "phone-6.jpg", "2024:05:01 14:30:00", (44.0, 2.0))
        try CLI.datedPhoto(dir, "cam-fast.jpg", "2024:05:01 14:15:00")
        // A phone photo dated only by its file: never a fix (it would be 0 s from cam-undated).
        try CLI.datedPhoto(dir, "phone-undated.jpg", "2024:05:01 00:00:00", (10.0, 10.0))
        try CLI.exiftool(["-DateTimeOriginal=", "-OffsetTimeOriginal=", dir.appendingPathComponent("phone-undated.jpg").path])
        try CLI.datedPhoto(dir, "cam-late.jpg", "2024:05:01 16:00:00")

        let r = try CLI.run(["inspect", dir.path, "--estimate-positions"], environment: ["TZ": "UTC"])
        XCTAssertEqual(r.status, 0, r.stderr)
        var lines: [String: [String: Any]] = [:]
        for line in r.stdout.split(separator: "\n") {
            let o = try XCTUnwrap(CLI.json(String(line)) as? [String: Any])
            lines[URL(fileURLWithPath: o["path"] as! String).lastPathComponent] = o
        }
        XCTAssertEqual(lines.count, 12)
        // Between phone-1 and phone-2, 4/10 of the way: 48.04, 2.0.
        let car = try XCTUnwrap(lines["cam-car.jpg"])
        XCTAssertEqual(car["positionSource"] as? String, "estimate")
        XCTAssertEqual(car["latitude"] as? Double ?? 0, 48.04, accuracy: 1e-9)
        XCTAssertEqual(car["longitude"] as? Double ?? 0, 2.0, accuracy: 1e-9)
        XCTAssertEqual(car["estimate"] as? String, "from phone-1.jpg (4 min before) and phone-2.jpg (6 min after), 11.1 km apart")
        // The nearest alone, 8 min: phone-2's position.
        let after = try XCTUnwrap(lines["cam-after-car.jpg"])
        XCTAssertEqual(after["latitude"] as? Double, 48.1)
        XCTAssertEqual(after["estimate"] as? String, "from phone-2.jpg (8 min before)")
        // Across the flight: nothing.
        let flight = try XCTUnwrap(lines["cam-flight.jpg"])
        XCTAssertTrue(flight["positionSource"] is NSNull, "\(flight)")
        XCTAssertEqual(flight["estimateIssue"] as? String,
                       "the photos around it are 2 h apart (more than 30 min); nearest photo with a position 1 h away")
        let fast = try XCTUnwrap(lines["cam-fast.jpg"])
        XCTAssertTrue(fast["positionSource"] is NSNull, "\(fast)")
        XCTAssertEqual(fast["estimateIssue"] as? String,
                       "the photos around it are 333.6 km apart in 30 min, faster than 250 km/h; nearest photo with a position 15 min away")
        // After the last fix (phone-6 at 14:30Z), 1 h 30 min: the undated phone photo is no fix.
        let late = try XCTUnwrap(lines["cam-late.jpg"])
        XCTAssertEqual(late["estimateIssue"] as? String, "nearest photo with a position 1 h 30 min away")
        // Photos with their own position keep it and its source.
        XCTAssertEqual(lines["phone-1.jpg"]?["positionSource"] as? String, "exif")
        XCTAssertEqual(lines["phone-undated.jpg"]?["timeSource"] as? String, "fileModification")
        // Without the option, nothing is estimated.
        let plain = try CLI.run(["inspect", dir.appendingPathComponent("cam-car.jpg").path], environment: ["TZ": "UTC"])
        XCTAssertTrue((try CLI.json(plain.stdout) as? [String: Any])?["positionSource"] is NSNull)
    }

    /// The import: without the option a dry run says in one line how many it would place; with
    /// it, the camera photo between the phone's (10:00Z at 48.0, 10:10Z at 48.2: 22.2 km in
    /// 10 min, 133 km/h) is placed half way, 48.1, and becomes a pin whose JSON says from which.
    func testTheImportPlacesFromThePhotosAroundWhenAskedAndCountsThemOtherwise() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/exiftool") else {
            return XCTFail("exiftool is missing: scripts/setup installs libimage-exiftool-perl")
        }
        let dir = try CLI.temporaryDirectory(self)
        let photos = dir.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        try CLI.datedPhoto(photos, "phone-1.jpg", "2024:05:01 10:00:00", (48.0, 2.0))
        try CLI.datedPhoto(photos, "phone-2.jpg", "2024:05:01 10:10:00", (48.2, 2.0))
        try CLI.datedPhoto(photos, "cam-car.jpg", "2024:05:01 10:05:00")
        try CLI.datedPhoto(photos, "cam-far.jpg", "2024:05:01 12:05:00")
        let db = dir.appendingPathComponent("none.db").path
        let plain = try CLI.run(["import", photos.path, "--dry-run", "--db", db], environment: ["TZ": "UTC"])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertTrue(plain.stdout.contains("  estimates  1 photo without a position could be placed from the photos around them (--estimate-positions)\n"),
                      plain.stdout)
        XCTAssertTrue(plain.stdout.contains("  pins       2 would be created"), plain.stdout)
        let asked = try CLI.run(["import", photos.path, "--dry-run", "--json", "--db", db, "--estimate-positions"], environment: ["TZ": "UTC"])
        XCTAssertEqual(asked.status, 0, asked.stderr)
        let json = try XCTUnwrap(CLI.json(asked.stdout) as? [String: Any])
        XCTAssertEqual((json["counts"] as? [String: Any])?["placedFromEstimates"] as? Int, 1)
        let pins = try XCTUnwrap(json["pins"] as? [[String: Any]])
        let car = try XCTUnwrap(pins.first { $0["photo"] as? String == "cam-car.jpg" }, "\(pins)")
        XCTAssertEqual(car["positionSource"] as? String, "estimate")
        XCTAssertEqual(car["latitude"] as? Double ?? 0, 48.1, accuracy: 1e-9)
        XCTAssertEqual(car["estimate"] as? String, "from phone-1.jpg (5 min before) and phone-2.jpg (5 min after), 22.2 km apart")
        let skipped = try XCTUnwrap(json["skipped"] as? [[String: Any]])
        XCTAssertEqual(skipped.first { $0["photo"] as? String == "cam-far.jpg" }?["reason"] as? String, "noLocation")
        // The run's page says it of the pin: its source and from which photos.
        let page = dir.appendingPathComponent("run.html").path
        let drawn = try CLI.run(["import", photos.path, "--dry-run", "--quiet", "--db", db, "--estimate-positions", "--html", page],
                                environment: ["TZ": "UTC"])
        XCTAssertEqual(drawn.status, 0, drawn.stderr)
        let run = try XCTUnwrap(CLI.island(String(contentsOfFile: page, encoding: .utf8), "run-data") as? [String: Any])
        let created = try XCTUnwrap((run["created"] as? [[String: Any]])?.first { $0["photo"] as? String == "cam-car.jpg" })
        XCTAssertEqual(created["positionSource"] as? String, "estimate")
        XCTAssertEqual(created["detail"] as? String,
                       "position from the photos around it: from phone-1.jpg (5 min before) and phone-2.jpg (5 min after), 22.2 km apart")
        let text = try CLI.run(["import", photos.path, "--dry-run", "--db", db, "--estimate-positions"], environment: ["TZ": "UTC"])
        XCTAssertTrue(text.stdout.contains("  estimates  1 photo placed from the photos around them (listed below)"), text.stdout)
        XCTAssertTrue(text.stdout.contains("""

            Placed from the photos around them (by capture time):
              PHOTO        NOW  POSITION FROM
              cam-car.jpg  pin  from phone-1.jpg (5 min before) and phone-2.jpg (5 min after), 22.2 km apart

            """), text.stdout)
        XCTAssertTrue(text.stdout.contains("  pins       3 would be created"), text.stdout)
    }

    /// Issue 36 item 4 (a, b): the phone's photos an earlier run recorded are neighbours too, but
    /// not a photo that run placed from a track; PINS_ESTIMATE=yes in pins.conf asks for the
    /// estimates as the option does. Run 1 imports the phone (10:00Z at 48.0, 10:10Z at 48.2)
    /// and a camera photo a GPX places at 10:30Z at 50.0. Run 2 imports the camera: cam-car at
    /// 10:05Z lies half way between the phone's, 48.1; cam-late at 10:32Z is 2 min from the
    /// track-placed photo (no neighbour) and 22 min from phone-2 (more than 10 min): none.
    func testAnEarlierRunsPhotosWithTheirOwnPositionAreNeighboursAndPinsConfAsksForIt() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/exiftool") else {
            return XCTFail("exiftool is missing: scripts/setup installs libimage-exiftool-perl")
        }
        let dir = try CLI.temporaryDirectory(self)
        let phone = dir.appendingPathComponent("phone"), camera = dir.appendingPathComponent("camera")
        for folder in [phone, camera] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        try CLI.datedPhoto(phone, "phone-1.jpg", "2024:05:01 10:00:00", (48.0, 2.0))
        try CLI.datedPhoto(phone, "phone-2.jpg", "2024:05:01 10:10:00", (48.2, 2.0))
        try CLI.datedPhoto(phone, "cam-tracked.jpg", "2024:05:01 10:30:00")
        let gpx = dir.appendingPathComponent("walk.gpx")
        try """
            <?xml version="1.0"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="50.0" lon="2.0"><time>2024-05-01T10:29:50Z</time></trkpt>
            <trkpt lat="50.0" lon="2.0"><time>2024-05-01T10:30:10Z</time></trkpt>
            </trkseg></trk></gpx>
            """.write(to: gpx, atomically: true, encoding: .utf8)
        try CLI.datedPhoto(camera, "cam-car.jpg", "2024:05:01 10:05:00")
        try CLI.datedPhoto(camera, "cam-late.jpg", "2024:05:01 10:32:00")
        let db = dir.appendingPathComponent("pins.sqlite").path
        let first = try CLI.run(["import", phone.path, "--track", gpx.path, "--json", "--db", db], environment: ["TZ": "UTC"])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(((try CLI.json(first.stdout) as? [String: Any])?["counts"] as? [String: Any])?["placedFromTracks"] as? Int, 1)

        let conf = dir.appendingPathComponent("pins.conf")
        try "# estimates for every import\nPINS_ESTIMATE=maybe\n".write(to: conf, atomically: true, encoding: .utf8)
        let bad = try CLI.run(["import", camera.path, "--dry-run", "--db", db], environment: ["TZ": "UTC", "PINS_CONFIG": conf.path])
        XCTAssertEqual(bad.status, 1)
        XCTAssertEqual(bad.stderr, "pins import: \(conf.path), line 2: PINS_ESTIMATE is yes or no, got 'maybe'\n")
        try "# estimates for every import\nPINS_ESTIMATE=yes\n".write(to: conf, atomically: true, encoding: .utf8)
        let second = try CLI.run(["import", camera.path, "--json", "--db", db], environment: ["TZ": "UTC", "PINS_CONFIG": conf.path])
        XCTAssertEqual(second.status, 0, second.stderr)
        let json = try XCTUnwrap(CLI.json(second.stdout) as? [String: Any])
        XCTAssertEqual((json["counts"] as? [String: Any])?["placedFromEstimates"] as? Int, 1)
        let car = try XCTUnwrap((json["pins"] as? [[String: Any]])?.first { $0["photo"] as? String == "cam-car.jpg" }, second.stdout)
        XCTAssertEqual(car["latitude"] as? Double ?? 0, 48.1, accuracy: 1e-9)
        XCTAssertEqual(car["estimate"] as? String, "from phone-1.jpg (5 min before) and phone-2.jpg (5 min after), 22.2 km apart")
        let late = try XCTUnwrap((json["skipped"] as? [[String: Any]])?.first { $0["photo"] as? String == "cam-late.jpg" }, second.stdout)
        XCTAssertEqual(late["reason"] as? String, "noLocation")
        // The environment's value wins over the file's: no, and nothing is estimated.
        let off = try CLI.run(["import", camera.path, "--dry-run", "--json", "--db", dir.appendingPathComponent("none.sqlite").path],
                              environment: ["TZ": "UTC", "PINS_CONFIG": conf.path, "PINS_ESTIMATE": "no"])
        XCTAssertEqual(((try CLI.json(off.stdout) as? [String: Any])?["counts"] as? [String: Any])?["placedFromEstimates"] as? Int, 0, off.stderr)

        // pins show says where the position came from, of the photo (text and JSON).
        let pins = try XCTUnwrap(CLI.json(CLI.run(["list", "--json", "--db", db]).stdout) as? [[String: Any]])
        let id = try XCTUnwrap(pins.first { ($0["latitude"] as? Double).map { abs($0 - 48.1) < 1e-9 } == true }?["id"] as? String, "\(pins)")
        let shown = try XCTUnwrap(CLI.json(CLI.run(["show", id, "--json", "--db", db]).stdout) as? [String: Any])
        let words = "position from the photos around it: from phone-1.jpg (5 min before) and phone-2.jpg (5 min after), 22.2 km apart"
        XCTAssertEqual((shown["photos"] as? [[String: Any]])?.first?["detail"] as? String, words)
        let text = try CLI.run(["show", id, "--db", db])
        XCTAssertTrue(text.stdout.contains("cam-car.jpg (run 2): " + words), text.stdout)
    }

    /// Issue 36 item 4 (c): the phone's photos synced a night after the camera's. Night 1 has
    /// only the camera (PINS_ESTIMATE=yes, as pins.conf would say): all skipped for no location.
    /// Night 2 brings the phone: 10:00Z at 48.0 and 10:10Z at 48.2 (a car ride), 11:00Z in Paris
    /// and 13:00Z in Barcelona (a flight). The camera photos within 30 min of a new phone photo
    /// are read and decided again, as a new track's are: cam-car (10:05Z) gets 48.1, half way;
    /// cam-after (13:04Z) Barcelona's position, 4 min after phone-4 (then skipped for distance:
    /// phone-4's pin is there); cam-descent (12:40Z) is read but gets none (the photos around
    /// it are 2 h apart, the nearest 20 min away). cam-flight (12:00Z) is 1 h from every phone
    /// photo: not read, its record as night 1 left it. Night 3, nothing new: nothing read.
    func testAPhonePhotoArrivingANightLaterDecidesTheCameraPhotosAroundItAgain() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/exiftool") else {
            return XCTFail("exiftool is missing: scripts/setup installs libimage-exiftool-perl")
        }
        let dir = try CLI.temporaryDirectory(self)
        let library = dir.appendingPathComponent("library")
        let camera = library.appendingPathComponent("camera"), phone = library.appendingPathComponent("phone")
        for folder in [camera, phone] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        try CLI.datedPhoto(camera, "cam-car.jpg", "2024:05:01 10:05:00")
        try CLI.datedPhoto(camera, "cam-flight.jpg", "2024:05:01 12:00:00")
        try CLI.datedPhoto(camera, "cam-descent.jpg", "2024:05:01 12:40:00")
        try CLI.datedPhoto(camera, "cam-after.jpg", "2024:05:01 13:04:00")
        let db = dir.appendingPathComponent("pins.sqlite").path
        let env = ["TZ": "UTC", "PINS_ESTIMATE": "yes"]
        func night() throws -> [String: Any] {
            let r = try CLI.run(["import", library.path, "--json", "--db", db], environment: env)
            XCTAssertEqual(r.status, 0, r.stderr)
            return try XCTUnwrap(CLI.json(r.stdout) as? [String: Any], r.stdout)
        }
        func records() throws -> [String: (decision: String, source: String?, latitude: Double?, run: Int64)] {
            let rows = try PinDatabase(readOnlyPath: db).connection.query(
                "SELECT path, decision, position_source, latitude, run_id FROM photos", []) {
                ($0.string(0), $0.string(1), $0.optionalString(2), $0.optionalDouble(3), $0.int64(4))
            }
            return Dictionary(uniqueKeysWithValues: rows.map { (URL(fileURLWithPath: $0.0).lastPathComponent, ($0.1, $0.2, $0.3, $0.4)) })
        }
        let first = try night()
        XCTAssertEqual(((first["counts"] as? [String: Any])?["skipped"] as? [String: Int])?["noLocation"], 4)
        XCTAssertEqual(try records().values.map(\.decision).sorted(), Array(repeating: "noLocation", count: 4))

        try CLI.datedPhoto(phone, "phone-1.jpg", "2024:05:01 10:00:00", (48.0, 2.0))
        try CLI.datedPhoto(phone, "phone-2.jpg", "2024:05:01 10:10:00", (48.2, 2.0))
        try CLI.datedPhoto(phone, "phone-3.jpg", "2024:05:01 11:00:00", (48.8566, 2.3522))
        try CLI.datedPhoto(phone, "phone-4.jpg", "2024:05:01 13:00:00", (41.3874, 2.1686))
        let second = try night()
        let counts = try XCTUnwrap(second["counts"] as? [String: Any])
        XCTAssertEqual(counts["read"] as? Int, 7, "4 phone photos and 3 camera photos decided again")
        XCTAssertEqual(counts["redecidedForTracks"] as? Int, 3)
        XCTAssertEqual(counts["placedFromEstimates"] as? Int, 2)
        let again = try XCTUnwrap(second["redecided"] as? [[String: Any]])
        let byName = Dictionary(uniqueKeysWithValues: again.map { (URL(fileURLWithPath: $0["photo"] as! String).lastPathComponent, $0) })
        XCTAssertEqual(Set(byName.keys), ["cam-car.jpg", "cam-descent.jpg", "cam-after.jpg"])
        XCTAssertEqual(byName["cam-car.jpg"]?["decision"] as? String, "accepted")
        XCTAssertEqual(byName["cam-car.jpg"]?["estimate"] as? String, "from phone-1.jpg (5 min before) and phone-2.jpg (5 min after), 22.2 km apart")
        XCTAssertEqual(byName["cam-after.jpg"]?["decision"] as? String, "distance")
        XCTAssertEqual(byName["cam-after.jpg"]?["estimate"] as? String, "from phone-4.jpg (4 min before)")
        XCTAssertEqual(byName["cam-descent.jpg"]?["decision"] as? String, "noLocation")
        XCTAssertNil(byName["cam-descent.jpg"]?["estimate"])
        var r = try records()
        XCTAssertEqual(r["cam-car.jpg"]?.source, "estimate")
        XCTAssertEqual(r["cam-car.jpg"]?.latitude ?? 0, 48.1, accuracy: 1e-9)
        XCTAssertEqual(r["cam-after.jpg"]?.latitude ?? 0, 41.3874, accuracy: 1e-9)
        XCTAssertEqual(r["phone-1.jpg"]?.source, "exif")
        XCTAssertEqual(r["cam-flight.jpg"]?.decision, "noLocation")
        XCTAssertEqual(r["cam-flight.jpg"]?.run, 1, "not read again: no phone photo within 30 min")
        XCTAssertEqual(r["cam-descent.jpg"]?.run, 2)

        let third = try night()
        XCTAssertEqual((third["counts"] as? [String: Any])?["read"] as? Int, 0)
        r = try records()
        XCTAssertEqual(r["cam-descent.jpg"]?.run, 2)
    }

    /// Issue 36 item 4 (c), the gap: a photo a run without estimates skipped for no location
    /// (the nightly run before PINS_ESTIMATE=yes), or whose neighbour such a run recorded after
    /// it, is decided again once by the next run that estimates. Night 1 the camera (cam-car
    /// 10:05Z, cam-flight 12:00Z), with or without estimates; night 2 the phone (10:00Z at 48.0,
    /// 10:10Z at 48.2) without; night 3 with: cam-car half way, 48.1, in words; night 4 reads
    /// nothing; cam-flight, 2 h from every phone photo, is never read again.
    func testPhotosARunWithoutEstimatesLeftAreDecidedAgainByTheNextThatEstimates() throws {
        for firstNightEstimates in [false, true] {
            let dir = try CLI.temporaryDirectory(self).appendingPathComponent(firstNightEstimates ? "with" : "without")
            let camera = dir.appendingPathComponent("library/camera"), phone = dir.appendingPathComponent("library/phone")
            for folder in [camera, phone] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
            let library = dir.appendingPathComponent("library").path, db = dir.appendingPathComponent("pins.sqlite").path
            try CLI.datedPhoto(camera, "cam-car.jpg", "2024:05:01 10:05:00")
            try CLI.datedPhoto(camera, "cam-flight.jpg", "2024:05:01 12:00:00")
            func night(estimates: Bool, _ extra: [String] = ["--json"]) throws -> Run {
                let r = try CLI.run(["import", library, "--db", db] + extra,
                                    environment: ["TZ": "UTC", "PINS_CONFIG": "", "PINS_ESTIMATE": estimates ? "yes" : "no"])
                XCTAssertEqual(r.status, 0, r.stderr)
                return r
            }
            func counts(_ r: Run) throws -> [String: Any] { try XCTUnwrap((CLI.json(r.stdout) as? [String: Any])?["counts"] as? [String: Any]) }
            _ = try night(estimates: firstNightEstimates)
            try CLI.datedPhoto(phone, "phone-1.jpg", "2024:05:01 10:00:00", (48.0, 2.0))
            try CLI.datedPhoto(phone, "phone-2.jpg", "2024:05:01 10:10:00", (48.2, 2.0))
            XCTAssertEqual(try counts(night(estimates: false))["placedFromEstimates"] as? Int, 0)

            let dry = try night(estimates: true, ["--dry-run"])
            XCTAssertTrue(dry.stdout.contains("  again      1 photo skipped earlier for no location decided again for the photos with a position "
                                              + "around them: 1 pin would be created (listed below)"), dry.stdout)
            XCTAssertTrue(dry.stdout.contains("""

                Decided again for the photos with a position around them (skipped earlier for no location):
                  PHOTO               NOW  POSITION FROM OR REASON
                  camera/cam-car.jpg  pin  from phone-1.jpg (5 min before) and phone-2.jpg (5 min after), 22.2 km apart

                """), dry.stdout)
            let third = try night(estimates: true)
            let c = try counts(third)
            XCTAssertEqual(c["read"] as? Int, 1, "cam-car alone: cam-flight is 2 h from every phone photo")
            XCTAssertEqual(c["redecidedForTracks"] as? Int, 1)
            XCTAssertEqual(c["placedFromEstimates"] as? Int, 1)
            let rows = try PinDatabase(readOnlyPath: db).connection.query(
                "SELECT path, decision, position_source, latitude, run_id FROM photos WHERE CAST(path AS TEXT) LIKE '%cam-%' ORDER BY path", []) {
                (URL(fileURLWithPath: $0.string(0)).lastPathComponent, $0.string(1), $0.optionalString(2), $0.optionalDouble(3), $0.int64(4))
            }
            XCTAssertEqual(rows.map(\.0), ["cam-car.jpg", "cam-flight.jpg"])
            XCTAssertEqual(rows[0].1, "accepted")
            XCTAssertEqual(rows[0].2, "estimate")
            XCTAssertEqual(rows[0].3 ?? 0, 48.1, accuracy: 1e-9)
            XCTAssertEqual(rows[0].4, 3)
            XCTAssertEqual(rows[1].1, "noLocation")
            XCTAssertEqual(rows[1].4, 1)
            XCTAssertEqual(try counts(night(estimates: true))["read"] as? Int, 0, "decided once")
        }
    }
}
