import Foundation
import XCTest

/// Issue 36 item 5 with the photos around (`--estimate-positions`): a camera without offsets,
/// its clock in Madrid summer time (CEST, +02:00), beside a phone whose photos carry GPS and
/// OffsetTimeOriginal, on a machine in UTC. Photos made here by exiftool over a fixture JPEG
/// (Fixtures/tracks, ImageMagick's pixels; it has no position, offset or GPS time of its own).
/// Every instant and position below is worked by hand:
///
/// - phone-1 11:00:00+02:00 = 09:00Z at 37.17, -3.60; phone-2 09:10Z at 37.18; phone-3 09:20Z
///   at 37.19 (0.01° of latitude, 1.1 km, in 10 min: 6.7 km/h);
/// - cam-1, cam-2, cam-3: DateTimeOriginal 11:04:00, 11:12:00, 11:15:00, no offset. Read as
///   UTC they are 11:04Z-11:15Z, 1 h 44 min and more after phone-3: none within the 10 min of
///   the nearest, none between two. Moved 2 h earlier (09:04Z, 09:12Z, 09:15Z) all three fall
///   between two phone photos; 1 h 30 min earlier (09:34Z) cam-1 is 14 min after phone-3 and
///   2 h 30 min earlier (08:45Z at the latest) cam-3 is 15 min before phone-1: only -2 h places
///   them. Madrid (Granada's zone) is +02:00 on 2024-04-21, so the hint names it, and the clock
///   offset -2:00:00.
/// - With `--camera-timezone Europe/Madrid` they are 09:04Z (4/10 of phone-1 to phone-2:
///   37.174), 09:12Z (2/10 of phone-2 to phone-3: 37.182) and 09:15Z (37.185), stored as
///   11:04:00+02:00, 11:12:00+02:00 and 11:15:00+02:00.
final class CameraZoneEstimateTests: XCTestCase {
    static let hint = "pins import: 3 of the 3 photos without a time zone of their own are too far from every neighbouring photo "
        + "with a position, and 3 of them fall among the neighbouring photos 2 h earlier: the camera's clock was likely set to "
        + "another zone than the one they were read in. Try --camera-timezone Europe/Madrid, or --camera-clock-offset -2:00:00"

    /// The photos folder in a fresh directory, and a database path there (not made yet).
    private func trip() throws -> (photos: String, db: String) {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/exiftool") else {
            XCTFail("exiftool is missing: scripts/setup installs libimage-exiftool-perl")
            throw SetupFailed()
        }
        let dir = try CLI.temporaryDirectory(self)
        let photos = dir.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        let base = CLI.repo.appendingPathComponent("Fixtures/tracks/local/new-york-between-fixes.jpg").path
        func photo(_ name: String, _ tags: [String]) throws {
            let path = photos.appendingPathComponent(name).path
            try FileManager.default.copyItem(atPath: base, toPath: path)
            try CLI.exiftool(tags + [path])
        }
        for (i, (minute, latitude)) in [("00", "37.17"), ("10", "37.18"), ("20", "37.19")].enumerated() {
            try photo("phone-\(i + 1).jpg", ["-DateTimeOriginal=2024:04:21 11:\(minute):00", "-OffsetTimeOriginal=+02:00",
                                             "-GPSLatitude=\(latitude)", "-GPSLatitudeRef=N", "-GPSLongitude=3.6", "-GPSLongitudeRef=W"])
        }
        for (i, minute) in ["04", "12", "15"].enumerated() {
            try photo("cam-\(i + 1).jpg", ["-DateTimeOriginal=2024:04:21 11:\(minute):00"])
        }
        return (photos.path, dir.appendingPathComponent("pins.db").path)
    }

    struct SetupFailed: Error {}

    /// Every photo a pin of its own: the rules' interval and distance do not hide one.
    private let everyPhoto = ["--min-interval", "0", "--min-distance-km", "0.001"]

    func testACameraInMadridBesideAPhoneIsNamedOnceThenPlacedWithTheZoneItNames() throws {
        let trip = try trip()
        let utc = try CLI.run(["import", trip.photos, "--dry-run", "--db", trip.db, "--estimate-positions"] + everyPhoto,
                              environment: ["TZ": "UTC"])
        XCTAssertEqual(utc.status, 0, utc.stderr)
        XCTAssertTrue(utc.stderr.contains(Self.hint + "\n"), utc.stderr)
        XCTAssertEqual(utc.stderr.components(separatedBy: "photos without a time zone").count, 2, "said once: \(utc.stderr)")
        XCTAssertFalse(utc.stderr.contains("track fix"), utc.stderr)
        XCTAssertTrue(utc.stdout.contains("  pins       3 would be created"), utc.stdout)

        // The zone it names: the camera photos are placed, and stored at the instant they were
        // placed at, with Madrid's offset.
        let madrid = try CLI.run(["import", trip.photos, "--quiet", "--db", trip.db, "--estimate-positions",
                                  "--camera-timezone", "Europe/Madrid"] + everyPhoto, environment: ["TZ": "UTC"])
        XCTAssertEqual(madrid.status, 0, madrid.stderr)
        XCTAssertFalse(madrid.stderr.contains("without a time zone"), madrid.stderr)
        let list = try XCTUnwrap(CLI.json(CLI.run(["list", "--json", "--db", trip.db], environment: ["TZ": "UTC"]).stdout) as? [[String: Any]])
        XCTAssertEqual(list.count, 6, "\(list)")
        let byDate = Dictionary(list.map { ($0["date"] as? String ?? "?", $0) }, uniquingKeysWith: { a, _ in a })
        for (date, latitude) in [("2024-04-21T11:04:00+02:00", 37.174), ("2024-04-21T11:12:00+02:00", 37.182),
                                 ("2024-04-21T11:15:00+02:00", 37.185)] {
            let pin = try XCTUnwrap(byDate[date], "no pin dated \(date): \(byDate.keys.sorted())")
            XCTAssertEqual(pin["latitude"] as? Double ?? 0, latitude, accuracy: 1e-9, date)
            XCTAssertEqual(pin["longitude"] as? Double ?? 0, -3.6, accuracy: 1e-9, date)
        }
        // The phone's photos keep their own offset and instant.
        XCTAssertEqual(byDate["2024-04-21T11:00:00+02:00"]?["latitude"] as? Double, 37.17)
        XCTAssertEqual(byDate["2024-04-21T11:20:00+02:00"]?["latitude"] as? Double, 37.19)
        // The stored photo says where its position came from.
        let cam = try XCTUnwrap(byDate["2024-04-21T11:04:00+02:00"]?["id"] as? String)
        let show = try XCTUnwrap(CLI.json(CLI.run(["show", cam, "--json", "--db", trip.db], environment: ["TZ": "UTC"]).stdout) as? [String: Any])
        let photo = try XCTUnwrap((show["photos"] as? [[String: Any]])?.first, "\(show)")
        XCTAssertEqual(photo["takenAt"] as? String, "2024-04-21T11:04:00+02:00")
        XCTAssertEqual(photo["detail"] as? String,
                       "position from the photos around it: from phone-1.jpg (4 min before) and phone-2.jpg (6 min after), 1.1 km apart")
    }

    /// After a real import the camera photos are recorded as skipped for no location, their
    /// files unchanged, the phone's recorded with their positions: the run that follows the hint
    /// decides them again (nothing else would read them), and places them. A zone that reads
    /// them as recorded (UTC) decides nothing again.
    func testAfterARealImportTheRunThatFollowsTheHintDecidesTheCameraPhotosAgain() throws {
        let trip = try trip()
        let first = try CLI.run(["import", trip.photos, "--db", trip.db, "--estimate-positions"] + everyPhoto, environment: ["TZ": "UTC"])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(first.stderr.contains(Self.hint + "\n"), first.stderr)
        XCTAssertTrue(first.stdout.contains("  pins       3 created"), first.stdout)
        let same = try CLI.run(["import", trip.photos, "--db", trip.db, "--estimate-positions", "--camera-timezone", "UTC"] + everyPhoto,
                               environment: ["TZ": "UTC"])
        XCTAssertEqual(same.status, 0, same.stderr)
        XCTAssertFalse(same.stdout.contains("decided again"), same.stdout)
        XCTAssertFalse(same.stderr.contains("without a time zone"), same.stderr)
        let madrid = try CLI.run(["import", trip.photos, "--db", trip.db, "--estimate-positions", "--camera-timezone", "Europe/Madrid"] + everyPhoto,
                                 environment: ["TZ": "UTC"])
        XCTAssertEqual(madrid.status, 0, madrid.stderr)
        XCTAssertTrue(madrid.stdout.contains("  again      3 photos skipped earlier for no location decided again for the photos with "
                                             + "a position around them: 3 pins created (listed below)"), madrid.stdout)
        XCTAssertFalse(madrid.stderr.contains("without a time zone"), madrid.stderr)
        let list = try XCTUnwrap(CLI.json(CLI.run(["list", "--json", "--db", trip.db], environment: ["TZ": "UTC"]).stdout) as? [[String: Any]])
        XCTAssertEqual(Set(list.compactMap { $0["date"] as? String }),
                       ["2024-04-21T11:00:00+02:00", "2024-04-21T11:04:00+02:00", "2024-04-21T11:10:00+02:00",
                        "2024-04-21T11:12:00+02:00", "2024-04-21T11:15:00+02:00", "2024-04-21T11:20:00+02:00"])
    }

    /// The phone's photos imported first from their own folder (recorded), the camera's later:
    /// the hint is said from the recorded photos, 2 h from the camera's, and followed.
    func testTheHintComesFromThePhonesPhotosAnEarlierRunRecorded() throws {
        let trip = try trip()
        let phone = URL(fileURLWithPath: trip.photos).deletingLastPathComponent().appendingPathComponent("phone").path
        try FileManager.default.createDirectory(atPath: phone, withIntermediateDirectories: true)
        for i in 1...3 { try FileManager.default.moveItem(atPath: trip.photos + "/phone-\(i).jpg", toPath: phone + "/phone-\(i).jpg") }
        let phoneRun = try CLI.run(["import", phone, "--quiet", "--db", trip.db] + everyPhoto, environment: ["TZ": "UTC"])
        XCTAssertEqual(phoneRun.status, 0, phoneRun.stderr)
        let utc = try CLI.run(["import", trip.photos, "--dry-run", "--db", trip.db, "--estimate-positions"] + everyPhoto,
                              environment: ["TZ": "UTC"])
        XCTAssertEqual(utc.status, 0, utc.stderr)
        XCTAssertTrue(utc.stderr.contains(Self.hint + "\n"), utc.stderr)
        XCTAssertEqual(utc.stderr.components(separatedBy: "photos without a time zone").count, 2, "said once: \(utc.stderr)")
        let madrid = try CLI.run(["import", trip.photos, "--dry-run", "--db", trip.db, "--estimate-positions",
                                  "--camera-timezone", "Europe/Madrid"] + everyPhoto, environment: ["TZ": "UTC"])
        XCTAssertEqual(madrid.status, 0, madrid.stderr)
        XCTAssertTrue(madrid.stdout.contains("  estimates  3 photos placed from the photos around them (listed below)"), madrid.stdout)
        XCTAssertFalse(madrid.stderr.contains("without a time zone"), madrid.stderr)
    }

    /// The same with the clock offset it names: the camera's zone stays the run's (UTC), its
    /// instants move 2 h back (09:04Z, ...): stored so.
    func testTheClockOffsetItNamesDecidesThemAgainToo() throws {
        try assertDecidedAgainTwoHoursBack(firstRun: [])
    }

    /// A clock offset corrected: a first run with -1:00:00 stores the photos 1 h earlier
    /// (10:04Z, 10:12Z, 10:15Z: 44 min and more after phone-3, none placed), the next run with
    /// -2:00:00 decides them again at the instants that offset gives to the camera's clock
    /// (09:04Z, 09:12Z, 09:15Z, placed between the phone's), not at the first run's instants
    /// moved again (08:04Z ... 08:15Z: 45 min and more before phone-1, none placed).
    func testACorrectedClockOffsetDecidesThemAgainAtTheInstantsItGives() throws {
        try assertDecidedAgainTwoHoursBack(firstRun: ["--camera-clock-offset", "-1:00:00"])
    }

    /// A first import with `firstRun`'s options (the camera photos placed by none), then one with
    /// `--camera-clock-offset -2:00:00`: the three decided again and stored at 09:04Z, 09:12Z
    /// and 09:15Z beside the phone's three.
    private func assertDecidedAgainTwoHoursBack(firstRun: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let trip = try trip()
        let first = try CLI.run(["import", trip.photos, "--db", trip.db, "--estimate-positions"] + firstRun + everyPhoto,
                                environment: ["TZ": "UTC"])
        XCTAssertEqual(first.status, 0, first.stderr, file: file, line: line)
        XCTAssertTrue(first.stdout.contains("  pins       3 created\n  skipped    no location 3,"), first.stdout, file: file, line: line)
        let offset = try CLI.run(["import", trip.photos, "--db", trip.db, "--estimate-positions", "--camera-clock-offset", "-2:00:00"] + everyPhoto,
                                 environment: ["TZ": "UTC"])
        XCTAssertEqual(offset.status, 0, offset.stderr, file: file, line: line)
        XCTAssertTrue(offset.stdout.contains("  again      3 photos skipped earlier for no location decided again"), offset.stdout,
                      file: file, line: line)
        let list = try XCTUnwrap(CLI.json(CLI.run(["list", "--json", "--db", trip.db], environment: ["TZ": "UTC"]).stdout) as? [[String: Any]])
        XCTAssertEqual(Set(list.compactMap { $0["date"] as? String }),
                       ["2024-04-21T11:00:00+02:00", "2024-04-21T09:04:00Z", "2024-04-21T11:10:00+02:00",
                        "2024-04-21T09:12:00Z", "2024-04-21T09:15:00Z", "2024-04-21T11:20:00+02:00"], file: file, line: line)
    }

    /// The clock offset it names does the same (the instant moves; the zone stays UTC's), and
    /// `inspect` takes both options with --estimate-positions.
    func testTheClockOffsetItNamesPlacesThemToo() throws {
        let trip = try trip()
        let dry = try CLI.run(["import", trip.photos, "--dry-run", "--json", "--db", trip.db, "--estimate-positions",
                               "--camera-clock-offset", "-2:00:00"] + everyPhoto, environment: ["TZ": "UTC"])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertFalse(dry.stderr.contains("without a time zone"), dry.stderr)
        let json = try XCTUnwrap(CLI.json(dry.stdout) as? [String: Any])
        XCTAssertEqual((json["counts"] as? [String: Any])?["placedFromEstimates"] as? Int, 3)
        let pins = try XCTUnwrap(json["pins"] as? [[String: Any]])
        let cam = try XCTUnwrap(pins.first { $0["photo"] as? String == "cam-2.jpg" }, "\(pins)")
        XCTAssertEqual(cam["takenAt"] as? String, "2024-04-21T09:12:00Z")
        XCTAssertEqual(cam["positionSource"] as? String, "estimate")
        XCTAssertEqual(cam["latitude"] as? Double ?? 0, 37.182, accuracy: 1e-9)

        let inspect = try CLI.run(["inspect", trip.photos, "--estimate-positions", "--camera-timezone", "Europe/Madrid"],
                                  environment: ["TZ": "UTC"])
        XCTAssertEqual(inspect.status, 0, inspect.stderr)
        let lines = try inspect.stdout.split(separator: "\n").map { try XCTUnwrap(CLI.json(String($0)) as? [String: Any]) }
        let cam3 = try XCTUnwrap(lines.first { ($0["path"] as? String ?? "").hasSuffix("/cam-3.jpg") }, inspect.stdout)
        XCTAssertEqual(cam3["takenAt"] as? String, "2024-04-21T11:15:00+02:00")
        XCTAssertEqual(cam3["estimate"] as? String, "from phone-2.jpg (5 min before) and phone-3.jpg (5 min after), 1.1 km apart")
    }

    /// Nothing said where nothing is wrong with the zone, or where it cannot be righted; the
    /// camera options need --track or the estimates (PINS_ESTIMATE=yes counts).
    func testNoHintWithoutTheShiftAndTheOptionsNeedTracksOrEstimates() throws {
        let trip = try trip()
        // The camera read in its own zone: placed, nothing to say.
        let right = try CLI.run(["import", trip.photos, "--dry-run", "--json", "--db", trip.db, "--estimate-positions", "--timezone", "Europe/Madrid"],
                                environment: ["TZ": "UTC"])
        XCTAssertEqual(right.status, 0, right.stderr)
        XCTAssertFalse(right.stderr.contains("without a time zone"), right.stderr)
        XCTAssertEqual(((try CLI.json(right.stdout) as? [String: Any])?["counts"] as? [String: Any])?["placedFromEstimates"] as? Int, 3)
        // Without --estimate-positions the estimates are only counted: no hint to follow.
        let plain = try CLI.run(["import", trip.photos, "--dry-run", "--db", trip.db], environment: ["TZ": "UTC"])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertFalse(plain.stderr.contains("without a time zone"), plain.stderr)
        // A camera writing an offset of its own (+00:00, wrong) is no zone question.
        for i in 1...3 { try CLI.exiftool(["-OffsetTimeOriginal=+00:00", trip.photos + "/cam-\(i).jpg"]) }
        let own = try CLI.run(["import", trip.photos, "--dry-run", "--db", trip.db, "--estimate-positions"], environment: ["TZ": "UTC"])
        XCTAssertEqual(own.status, 0, own.stderr)
        XCTAssertFalse(own.stderr.contains("without a time zone"), own.stderr)
        XCTAssertTrue(own.stdout.contains("  pins       1 would be created"), own.stdout)

        let alone = try CLI.run(["import", trip.photos, "--dry-run", "--db", trip.db, "--camera-timezone", "Europe/Madrid"])
        XCTAssertEqual(alone.status, 64)
        XCTAssertTrue(alone.stderr.contains("--camera-timezone needs --track or --estimate-positions"), alone.stderr)
        let gap = try CLI.run(["import", trip.photos, "--dry-run", "--db", trip.db, "--estimate-positions", "--track-max-gap", "60"])
        XCTAssertEqual(gap.status, 64)
        XCTAssertTrue(gap.stderr.contains("--track-max-gap needs --track"), gap.stderr)
        let setting = try CLI.run(["import", trip.photos, "--dry-run", "--db", trip.db, "--camera-clock-offset", "-2:00:00"],
                                  environment: ["TZ": "UTC", "PINS_ESTIMATE": "yes"])
        XCTAssertEqual(setting.status, 0, setting.stderr)
    }
}
