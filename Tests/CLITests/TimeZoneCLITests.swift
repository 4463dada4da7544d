import Foundation
import XCTest

/// `pins inspect` on scripts/fixtures-timezones' JPEGs (ExifTool-written DateTimeOriginal without
/// offset; GPS position without GPS time): the time is read in the zone of the position.
final class TimeZoneCLITests: XCTestCase {
    func inspect(_ names: [String], environment: [String: String] = [:]) throws -> [[String: Any]] {
        let paths = names.map { "Fixtures/timezones/\($0).jpg" }
        let run = try CLI.run(["inspect"] + paths + ["--timezone", "America/New_York"], environment: environment)
        XCTAssertEqual(run.status, 0, run.stderr)
        return try run.stdout.split(separator: "\n").map { try XCTUnwrap(CLI.json(String($0)) as? [String: Any]) }
    }

    func testInspectReadsTheTimeInTheZoneOfThePosition() throws {
        let lines = try inspect(["paris-july", "paris-january", "honolulu", "no-position"])
        XCTAssertEqual(lines.map { $0["takenAt"] as? String }, [
            "2024-07-14T12:00:00+02:00", "2024-01-15T12:00:00+01:00", "2024-07-14T12:00:00-10:00",
            "2024-07-14T12:00:00-04:00", // no position: --timezone, as before
        ])
        XCTAssertEqual(lines.map { $0["timeSource"] as? String },
                       ["localTimeZoneOfPosition", "localTimeZoneOfPosition", "localTimeZoneOfPosition", "assumedZone"])
    }

    func testWithoutTheZoneDataInspectSaysSoAndKeepsTheOldRule() throws {
        let dir = try CLI.temporaryDirectory(self)
        for name in ["Countries.bin", "Countries.json"] {
            try FileManager.default.copyItem(at: CLI.repo.appendingPathComponent("Resources/\(name)"),
                                             to: dir.appendingPathComponent(name))
        }
        let lines = try inspect(["paris-july"], environment: ["PINS_DATA_DIR": dir.path])
        XCTAssertEqual(lines.first?["takenAt"] as? String, "2024-07-14T12:00:00-04:00")
        XCTAssertEqual(lines.first?["timeSource"] as? String, "assumedZone")
        XCTAssertEqual(lines.first?["warnings"] as? [String],
                       ["no time-zone outlines: cannot read \(dir.path)/TimeZones.bin: the time is read in America/New_York"])
    }
}

/// Issue 22 item 11: a TZ that names no zone Foundation knows made every time without an offset
/// silently UTC. Now a warning, once, names the variable; a zone it knows says nothing.
final class UnknownTZTests: XCTestCase {
    func testATZThatNamesNoZoneIsWarnedOfOnceAndAKnownOneIsNot() throws {
        let photo = CLI.repo.appendingPathComponent("Fixtures/library/2023/07-paris/IMG_0001.jpg").path
        let unknown = try CLI.run(["inspect", photo], environment: ["TZ": "Mars/Olympus_Mons"])
        XCTAssertEqual(unknown.status, 0, unknown.stderr)
        XCTAssertEqual(unknown.stderr.components(separatedBy: "TZ environment variable names 'Mars/Olympus_Mons'").count, 2,
                       "one warning: \(unknown.stderr)")
        XCTAssertTrue(unknown.stderr.contains("taken as UTC"), unknown.stderr)
        for known in ["Europe/Paris", ":Asia/Tokyo", "UTC", "/usr/share/zoneinfo/America/New_York"] {
            let run = try CLI.run(["inspect", photo], environment: ["TZ": known])
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertFalse(run.stderr.contains("TZ environment variable"), "\(known): \(run.stderr)")
        }
    }
}
