import Foundation
@testable import PinApp
import PinCore
@testable import PinStore
import TestSupport
import XCTest

/// An open for writing checks every table of the file (`PinDatabase.refuseDamaged`) unless the
/// file is as this process's own last write left it (`PinApp.writing`, `FileStamp`): pins serve's
/// edits leave the check out, and a file another process wrote or damaged since is checked again.
final class WriteCheckTests: XCTestCase {
    private func add(_ app: PinApp, _ lat: Double) throws {
        var new = NewPin(coordinate: Coordinate(latitude: lat, longitude: 4.8357))
        new.date = "2024-05-01T10:00:00+02:00"
        _ = try app.addPin(new)
    }

    private var checks: Int { PinDatabase.checksOnOpen.load(ordering: .relaxed) }

    /// Another process's change of the file: Python's sqlite3, as a nightly import or a CLI is.
    private func python(_ path: String, _ code: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", code, path]
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
    }

    func testTheChecksOwnWritesLeaveOutAndAnotherProcesssWriteBringsBack() throws {
        let app = try scratchApp()
        try add(app, 45.70)
        let after = checks
        try add(app, 45.71)
        try add(app, 45.72)
        XCTAssertEqual(checks, after, "the file as this process left it: not checked again")

        try python(app.databasePath, "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute(\"UPDATE settings SET key = key\"); c.commit(); c.execute(\"CREATE TABLE other(x)\"); c.commit(); c.close()")
        try add(app, 45.73)
        XCTAssertEqual(checks, after + 1, "another process wrote the file: checked again")
        try add(app, 45.74)
        XCTAssertEqual(checks, after + 1)
    }

    /// The safety the check is for: a file damaged after this process's last write (the root
    /// page of `locations` made no kind of b-tree page) is refused before anything is written.
    func testAFileDamagedSinceTheLastWriteIsRefused() throws {
        let app = try scratchApp()
        try add(app, 45.70)
        try add(app, 45.71)
        try DatabaseDamage.damageRootPage(of: "countries", in: app.databasePath)
        XCTAssertThrowsError(try add(app, 45.72)) { error in
            XCTAssertTrue("\(error)".contains("damaged"), "\(error)")
        }
    }
}
