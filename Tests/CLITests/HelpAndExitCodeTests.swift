import Foundation
import XCTest

final class HelpAndExitCodeTests: XCTestCase {
    /// Golden help texts: Tests/CLITests/golden/<command>.txt, reviewed by hand when changed.
    func testHelpMatchesGoldenFiles() throws {
        let golden = CLI.repo.appendingPathComponent("Tests/CLITests/golden")
        for command in ["import", "import-places", "inspect", "add", "list", "delete", "stats", "report", "locate", "runs",
                        "edit", "show", "cities", "mountains", "settings", "export", "trips", "serve", "completions", "sidecars"] {
            let run = try CLI.run([command, "--help"])
            XCTAssertEqual(run.status, 0, command)
            let expected = try String(contentsOf: golden.appendingPathComponent("\(command).txt"), encoding: .utf8)
            XCTAssertEqual(run.stdout, expected, "pins \(command) --help differs from golden/\(command).txt")
        }
        let top = try CLI.run(["--help"])
        XCTAssertEqual(top.stdout, try String(contentsOf: golden.appendingPathComponent("pins.txt"), encoding: .utf8))
    }

    func testVersionPrintsPinsAndExitsZero() throws {
        let run = try CLI.run(["--version"])
        XCTAssertEqual(run.status, 0)
        XCTAssertTrue(run.stdout.hasPrefix("pins "), run.stdout)
    }

    func testUsageErrorsExit64WithAHint() throws {
        let db = try CLI.temporaryDirectory(self).appendingPathComponent("x.sqlite").path
        for args in [[], ["frobnicate"], ["add", "--lat", "95", "--lon", "0", "--db", db], ["add", "--lat", "1", "--db", db],
                     ["list", "--bogus"], ["import"], ["import", "a", "b"], ["import", ".", "--jobs", "0"],
                     ["import", ".", "--timezone", "Mars/Olympus"], ["add", "--lat", "1", "--lon", "2", "--color", "red", "--db", db],
                     ["list", "--country", "France"]] {
            let run = try CLI.run(args)
            XCTAssertEqual(run.status, 64, "\(args): \(run.stderr)")
            XCTAssertTrue(args.isEmpty || run.stderr.contains("--help"), "\(args): \(run.stderr)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: db), "a usage error must not create the database")
    }

    func testFailureExitCodes() throws {
        let dir = try CLI.temporaryDirectory(self)
        // A folder that is not there is "no input" (66), as an unmounted share is.
        let run = try CLI.run(["import", dir.appendingPathComponent("missing").path, "--db", dir.appendingPathComponent("db").path])
        XCTAssertEqual(run.status, 66)
        XCTAssertTrue(run.stderr.contains("missing"), run.stderr)
        // Anything else that stops a command is 1.
        let delete = try CLI.run(["delete", "00000000-0000-0000-0000-000000000000", "--db", dir.appendingPathComponent("db").path])
        XCTAssertEqual(delete.status, 1)
    }
}
