import Foundation
import TestSupport
import XCTest

final class DatabaseFileTests: XCTestCase {
    func testAZeroByteDatabaseIsEmptyForReadsAndInitialisedByAWrite() throws {
        let db = try CLI.temporaryDirectory(self).appendingPathComponent("pins.sqlite").path
        XCTAssertTrue(FileManager.default.createFile(atPath: db, contents: Data()))
        let list = try CLI.run(["list", "--db", db])
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertEqual(list.stdout, "No pins.\n")
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: db)[.size] as? Int, 0, "a read writes nothing")
        let add = try CLI.run(["add", "--lat", "48.8584", "--lon", "2.2945", "--title", "Eiffel", "--db", db])
        XCTAssertEqual(add.status, 0, add.stderr)
        XCTAssertEqual(try CLI.run(["list", "--db", db]).stdout.split(separator: "\n").last, "1 pin")
    }

    func testADamagedDatabaseIsNotWrittenToAndTheMessageSaysWhatToDo() throws {
        let db = try CLI.temporaryDirectory(self).appendingPathComponent("pins.sqlite").path
        XCTAssertEqual(try CLI.run(["add", "--lat", "48.8584", "--lon", "2.2945", "--title", "Eiffel", "--db", db]).status, 0)
        try DatabaseDamage.damageRootPage(of: "locations", in: db)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let add = try CLI.run(["add", "--lat", "35.6586", "--lon", "139.7454", "--title", "Tokyo Tower", "--db", db])
        XCTAssertEqual(add.status, 1)
        XCTAssertTrue(add.stderr.hasPrefix("pins add: cannot open \(db): the file is damaged ("), add.stderr)
        XCTAssertTrue(add.stderr.hasSuffix("; 'pins check --repair --db \(db)' saves what can be read into a new file and keeps this one\n"), add.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)), before, "nothing written into the damaged file")
        let list = try CLI.run(["list", "--db", db])
        XCTAssertEqual(list.status, 1)
        XCTAssertTrue(list.stderr.contains("the file is damaged"), list.stderr)
    }

    func testAnotherProgramsDatabaseIsRefused() throws {
        let db = try CLI.temporaryDirectory(self).appendingPathComponent("other.sqlite").path
        let make = try CLI.run(["-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('CREATE TABLE notes (x)'); c.commit()", db],
                               executable: "/usr/bin/python3")
        XCTAssertEqual(make.status, 0, make.stderr)
        let add = try CLI.run(["add", "--lat", "1", "--lon", "2", "--db", db])
        XCTAssertEqual(add.status, 1)
        XCTAssertEqual(add.stderr, "pins add: cannot open \(db): the file is another program's SQLite database, not a pins database; give pins a file of its own\n")
    }

    func testCoordinatesAreDecimalDegreesOnly() throws {
        let db = try CLI.temporaryDirectory(self).appendingPathComponent("pins.sqlite").path
        for value in ["0x10", "1e1", "inf", "nan", "1..2", "-"] {
            let add = try CLI.run(["add", "--lat", "1", "--lon", value, "--db", db])
            XCTAssertEqual(add.status, 64, value)
            XCTAssertTrue(add.stderr.hasPrefix("pins add: --lon expects a decimal number such as 48.8584, got '\(value)'\n"), add.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: db))
        // Each add loads the country outlines (seconds in a debug build): one plain decimal is enough.
        XCTAssertEqual(try CLI.run(["add", "--lat", "1", "--lon", "+.5", "--db", db]).status, 0)
        XCTAssertTrue(try CLI.run(["list", "--db", db]).stdout.contains("1.000000  0.500000"))
    }
}
