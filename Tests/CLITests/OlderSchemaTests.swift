import Foundation
@testable import PinStore
import XCTest

/// A database written by an earlier pins (an older schema): read commands read it as it is,
/// migrated in memory, without writing a byte and without telling the user to get a newer pins
/// (the advice is for a file newer than this pins); `check --repair` brings it forward.
final class OlderSchemaTests: XCTestCase {
    func testReadCommandsReadAnOlderSchemaWithoutWritingOrWrongAdvice() throws {
        for stop in 1..<Migrations.latestVersion {
            let dir = try CLI.temporaryDirectory(self)
            let db = dir.appendingPathComponent("pins.sqlite").path
            do { _ = try PinDatabase(path: db, migrateUpTo: stop) }
            let before = try Data(contentsOf: URL(fileURLWithPath: db))
            for command in [["list"], ["stats"], ["runs"], ["check"]] {
                let run = try CLI.run(command + ["--db", db])
                XCTAssertEqual(run.status, 0, "\(command) on version \(stop): \(run.stderr)")
                XCTAssertFalse(run.stderr.contains("newer"), run.stderr)
            }
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)), before, "version \(stop): nothing written")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["pins.sqlite"])
            let repair = try CLI.run(["check", "--repair", "--db", db])
            XCTAssertEqual(repair.status, 0, "check --repair on version \(stop): \(repair.stderr)")
            XCTAssertEqual(try PinDatabase(readOnlyPath: db).schemaVersion, Migrations.latestVersion)
        }
    }
}
