import Foundation
import XCTest

/// Issue 36 item 1: one instant per photo. The camera's zone (`--camera-timezone`) and clock
/// offset (`--camera-clock-offset`) decide it once; the track lookup, the rules, the stored date
/// and the reports all use that one. Every instant below is worked by hand.
///
/// The photos are made here by exiftool from a fixture JPEG (Fixtures/tracks, ImageMagick's
/// pixels): `camera.jpg` has DateTimeOriginal 2024:04:21 11:10:00 with SubSecTimeOriginal 030
/// and no offset (a camera set to Madrid time, CEST = UTC+2: 09:10:00.030Z); `own-offset.jpg`
/// 2024:04:21 10:10:00 with OffsetTimeOriginal +01:00 (09:10:00Z). The walk has a fix at
/// 08:00:00Z and one at 09:11:05Z, 4,265 s apart (wider than the 1,800 s across which pins
/// interpolates): a photo at 09:10:00.030Z takes the second fix, 64.97 s away.
final class OneInstantTests: XCTestCase {
    static let fix = (latitude: 37.1761, longitude: -3.5881)

    struct Library {
        let dir: URL
        var camera: String { dir.appendingPathComponent("photos/camera.jpg").path }
        var ownOffset: String { dir.appendingPathComponent("photos/own-offset.jpg").path }
        var walk: String { dir.appendingPathComponent("walk.gpx").path }
        var photos: String { dir.appendingPathComponent("photos").path }
    }

    private func library() throws -> Library {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/exiftool") else {
            XCTFail("exiftool is missing: scripts/setup installs libimage-exiftool-perl")
            throw SetupFailed()
        }
        let lib = Library(dir: try CLI.temporaryDirectory(self))
        try FileManager.default.createDirectory(atPath: lib.photos, withIntermediateDirectories: true)
        let base = CLI.repo.appendingPathComponent("Fixtures/tracks/local/new-york-between-fixes.jpg").path
        try FileManager.default.copyItem(atPath: base, toPath: lib.camera)
        try CLI.exiftool(["-DateTimeOriginal=2024:04:21 11:10:00", "-SubSecTimeOriginal=030", lib.camera])
        try FileManager.default.copyItem(atPath: base, toPath: lib.ownOffset)
        try CLI.exiftool(["-DateTimeOriginal=2024:04:21 10:10:00", "-OffsetTimeOriginal=+01:00", lib.ownOffset])
        try Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="OneInstantTests" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="37.1700" lon="-3.6000"><time>2024-04-21T08:00:00Z</time></trkpt>
            <trkpt lat="37.1761" lon="-3.5881"><time>2024-04-21T09:11:05Z</time></trkpt>
            </trkseg></trk></gpx>
            """.utf8).write(to: URL(fileURLWithPath: lib.walk))
        return lib
    }

    struct SetupFailed: Error {}

    /// `pins inspect PATH ARGS` under TZ=UTC (a NAS, a container), its one JSON line.
    private func inspect(_ path: String, _ args: [String], file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let r = try CLI.run(["inspect", path] + args, environment: ["TZ": "UTC"])
        XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)
        return try XCTUnwrap(CLI.json(r.stdout) as? [String: Any], r.stdout, file: file, line: line)
    }

    private func assertPlacedOnTheSecondFix(_ o: [String: Any], seconds: Double, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(o["positionSource"] as? String, "track", "\(o)", file: file, line: line)
        XCTAssertEqual(o["latitude"] as? Double, Self.fix.latitude, file: file, line: line)
        XCTAssertEqual(o["longitude"] as? Double, Self.fix.longitude, file: file, line: line)
        XCTAssertEqual(o["secondsToTrackFix"] as? Double ?? -1, seconds, accuracy: 1e-6, file: file, line: line)
    }

    /// The photo without an offset, under each combination of the zone options.
    func testACameraWithoutAnOffsetUnderEachCombinationOfZoneOptions() throws {
        let lib = try library()
        // Nothing said, on a machine in UTC: the wall clock read as UTC.
        let utc = try inspect(lib.camera, [])
        XCTAssertEqual(utc["takenAt"] as? String, "2024-04-21T11:10:00.030Z")
        XCTAssertEqual(utc["timeSource"] as? String, "assumedZone")
        // --timezone Europe/Madrid: 09:10:00.030Z, shown in Madrid.
        let madrid = try inspect(lib.camera, ["--timezone", "Europe/Madrid"])
        XCTAssertEqual(madrid["takenAt"] as? String, "2024-04-21T11:10:00.030+02:00")
        // --camera-timezone Europe/Madrid: the same instant stored as the one the track used
        // (the case: the track found the fix 65 s away, the date said 11:10:00.030Z).
        let camera = try inspect(lib.camera, ["--track", lib.walk, "--camera-timezone", "Europe/Madrid"])
        XCTAssertEqual(camera["takenAt"] as? String, "2024-04-21T11:10:00.030+02:00")
        assertPlacedOnTheSecondFix(camera, seconds: 64.97)
        // The camera's zone wins over --timezone for the camera's wall clock.
        let both = try inspect(lib.camera, ["--timezone", "America/New_York", "--track", lib.walk, "--camera-timezone", "Europe/Madrid"])
        XCTAssertEqual(both["takenAt"] as? String, "2024-04-21T11:10:00.030+02:00")
        assertPlacedOnTheSecondFix(both, seconds: 64.97)
        // The camera 65 s fast (-65): 09:08:55.030Z, 129.97 s before the fix; the date says it.
        let fast = try inspect(lib.camera, ["--track", lib.walk, "--camera-timezone", "Europe/Madrid", "--camera-clock-offset", "-65"])
        XCTAssertEqual(fast["takenAt"] as? String, "2024-04-21T11:08:55.030+02:00")
        XCTAssertEqual(fast["timeTag"] as? String, "DateTimeOriginal + camera clock offset -65 s")
        assertPlacedOnTheSecondFix(fast, seconds: 129.97)
        // --timezone with a clock offset and no camera zone: 09:10:00.030Z + 65 s = 09:11:05.030Z.
        let slow = try inspect(lib.camera, ["--timezone", "Europe/Madrid", "--track", lib.walk, "--camera-clock-offset", "+1:05"])
        XCTAssertEqual(slow["takenAt"] as? String, "2024-04-21T11:11:05.030+02:00")
        assertPlacedOnTheSecondFix(slow, seconds: 0.03)
    }

    /// A photo with its own offset keeps its instant whatever the camera zone; the clock offset
    /// moves it (the camera's clock was wrong, whatever its zone).
    func testAPhotoWithItsOwnOffsetIgnoresTheCameraZoneAndTakesTheClockOffset() throws {
        let lib = try library()
        let own = try inspect(lib.ownOffset, ["--track", lib.walk, "--camera-timezone", "America/New_York"])
        XCTAssertEqual(own["takenAt"] as? String, "2024-04-21T10:10:00+01:00")
        XCTAssertEqual(own["timeSource"] as? String, "exifOffset")
        assertPlacedOnTheSecondFix(own, seconds: 65)
        let shifted = try inspect(lib.ownOffset, ["--track", lib.walk, "--camera-timezone", "America/New_York", "--camera-clock-offset", "65"])
        XCTAssertEqual(shifted["takenAt"] as? String, "2024-04-21T10:11:05+01:00")
        assertPlacedOnTheSecondFix(shifted, seconds: 0)
    }

    /// A video's UTC time (Matroska DateUTC, 2021-06-01 10:34:56.25Z as exiftool reads it) is
    /// no wall clock: the camera's zone leaves it; the clock offset moves it.
    func testAVideoTimeInUTCTakesTheClockOffsetOnly() throws {
        let lib = try library()
        let video = CLI.repo.appendingPathComponent("Fixtures/formats/video-containers/mkv-dateutc.mkv").path
        let zone = try inspect(video, ["--track", lib.walk, "--camera-timezone", "Europe/Madrid"])
        XCTAssertEqual(zone["takenAt"] as? String, "2021-06-01T10:34:56.250Z")
        XCTAssertEqual(zone["timeSource"] as? String, "containerUTC")
        let shifted = try inspect(video, ["--track", lib.walk, "--camera-timezone", "Europe/Madrid", "--camera-clock-offset", "-65"])
        XCTAssertEqual(shifted["takenAt"] as? String, "2021-06-01T10:33:51.250Z")
    }

    /// The import stores and reports the instant the track was looked up at: the dry run's JSON,
    /// the stored pin (`pins list`), the same date.
    func testTheImportStoresAndReportsTheInstantTheTrackUsed() throws {
        let lib = try library()
        try FileManager.default.removeItem(atPath: lib.ownOffset)
        let db = lib.dir.appendingPathComponent("pins.db").path
        let args = ["--db", db, "--track", lib.walk, "--camera-timezone", "Europe/Madrid", "--camera-clock-offset", "-65"]
        let dry = try CLI.run(["import", lib.photos, "--dry-run", "--json"] + args, environment: ["TZ": "UTC"])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        let pins = try XCTUnwrap((CLI.json(dry.stdout) as? [String: Any])?["pins"] as? [[String: Any]])
        XCTAssertEqual(pins.first?["takenAt"] as? String, "2024-04-21T11:08:55.030+02:00")
        XCTAssertEqual(pins.first?["secondsToTrackFix"] as? Double ?? -1, 129.97, accuracy: 1e-6)
        let real = try CLI.run(["import", lib.photos, "--quiet"] + args, environment: ["TZ": "UTC"])
        XCTAssertEqual(real.status, 0, real.stderr)
        let list = try XCTUnwrap(CLI.json(CLI.run(["list", "--json", "--db", db], environment: ["TZ": "UTC"]).stdout) as? [[String: Any]])
        XCTAssertEqual(list.first?["date"] as? String, "2024-04-21T11:08:55.030+02:00")
        XCTAssertEqual(list.first?["place"] as? String, "Granada")
    }

    /// Issue 36 item 5: on a machine in UTC, a Madrid camera without offsets misses the walk by
    /// 2 h; the import says so once, naming the zone of the walk's position and the clock
    /// offset. Given the zone, it says nothing and places them; photos with their own offset
    /// (not a zone question) never make it speak.
    func testACameraZoneOffByWholeHoursIsNamedOnce() throws {
        let lib = try library()
        try FileManager.default.removeItem(atPath: lib.camera)
        for (i, minute) in ["02", "04", "06"].enumerated() {
            let path = lib.photos + "/cam\(i).jpg"
            try FileManager.default.copyItem(atPath: lib.ownOffset, toPath: path)
            try CLI.exiftool(["-OffsetTimeOriginal=", "-DateTimeOriginal=2024:04:21 11:\(minute):00", path])
        }
        try FileManager.default.removeItem(atPath: lib.ownOffset)
        // 08:55Z to 09:15Z: the photos' real instants (09:02Z-09:06Z) fall between the fixes.
        try Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="OneInstantTests" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="37.1700" lon="-3.6000"><time>2024-04-21T08:55:00Z</time></trkpt>
            <trkpt lat="37.1761" lon="-3.5881"><time>2024-04-21T09:15:00Z</time></trkpt>
            </trkseg></trk></gpx>
            """.utf8).write(to: URL(fileURLWithPath: lib.walk))
        let db = lib.dir.appendingPathComponent("none.db").path
        let utc = try CLI.run(["import", lib.photos, "--dry-run", "--db", db, "--track", lib.walk], environment: ["TZ": "UTC"])
        XCTAssertEqual(utc.status, 0, utc.stderr)
        let hint = "pins import: 3 of the 3 photos without a time zone of their own are too far from every track fix, "
            + "and 3 of them fall on the track 2 h earlier: the camera's clock was likely set to another zone than the one "
            + "they were read in. Try --camera-timezone Europe/Madrid, or --camera-clock-offset -2:00:00"
        XCTAssertTrue(utc.stderr.contains(hint), utc.stderr)
        XCTAssertEqual(utc.stderr.components(separatedBy: "photos without a time zone").count, 2, "said once")
        XCTAssertTrue(utc.stdout.contains("  tracks     0 photos placed"), utc.stdout)
        let madrid = try CLI.run(["import", lib.photos, "--dry-run", "--db", db, "--track", lib.walk, "--camera-timezone", "Europe/Madrid"],
                                 environment: ["TZ": "UTC"])
        XCTAssertFalse(madrid.stderr.contains("without a time zone"), madrid.stderr)
        XCTAssertTrue(madrid.stdout.contains("  tracks     3 photos placed"), madrid.stdout)
        // The same clocks with an offset of their own (+00:00, wrong): no zone to guess.
        for i in 0..<3 { try CLI.exiftool(["-OffsetTimeOriginal=+00:00", lib.photos + "/cam\(i).jpg"]) }
        let own = try CLI.run(["import", lib.photos, "--dry-run", "--db", db, "--track", lib.walk], environment: ["TZ": "UTC"])
        XCTAssertFalse(own.stderr.contains("without a time zone"), own.stderr)
    }

    /// The hint followed after a real import: the camera photos, recorded as skipped for no
    /// location, and the walk are unchanged; the zone named reads them at 09:02Z, 09:04Z and
    /// 09:06Z, which the walk covers, so they are decided again and placed: 09:02Z is 7/20 of
    /// 08:55Z-09:15Z, 37.17 + 0.35 × 0.0061 = 37.172135, -3.6 + 0.35 × 0.0119 = -3.595835; the
    /// other two are 120 s and 240 s later (interval passed) and under 1 km away (distance).
    func testTheZoneNamedAfterARealImportDecidesTheCameraPhotosAgain() throws {
        let lib = try library()
        try FileManager.default.removeItem(atPath: lib.camera)
        try FileManager.default.removeItem(atPath: lib.ownOffset)
        for (i, minute) in ["02", "04", "06"].enumerated() {
            let path = lib.photos + "/cam\(i).jpg"
            try FileManager.default.copyItem(atPath: CLI.repo.appendingPathComponent("Fixtures/tracks/local/new-york-between-fixes.jpg").path,
                                             toPath: path)
            try CLI.exiftool(["-DateTimeOriginal=2024:04:21 11:\(minute):00", path])
        }
        try Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="OneInstantTests" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="37.1700" lon="-3.6000"><time>2024-04-21T08:55:00Z</time></trkpt>
            <trkpt lat="37.1761" lon="-3.5881"><time>2024-04-21T09:15:00Z</time></trkpt>
            </trkseg></trk></gpx>
            """.utf8).write(to: URL(fileURLWithPath: lib.walk))
        let db = lib.dir.appendingPathComponent("pins.db").path
        let utc = try CLI.run(["import", lib.photos, "--db", db, "--track", lib.walk], environment: ["TZ": "UTC"])
        XCTAssertEqual(utc.status, 0, utc.stderr)
        XCTAssertTrue(utc.stderr.contains("Try --camera-timezone Europe/Madrid, or --camera-clock-offset -2:00:00"), utc.stderr)
        XCTAssertTrue(utc.stdout.contains("  pins       0 created"), utc.stdout)
        let madrid = try CLI.run(["import", lib.photos, "--db", db, "--track", lib.walk, "--camera-timezone", "Europe/Madrid"],
                                 environment: ["TZ": "UTC"])
        XCTAssertEqual(madrid.status, 0, madrid.stderr)
        XCTAssertTrue(madrid.stdout.contains("  again      3 photos skipped earlier for no location decided again for new or changed tracks or the camera's clock given: "
                                             + "1 pin created (listed below)"), madrid.stdout)
        let list = try XCTUnwrap(CLI.json(CLI.run(["list", "--json", "--db", db], environment: ["TZ": "UTC"]).stdout) as? [[String: Any]])
        XCTAssertEqual(list.count, 1, "\(list)")
        XCTAssertEqual(list.first?["date"] as? String, "2024-04-21T11:02:00+02:00")
        XCTAssertEqual(list.first?["latitude"] as? Double ?? 0, 37.172135, accuracy: 1e-9)
        XCTAssertEqual(list.first?["longitude"] as? Double ?? 0, -3.595835, accuracy: 1e-9)
    }
}
