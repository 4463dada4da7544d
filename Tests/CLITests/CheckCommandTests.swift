import Foundation
import XCTest

final class CheckCommandTests: XCTestCase {
    func testCheckFindsTheDamageAndRepairPutsAReadableCopyInPlace() throws {
        let db = try CLI.temporaryDirectory(self).appendingPathComponent("pins.sqlite").path
        XCTAssertEqual(try CLI.run(["add", "--lat", "48.8584", "--lon", "2.2945", "--title", "Eiffel", "--db", db]).status, 0)
        let sound = try CLI.run(["check", "--db", db])
        XCTAssertEqual(sound.status, 0, sound.stderr)
        XCTAssertEqual(sound.stdout, "\(db): ok\n")
        try damageLocationsTable(db)
        let damaged = try CLI.run(["check", "--db", db])
        XCTAssertEqual(damaged.status, 1)
        XCTAssertTrue(damaged.stdout.hasPrefix("\(db): "), damaged.stdout)
        XCTAssertTrue(damaged.stdout.contains("btreeInitPage() returns error code 11"), damaged.stdout)
        XCTAssertEqual(damaged.stderr, "pins check: 'pins check --repair --db \(db)' saves what can be read into a new file and keeps this one\n")
        let repair = try CLI.run(["check", "--repair", "--db", db])
        XCTAssertEqual(repair.status, 0, repair.stderr)
        XCTAssertTrue(repair.stdout.contains("locations: 0 rows (a damaged part could not be read: rows on it are lost)"), repair.stdout)
        let kept = try FileManager.default.contentsOfDirectory(atPath: (db as NSString).deletingLastPathComponent).filter { $0.hasPrefix("pins.sqlite.damaged-") }
        XCTAssertEqual(kept.count, 1)
        XCTAssertEqual(try CLI.run(["check", "--db", db]).stdout, "\(db): ok\n")
        // The repaired file takes pins again.
        XCTAssertEqual(try CLI.run(["stats", "--db", db]).status, 0)
    }
}
