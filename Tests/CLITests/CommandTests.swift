import Foundation
import XCTest

final class HelpAndExitCodeTests: XCTestCase {
    /// Golden help texts: Tests/CLITests/golden/<command>.txt, reviewed by hand when changed.
    func testHelpMatchesGoldenFiles() throws {
        let golden = CLI.repo.appendingPathComponent("Tests/CLITests/golden")
        for command in ["import", "inspect", "add", "list", "delete", "stats", "report", "locate", "runs",
                        "edit", "show", "cities", "mountains", "settings", "export"] {
            let run = try CLI.run([command, "--help"])
            XCTAssertEqual(run.status, 0, command)
            let expected = try String(contentsOf: golden.appendingPathComponent("\(command).txt"), encoding: .utf8)
            XCTAssertEqual(run.stdout, expected, "pins \(command) --help differs from golden/\(command).txt")
        }
        let top = try CLI.run(["--help"])
        XCTAssertEqual(top.stdout, try String(contentsOf: golden.appendingPathComponent("pins.txt"), encoding: .utf8))
    }

    func testVersion() throws {
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

final class LocateTests: XCTestCase {
    func testGoodAndBadLines() throws {
        let input = "48.8566,2.3522\n 35.6895 , 139.6917 \nnot a point\n0,-30\n91,0\n-29.31,27.48\n\n-33.8568,151.2153\r\n41.9033,12.4534"
        let run = try CLI.run(["locate"], stdin: input)
        XCTAssertEqual(run.status, 0)
        XCTAssertEqual(run.stdout, "FR\nJP\n\n\n\nLS\n\nAU\nVA\n")
        XCTAssertTrue(run.stderr.contains("line 3:"), run.stderr)
        XCTAssertTrue(run.stderr.contains("line 5:"), run.stderr)
        XCTAssertTrue(run.stderr.contains("line 7:"), run.stderr)
        XCTAssertFalse(run.stderr.contains("line 4:"), "open ocean is an answer, not an error")
        XCTAssertEqual(run.stderr.split(separator: "\n").count, 3, run.stderr)
    }
}

final class PinCommandTests: XCTestCase {
    func testAddListStatsDelete() throws {
        let db = try CLI.temporaryDirectory(self).appendingPathComponent("pins.sqlite").path
        let paris = try CLI.run(["add", "--lat", "48.8584", "--lon", "2.2945", "--title", "Eiffel", "--date", "2024-05-01T10:00:00+02:00",
                                 "--tag", "a", "--tag", "b", "--note", "hi", "--db", db])
        XCTAssertEqual(paris.status, 0, paris.stderr)
        let parisID = paris.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertNotNil(UUID(uuidString: parisID))
        XCTAssertEqual(try CLI.run(["add", "--lat", "-33.8568", "--lon", "151.2153", "--color", "#00ff00", "--db", db]).status, 0)
        XCTAssertEqual(try CLI.run(["add", "--lat", "45.8326", "--lon", "6.8652", "--type", "mountain", "--name", "Mont Blanc",
                                    "--height", "4806", "--db", db]).status, 0)
        XCTAssertEqual(try CLI.run(["add", "--lat", "0", "--lon", "-30", "--db", db]).status, 0)

        let list = try CLI.json(CLI.run(["list", "--json", "--db", db]).stdout) as! [[String: Any]]
        XCTAssertEqual(list.count, 4)
        let eiffel = try XCTUnwrap(list.first { $0["title"] as? String == "Eiffel" })
        XCTAssertEqual(eiffel["country"] as? String, "FR")
        // In the pin's own offset, the one it was given with (issue 11).
        XCTAssertEqual(eiffel["date"] as? String, "2024-05-01T10:00:00+02:00")
        XCTAssertEqual(eiffel["tags"] as? [String], ["a", "b"])
        XCTAssertEqual(eiffel["note"] as? String, "hi")
        XCTAssertEqual(eiffel["type"] as? String, "point")
        XCTAssertEqual(eiffel["visitCount"] as? Int, 1)
        XCTAssertEqual(eiffel["photoIDs"] as? [String], [])
        for key in ["id", "title", "latitude", "longitude", "country", "type", "date", "color", "visitCount", "note", "tags", "photoIDs"] {
            XCTAssertNotNil(eiffel[key], key)
        }
        let green = try XCTUnwrap(list.first { $0["country"] as? String == "AU" })
        XCTAssertEqual(green["color"] as? String, "#00FF00")
        XCTAssertTrue(list.contains { $0["country"] is NSNull })

        let onlyFR = try CLI.json(CLI.run(["list", "--country", "fr", "--json", "--db", db]).stdout) as! [[String: Any]]
        XCTAssertEqual(onlyFR.count, 2)

        var stats = try CLI.json(CLI.run(["stats", "--json", "--db", db]).stdout) as! [String: Any]
        XCTAssertEqual(stats["countriesVisited"] as? Int, 2)
        XCTAssertEqual(stats["continentsVisited"] as? Int, 2)
        let totals = stats["totals"] as! [String: Int]
        XCTAssertEqual(totals, ["pins": 4, "point": 3, "city": 0, "mountain": 1, "withoutCountry": 1])
        let countries = stats["countries"] as! [[String: Any]]
        XCTAssertEqual(countries.first?["id"] as? String, "FR")
        XCTAssertEqual(countries.first?["name"] as? String, "France")
        XCTAssertEqual(countries.first?["pinCount"] as? Int, 2)

        let deleted = try CLI.run(["delete", parisID, "--db", db])
        XCTAssertEqual(deleted.status, 0, deleted.stderr)
        stats = try CLI.json(CLI.run(["stats", "--json", "--db", db]).stdout) as! [String: Any]
        XCTAssertEqual((stats["countries"] as! [[String: Any]]).first { $0["id"] as? String == "FR" }?["pinCount"] as? Int, 1)
        XCTAssertEqual(try CLI.run(["delete", parisID, "--db", db]).status, 1)
    }

    func testDatabasePathFromEnvironment() throws {
        let dir = try CLI.temporaryDirectory(self)
        let xdg = dir.appendingPathComponent("xdg").path
        XCTAssertEqual(try CLI.run(["add", "--lat", "1", "--lon", "2"], environment: ["XDG_DATA_HOME": xdg]).status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: xdg + "/pins/pins.sqlite"))
        let explicit = dir.appendingPathComponent("env.sqlite").path
        XCTAssertEqual(try CLI.run(["add", "--lat", "1", "--lon", "2"], environment: ["PINS_DB": explicit, "XDG_DATA_HOME": xdg]).status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: explicit))
    }

    func testReadingCommandsNeverCreateTheDatabase() throws {
        let db = try CLI.temporaryDirectory(self).appendingPathComponent("none.sqlite").path
        // A missing database is an error naming it (a mistyped --db is not "No pins."), and it is
        // still not created.
        for command in ["list", "stats", "runs", "cities", "mountains"] {
            let run = try CLI.run([command, "--db", db])
            XCTAssertEqual(run.status, 1, command)
            XCTAssertEqual(run.stdout, "", command)
            XCTAssertEqual(run.stderr, "pins \(command): there is no database at \(db): check --db or PINS_DB "
                + "(pins creates it at the first 'pins import' or 'pins add')\n")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: db))
    }
}

final class InstallTests: XCTestCase {
    /// scripts/install puts the binary and its data where the binary finds them from anywhere.
    func testInstalledBinaryRunsFromAnotherDirectory() throws {
        let prefix = try CLI.temporaryDirectory(self).appendingPathComponent("prefix")
        let install = Process()
        install.executableURL = URL(fileURLWithPath: "/bin/bash")
        install.arguments = [CLI.repo.appendingPathComponent("scripts/install").path, prefix.path, "--binary", CLI.binary]
        install.standardOutput = FileHandle.nullDevice
        try install.run()
        install.waitUntilExit()
        XCTAssertEqual(install.terminationStatus, 0)
        let run = try CLI.run(["locate"], stdin: "48.8566,2.3522\n", environment: ["PINS_DATA_DIR": ""],
                              executable: prefix.appendingPathComponent("bin/pins").path, cwd: "/")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, "FR\n")
    }
}

final class ScheduleTests: XCTestCase {
    /// scripts/install --print-units: a oneshot service that treats 75 (busy) as success, a
    /// persistent timer, and the same command as a crontab line.
    func testPrintUnits() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [CLI.repo.appendingPathComponent("scripts/install").path, "/opt/pins", "--library", "/srv/my photos",
                             "--db", "/var/lib/pins/pins.sqlite", "--at", "02:30", "--print-units"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertTrue(text.contains(#"ExecStart="/opt/pins/bin/pins" import "/srv/my photos" --quiet --nice --db "/var/lib/pins/pins.sqlite""#), text)
        XCTAssertTrue(text.contains("SuccessExitStatus=75"))
        XCTAssertTrue(text.contains("OnCalendar=*-*-* 02:30:00"))
        XCTAssertTrue(text.contains("Persistent=true"))
        XCTAssertTrue(text.contains("30 02 * * * '/opt/pins/bin/pins' import '/srv/my photos' --quiet --nice --db '/var/lib/pins/pins.sqlite'"), text)
    }
}

final class ClosedPipeTests: XCTestCase {
    /// `pins inspect DIR | head -1`: the reader goes away; pins stops quietly, no crash.
    func testAClosedStdoutEndsTheCommandQuietly() throws {
        // Far more output than a pipe holds (64 KiB), so pins is still writing when the reader goes.
        let dir = try CLI.temporaryDirectory(self)
        let library = dir.appendingPathComponent("photos").path
        try CLI.generateLibrary(at: library, files: 1500)
        for arguments in [["inspect", library, "--timezone", "UTC"],
                          ["import", library, "--dry-run", "--json", "--db", dir.appendingPathComponent("x").path]] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CLI.binary)
            process.arguments = arguments
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            _ = out.fileHandleForReading.readData(ofLength: 16)
            try out.fileHandleForReading.close()
            process.waitUntilExit()
            XCTAssertEqual(process.terminationReason, .exit, "\(arguments[0]) must not die of a signal")
            XCTAssertEqual(process.terminationStatus, 0, arguments[0])
        }
    }
}
