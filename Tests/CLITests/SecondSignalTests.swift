import Foundation
@testable import PinStore
import XCTest

/// Ctrl-C asks an import to stop after the batch being saved; a second Ctrl-C while it winds
/// down stops it at once (exit 130), keeping only committed transactions.
final class SecondSignalTests: XCTestCase {
    /// The run is stuck in its first write, waiting (up to SQLite's 5 s busy timeout) for a
    /// database another process holds: the first SIGINT cannot end that wait, the second ends
    /// the process at once; the database keeps what it had.
    func testASecondSIGINTStopsAnImportAtOnce() throws {
        let dir = try CLI.temporaryDirectory(self)
        let root = dir.appendingPathComponent("photos").path
        let db = dir.appendingPathComponent("pins.sqlite").path
        try CLI.generateLibrary(at: root, files: 40)
        XCTAssertEqual(try CLI.run(["import", root, "--quiet", "--timezone", "UTC", "--db", db]).status, 0)

        let holder = try holdDatabase(db, seconds: 20)
        defer { holder.terminate(); holder.waitUntilExit() }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = ["import", root, "--timezone", "UTC", "--db", db]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        let started = Date()
        try process.run()
        Thread.sleep(forTimeInterval: 1.5)
        process.interrupt()
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertTrue(process.isRunning, "the first SIGINT only asks (the run still waits for the database)")
        let second = Date()
        process.interrupt()
        process.waitUntilExit()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertLessThan(Date().timeIntervalSince(second), 2, "at once, not at the end of the 5 s busy wait")
        XCTAssertLessThan(Date().timeIntervalSince(started), 4.5)
        XCTAssertEqual(process.terminationStatus, 130, stderr)
        XCTAssertTrue(stderr.contains("pins import: stopped at once by a second SIGINT: only whole batches were saved"), stderr)

        holder.terminate()
        holder.waitUntilExit()
        let check = try PinDatabase(readOnlyPath: db)
        XCTAssertEqual(try check.connection.query("PRAGMA integrity_check") { $0.string(0) }, ["ok"])
        XCTAssertEqual(try check.countMismatches(), [])
        let runs = try XCTUnwrap(CLI.json(CLI.run(["runs", "--json", "--db", db]).stdout) as? [[String: Any]])
        XCTAssertEqual(runs.count, 1, "the stopped run wrote nothing: \(runs)")
    }
}
