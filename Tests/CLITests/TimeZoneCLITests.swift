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
        for name in ["Countries.geojson", "Countries.json"] {
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
