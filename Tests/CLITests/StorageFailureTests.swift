import Foundation
import XCTest

/// Faults in the database file itself, as a user's machine has them.
final class StorageFailureTests: XCTestCase {
    /// The database deleted while an import runs: every later write would go to the unlinked
    /// file. The run must stop with an error, not print its summary and exit 0.
    func testADatabaseDeletedDuringAnImportStopsTheRun() throws {
        let dir = try CLI.temporaryDirectory(self)
        let library = dir.appendingPathComponent("photos").path
        // About a second of reading on this machine: long enough to delete the file mid-run.
        try CLI.generateLibrary(at: library, files: 1000)
        let db = dir.appendingPathComponent("pins.sqlite").path

        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = ["import", library, "--db", db, "--timezone", "UTC"]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Delete it as soon as pins has made it (the walk and the reads come before any pin).
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: db + "-wal") && Date() < deadline { usleep(2_000) }
        XCTAssertEqual(unlink(db), 0, "pins never made the database")
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()

        XCTAssertEqual(process.terminationStatus, 1, stderr)
        // Deleted while the schema is set up or while pins are saved, the message is the same.
        XCTAssertTrue(stderr.contains("cannot write to \(db): the file was deleted or replaced while pins was using it; what this run wrote is lost with it"), stderr)
        XCTAssertFalse(stdout.contains("created"), stdout)
        // No -wal/-shm of the deleted file left behind to be replayed into the next one.
        XCTAssertFalse(FileManager.default.fileExists(atPath: db + "-wal"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: db + "-shm"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: db))
    }
}

/// Damages the table b-tree page of `locations` (its type byte becomes 0xFF) in place.
func damageLocationsTable(_ path: String) throws {
    let probe = Process()
    probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    probe.arguments = ["python3", "-c", """
        import sqlite3, sys
        c = sqlite3.connect(sys.argv[1])
        page = c.execute("SELECT rootpage FROM sqlite_master WHERE name = 'locations'").fetchone()[0]
        size = c.execute("PRAGMA page_size").fetchone()[0]
        c.close()
        with open(sys.argv[1], 'r+b') as f:
            f.seek((page - 1) * size)
            f.write(b'\\xff')
        """, path]
    try probe.run()
    probe.waitUntilExit()
    XCTAssertEqual(probe.terminationStatus, 0)
}

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
        try damageLocationsTable(db)
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
