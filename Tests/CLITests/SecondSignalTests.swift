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

    /// Issue 40, item 8: the first SIGTERM always ends the run. The run is stuck in its first
    /// write, waiting for a database another process holds (the nearest thing to a read that
    /// does not return): one SIGTERM, and the process ends by itself after the grace
    /// (PINS_STOP_GRACE=1 here, 10 s by default), with 143, before SQLite's 5 s busy wait
    /// would have ended the run; the database keeps what it had.
    func testAFirstSIGTERMEndsARunStuckPastItsGrace() throws {
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
        var env = ProcessInfo.processInfo.environment
        env["PINS_STOP_GRACE"] = "1"
        process.environment = env
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        Thread.sleep(forTimeInterval: 1.5)
        let sent = Date()
        process.terminate()
        process.waitUntilExit()
        let waited = Date().timeIntervalSince(sent)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(process.terminationStatus, 143, stderr)
        XCTAssertGreaterThanOrEqual(waited, 0.9, "the run had its grace to end on its own")
        XCTAssertLessThan(waited, 3, "ended by the grace, not by the 5 s busy wait")
        XCTAssertTrue(stderr.contains("pins import: not stopped 1 s after SIGTERM (a read that does not return?): stopped at once"), stderr)
        holder.terminate()
        holder.waitUntilExit()
        let runs = try XCTUnwrap(CLI.json(CLI.run(["runs", "--json", "--db", db]).stdout) as? [[String: Any]])
        XCTAssertEqual(runs.count, 1, "the stopped run wrote nothing: \(runs)")
    }
}
