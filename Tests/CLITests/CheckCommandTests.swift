import Foundation
@testable import PinStore
import TestSupport
import XCTest

final class CheckCommandTests: XCTestCase {
    func testCheckFindsTheDamageAndRepairPutsAReadableCopyInPlace() throws {
        let db = try CLI.temporaryDirectory(self).appendingPathComponent("pins.sqlite").path
        XCTAssertEqual(try CLI.run(["add", "--lat", "48.8584", "--lon", "2.2945", "--title", "Eiffel", "--db", db]).status, 0)
        let sound = try CLI.run(["check", "--db", db])
        XCTAssertEqual(sound.status, 0, sound.stderr)
        XCTAssertEqual(sound.stdout, "\(db): ok\n")
        try DatabaseDamage.damageRootPage(of: "locations", in: db)
        let damaged = try CLI.run(["check", "--db", db])
        XCTAssertEqual(damaged.status, 1)
        XCTAssertTrue(damaged.stdout.hasPrefix("\(db): "), damaged.stdout)
        XCTAssertTrue(damaged.stdout.contains("btreeInitPage() returns error code 11"), damaged.stdout)
        XCTAssertEqual(damaged.stderr, "pins check: 'pins check --repair --db \(db)' saves what can be read into a new file and keeps this one\n")
        let repair = try CLI.run(["check", "--repair", "--db", db])
        XCTAssertEqual(repair.status, 0, repair.stderr)
        XCTAssertTrue(repair.stdout.contains("locations: 0 rows kept; the table could not be read (damaged pages): its rows are lost, how many is unknown"), repair.stdout)
        let kept = try FileManager.default.contentsOfDirectory(atPath: (db as NSString).deletingLastPathComponent).filter { $0.hasPrefix("pins.sqlite.damaged-") }
        XCTAssertEqual(kept.count, 1)
        XCTAssertEqual(try CLI.run(["check", "--db", db]).stdout, "\(db): ok\n")
        // The repaired file takes pins again.
        XCTAssertEqual(try CLI.run(["stats", "--db", db]).status, 0)
    }

    /// The folder's files with their bytes and modification times: what "nothing written" means.
    private func snapshot(_ dir: String) throws -> [String: String] {
        var files: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: dir) {
            let attributes = try FileManager.default.attributesOfItem(atPath: dir + "/" + name)
            let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name))
            files[name] = "\(data.base64EncodedString()) \((attributes[.modificationDate] as! Date).timeIntervalSince1970)"
        }
        return files
    }

    /// A sound file with true counts: --repair says so and writes nothing at all (it kept a
    /// `.damaged-` copy of a sound file and swapped in a new one).
    func testRepairOfASoundFileSaysItIsSoundAndWritesNothing() throws {
        let dir = try CLI.temporaryDirectory(self).path
        let db = dir + "/pins.sqlite"
        XCTAssertEqual(try CLI.run(["add", "--lat", "48.8584", "--lon", "2.2945", "--title", "Eiffel", "--db", db]).status, 0)
        let before = try snapshot(dir)
        let repair = try CLI.run(["check", "--repair", "--db", db])
        XCTAssertEqual(repair.status, 0, repair.stderr)
        XCTAssertEqual(repair.stdout, "\(db): ok, the file is sound and its counts agree: nothing to repair, nothing written\n")
        XCTAssertEqual(try snapshot(dir), before, "no file written, added or replaced")
    }

    /// A sound file whose counts disagree: --repair recounts in place (same file, no copy kept).
    func testRepairOfASoundFileWithWrongCountsRecountsInPlace() throws {
        let dir = try CLI.temporaryDirectory(self).path
        let db = dir + "/pins.sqlite"
        XCTAssertEqual(try CLI.run(["add", "--lat", "48.8584", "--lon", "2.2945", "--title", "Eiffel", "--db", db]).status, 0)
        do { try Connection(path: db, create: false).run("UPDATE countries SET pin_count = 5 WHERE id = 'FR'") }
        let check = try CLI.run(["check", "--db", db])
        XCTAssertEqual(check.status, 1)
        XCTAssertEqual(check.stdout, "\(db): 1 problem\n  country FR: pin_count 5, locations 1\n")
        XCTAssertEqual(check.stderr, "pins check: 'pins check --repair --db \(db)' makes the counts true again (the file itself is sound)\n")
        let inode = try FileManager.default.attributesOfItem(atPath: db)[.systemFileNumber] as! Int
        let repair = try CLI.run(["check", "--repair", "--db", db])
        XCTAssertEqual(repair.status, 0, repair.stderr)
        XCTAssertEqual(repair.stdout, "Recounted \(db) in place (the file is sound: no copy kept)\n  recounted: country FR: pin_count 5, locations 1\n")
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: db)[.systemFileNumber] as! Int, inode, "the same file, not a copy")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.contains(".damaged-") }, [])
        XCTAssertEqual(try CLI.run(["check", "--db", db]).stdout, "\(db): ok\n")
        let stats = try XCTUnwrap(CLI.json(try CLI.run(["stats", "--json", "--db", db]).stdout) as? [String: Any])
        XCTAssertEqual((stats["countries"] as? [[String: Any]])?.map { "\($0["id"]!):\($0["pinCount"]!)" }, ["FR:1"])
    }
}
