import Foundation
import XCTest

/// `pins add --date` / `pins edit --date` without an offset: the wall clock at the pin's
/// position (its time zone on that date), whatever the machine's zone. Instants worked by hand
/// (seconds since 1970 of the UTC time), zones from the tz database: Asia/Tokyo +09:00 (no
/// summer time), America/New_York -04:00 in July, Europe/Paris +01:00 in January, +02:00 after
/// the 2024-03-31 change at 02:00 (02:30 does not exist that night: shifted forward by the gap).
final class AddDateZoneTests: XCTestCase {
    func pin(_ arguments: [String], machineZone: String, db: String) throws -> [String: Any] {
        let run = try CLI.run(arguments + ["--json", "--db", db], environment: ["TZ": machineZone])
        XCTAssertEqual(run.status, 0, run.stderr)
        return try XCTUnwrap(CLI.json(run.stdout) as? [String: Any], run.stdout)
    }

    func instant(_ pin: [String: Any]) -> Double? {
        (pin["date"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) }?.timeIntervalSince1970
    }

    func testADateWithoutOffsetIsTheLocalTimeAtThePinsPosition() throws {
        let db = try CLI.temporaryDirectory(self).appendingPathComponent("pins.sqlite").path
        // Tokyo Tower, added from a machine in UTC: noon in Tokyo is 03:00 UTC.
        let tokyo = try pin(["add", "--lat", "35.6586", "--lon", "139.7454", "--date", "2024-05-01T12:00"], machineZone: "UTC", db: db)
        XCTAssertEqual(tokyo["date"] as? String, "2024-05-01T12:00:00+09:00")
        XCTAssertNil(tokyo["utcOffset"], "the date says +09:00: not written twice")
        XCTAssertEqual(instant(tokyo), 1_714_532_400)
        // The Statue of Liberty in July: summer time, -04:00; noon is 16:00 UTC.
        let liberty = try pin(["add", "--lat", "40.6892", "--lon", "-74.0445", "--date", "2024-07-01T12:00"], machineZone: "UTC", db: db)
        XCTAssertEqual(liberty["date"] as? String, "2024-07-01T12:00:00-04:00")
        XCTAssertEqual(instant(liberty), 1_719_849_600)
        // A date alone, in Paris, from a machine in Tokyo: midnight in Paris (+01:00 in January).
        let paris = try pin(["add", "--lat", "48.8584", "--lon", "2.2945", "--date", "2024-01-15"], machineZone: "Asia/Tokyo", db: db)
        XCTAssertEqual(paris["date"] as? String, "2024-01-15T00:00:00+01:00")
        XCTAssertEqual(instant(paris), 1_705_273_200)
        // An offset written is kept as it is.
        let written = try pin(["add", "--lat", "35.6586", "--lon", "139.7454", "--date", "2024-05-01T12:00:00+02:00"],
                              machineZone: "UTC", db: db)
        XCTAssertEqual(written["date"] as? String, "2024-05-01T12:00:00+02:00")

        // edit: the wall clock where the pin is; 02:30 on 2024-03-31 does not exist in Paris
        // (02:00 became 03:00), so it is 03:30+02:00, 01:30 UTC.
        let id = try XCTUnwrap(paris["id"] as? String)
        let edited = try pin(["edit", id, "--date", "2024-03-31T02:30"], machineZone: "UTC", db: db)
        XCTAssertEqual(edited["date"] as? String, "2024-03-31T03:30:00+02:00")
        XCTAssertEqual(instant(edited), 1_711_848_600)
        // ...or where it goes, when it moves too.
        let moved = try pin(["edit", id, "--lat", "35.6586", "--lon", "139.7454", "--date", "2024-05-01T12:00"], machineZone: "UTC", db: db)
        XCTAssertEqual(moved["date"] as? String, "2024-05-01T12:00:00+09:00")
        XCTAssertEqual(instant(moved), 1_714_532_400)
    }

    func testTheHelpSaysWhichZoneADateWithoutOffsetIsIn() throws {
        let help = try CLI.run(["add", "--help"]).stdout
        XCTAssertTrue(help.contains("2024-05-01T10:00 (local time there)"), help)
        XCTAssertTrue(help.contains("--date 2024-05-01T12:00 is 2024-05-01T12:00:00+09:00 (03:00 UTC)"), help)
    }
}
