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
        // Said once: the run's end cannot be recorded in a deleted file either, and saying so
        // again (with "its pins are saved", which is false here) only repeats it.
        XCTAssertEqual(stderr.components(separatedBy: "the file was deleted or replaced").count - 1, 1, stderr)
        XCTAssertFalse(stderr.contains("could not record"), stderr)
        // No -wal/-shm of the deleted file left behind to be replayed into the next one.
        XCTAssertFalse(FileManager.default.fileExists(atPath: db + "-wal"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: db + "-shm"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: db))
    }
}
