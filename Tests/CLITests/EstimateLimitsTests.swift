import Foundation
import XCTest

/// Issue 36 item 4: the estimates' limits are "named, documented with why, and changeable":
/// --estimate-max-gap, --estimate-max-speed, --estimate-max-nearest, each also a setting
/// (environment, else pins.conf), checked. Positions and words worked by hand: Paris
/// (48.8566, 2.3522) to Barcelona (41.3874, 2.1686) is 830.7 km (haversine, R = 6371 km),
/// 415 km/h in 2 h; (48.1, 2.0) to Paris is 88.0 km, 106 km/h in 50 min.
final class EstimateLimitsTests: XCTestCase {
    /// phone-2 10:10Z at 48.1,2.0; cam-after 10:18Z; phone-3 11:00Z in Paris; cam-flight 12:00Z;
    /// phone-4 13:00Z in Barcelona.
    private func trip() throws -> URL {
        let dir = try CLI.temporaryDirectory(self).appendingPathComponent("trip")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try CLI.datedPhoto(dir, "phone-2.jpg", "2024:05:01 10:10:00", (48.1, 2.0))
        try CLI.datedPhoto(dir, "cam-after.jpg", "2024:05:01 10:18:00")
        try CLI.datedPhoto(dir, "phone-3.jpg", "2024:05:01 11:00:00", (48.8566, 2.3522))
        try CLI.datedPhoto(dir, "cam-flight.jpg", "2024:05:01 12:00:00")
        try CLI.datedPhoto(dir, "phone-4.jpg", "2024:05:01 13:00:00", (41.3874, 2.1686))
        return dir
    }

    /// `pins inspect DIR --estimate-positions` with `extra`, each camera photo's line by name.
    private func inspect(_ dir: URL, _ extra: [String], environment: [String: String] = [:]) throws -> [String: [String: Any]] {
        let r = try CLI.run(["inspect", dir.path, "--estimate-positions"] + extra, environment: ["TZ": "UTC", "PINS_CONFIG": ""].merging(environment) { $1 })
        XCTAssertEqual(r.status, 0, r.stderr)
        var lines: [String: [String: Any]] = [:]
        for line in r.stdout.split(separator: "\n") {
            let o = try XCTUnwrap(CLI.json(String(line)) as? [String: Any])
            lines[URL(fileURLWithPath: o["path"] as! String).lastPathComponent] = o
        }
        return lines
    }

    func testTheLimitsAreChangedByOptionsAndSettingsTheOptionWinning() throws {
        let dir = try trip()
        // The defaults: 30 min, 250 km/h, 10 min.
        var lines = try inspect(dir, [])
        XCTAssertEqual(lines["cam-after.jpg"]?["estimate"] as? String, "from phone-2.jpg (8 min before)")
        XCTAssertEqual(lines["cam-flight.jpg"]?["estimateIssue"] as? String,
                       "the photos around it are 2 h apart (more than 30 min); nearest photo with a position 1 h away")
        // The nearest at most 5 min: none for cam-after.
        lines = try inspect(dir, ["--estimate-max-nearest", "5"])
        XCTAssertEqual(lines["cam-after.jpg"]?["estimateIssue"] as? String,
                       "the photos around it are 50 min apart (more than 30 min); nearest photo with a position 8 min away")
        // 3 h apart allowed, not the speed: the flight is still refused, by its speed now.
        lines = try inspect(dir, ["--estimate-max-gap", "180"])
        XCTAssertEqual(lines["cam-flight.jpg"]?["estimateIssue"] as? String,
                       "the photos around it are 830.7 km apart in 2 h, faster than 250 km/h; nearest photo with a position 1 h away")
        // Both: half way between Paris and Barcelona; cam-after between phone-2 and Paris, 8/50 of the way.
        lines = try inspect(dir, ["--estimate-max-gap", "180", "--estimate-max-speed", "1000"])
        let flight = try XCTUnwrap(lines["cam-flight.jpg"])
        XCTAssertEqual(flight["latitude"] as? Double ?? 0, 45.122, accuracy: 1e-9)
        XCTAssertEqual(flight["longitude"] as? Double ?? 0, 2.2604, accuracy: 1e-9)
        XCTAssertEqual(flight["estimate"] as? String, "from phone-3.jpg (1 h before) and phone-4.jpg (1 h after), 830.7 km apart")
        XCTAssertEqual(lines["cam-after.jpg"]?["latitude"] as? Double ?? 0, 48.1 + 0.7566 * 8 / 50, accuracy: 1e-9)

        // The same from pins.conf; the environment's value wins over the file's, the option over both.
        let conf = dir.deletingLastPathComponent().appendingPathComponent("pins.conf")
        try "PINS_ESTIMATE_MAX_GAP=180\nPINS_ESTIMATE_MAX_SPEED=1000\n".write(to: conf, atomically: true, encoding: .utf8)
        lines = try inspect(dir, [], environment: ["PINS_CONFIG": conf.path])
        XCTAssertEqual(lines["cam-flight.jpg"]?["positionSource"] as? String, "estimate")
        lines = try inspect(dir, [], environment: ["PINS_CONFIG": conf.path, "PINS_ESTIMATE_MAX_SPEED": "400"])
        XCTAssertEqual(lines["cam-flight.jpg"]?["estimateIssue"] as? String,
                       "the photos around it are 830.7 km apart in 2 h, faster than 400 km/h; nearest photo with a position 1 h away")
        lines = try inspect(dir, ["--estimate-max-speed", "420"], environment: ["PINS_CONFIG": conf.path, "PINS_ESTIMATE_MAX_SPEED": "400"])
        XCTAssertEqual(lines["cam-flight.jpg"]?["positionSource"] as? String, "estimate")

        // An import counts and places with them too: the dry run's one line without the option.
        func possible(_ extra: [String]) throws -> Int? {
            let r = try CLI.run(["import", dir.path, "--dry-run", "--json"] + extra, environment: ["TZ": "UTC", "PINS_CONFIG": ""])
            XCTAssertEqual(r.status, 0, r.stderr)
            return ((try CLI.json(r.stdout) as? [String: Any])?["counts"] as? [String: Any])?["estimatesPossible"] as? Int
        }
        XCTAssertEqual(try possible([]), 1, "cam-after, from phone-2 8 min before")
        XCTAssertEqual(try possible(["--estimate-max-nearest", "5"]), 0)
        XCTAssertEqual(try possible(["--estimate-max-gap", "180", "--estimate-max-speed", "1000"]), 2)
    }

    func testAValueOutOfRangeIsNamedWhereverItComesFrom() throws {
        let dir = try trip()
        let option = try CLI.run(["inspect", dir.path, "--estimate-positions", "--estimate-max-gap", "2000"], environment: ["PINS_CONFIG": ""])
        XCTAssertEqual(option.status, 64)
        XCTAssertTrue(option.stderr.contains("--estimate-max-gap must be between 1.0 and 1440.0, got 2000"), option.stderr)
        let env = try CLI.run(["import", dir.path, "--dry-run"], environment: ["PINS_CONFIG": "", "PINS_ESTIMATE_MAX_SPEED": "fast"])
        XCTAssertEqual(env.status, 64)
        XCTAssertTrue(env.stderr.contains("PINS_ESTIMATE_MAX_SPEED is a speed in km/h from 1 to 1000, got 'fast'"), env.stderr)
        let conf = dir.deletingLastPathComponent().appendingPathComponent("pins.conf")
        try "# limits\nPINS_ESTIMATE_MAX_NEAREST=-1\n".write(to: conf, atomically: true, encoding: .utf8)
        let file = try CLI.run(["import", dir.path, "--dry-run"], environment: ["PINS_CONFIG": conf.path])
        XCTAssertEqual(file.status, 1)
        XCTAssertTrue(file.stderr.contains("\(conf.path), line 2: PINS_ESTIMATE_MAX_NEAREST is a number of minutes from 0 to 1440, got '-1'"), file.stderr)
    }
}
