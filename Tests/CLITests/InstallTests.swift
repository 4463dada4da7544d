import Foundation
import XCTest

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

/// scripts/install (issue 12 item 4): --help, a prefix relative to the caller, printing units
/// never builds, and units that systemd itself accepts.
final class InstallScriptTests: XCTestCase {
    /// PATH without the Swift toolchain: a step that tried to build would fail.
    static let pathWithoutSwift = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

    func install(_ arguments: [String], cwd: URL) throws -> Run {
        try CLI.run([CLI.repo.appendingPathComponent("scripts/install").path] + arguments,
                    environment: ["PATH": Self.pathWithoutSwift], executable: "/bin/bash", cwd: cwd.path)
    }

    func testHelpIsHelpNotAPrefix() throws {
        let dir = try CLI.temporaryDirectory(self)
        let run = try install(["--help"], cwd: dir)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("--from TARBALL"), run.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [])
    }

    /// The old script built and installed to PREFIX when --print-units came without --library.
    func testPrintingUnitsNeverBuildsOrWrites() throws {
        let dir = try CLI.temporaryDirectory(self)
        let missing = try install(["prefix", "--print-units"], cwd: dir)
        XCTAssertEqual(missing.status, 64)
        XCTAssertTrue(missing.stderr.contains("--library"), missing.stderr)
        let printed = try install(["prefix", "--library", "photos", "--print-units"], cwd: dir)
        XCTAssertEqual(printed.status, 0, printed.stderr)
        // Relative paths are the caller's.
        XCTAssertTrue(printed.stdout.contains("ExecStart=\"\(dir.path)/prefix/bin/pins\" import \"\(dir.path)/photos\""), printed.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [])
    }

    func testRelativePrefixIsRelativeToTheCaller() throws {
        let dir = try CLI.temporaryDirectory(self)
        let run = try install(["here/pins", "--binary", CLI.binary], cwd: dir)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: dir.appendingPathComponent("here/pins/bin/pins").path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.appendingPathComponent("here/pins/share/man/man1/pins.1").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: CLI.repo.appendingPathComponent("here").path))
    }

    /// The service: a database by default (StateDirectory), an unprivileged user, read-only
    /// library, no network; `systemd-analyze verify` loads both units without a warning.
    func testUnitsAreHardenedAndPassSystemdVerify() throws {
        let dir = try CLI.temporaryDirectory(self)
        let library = dir.appendingPathComponent("my photos")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        let run = try install(["prefix", "--binary", CLI.binary, "--library", library.path, "--unit-dir", "units", "--at", "02:30"], cwd: dir)
        XCTAssertEqual(run.status, 0, run.stderr)
        let service = try String(contentsOf: dir.appendingPathComponent("units/pins-import.service"), encoding: .utf8)
        for line in ["ExecStart=\"\(dir.path)/prefix/bin/pins\" import \"\(library.path)\" --quiet --nice --db \"%S/pins/pins.sqlite\"",
                     "StateDirectory=pins", "DynamicUser=yes", "ProtectSystem=strict", "ReadOnlyPaths=\"\(library.path)\"",
                     "NoNewPrivileges=yes", "PrivateNetwork=yes", "SuccessExitStatus=75"] {
            XCTAssertTrue(service.split(separator: "\n").contains(Substring(line)), "missing: \(line)\n\(service)")
        }
        let timer = try String(contentsOf: dir.appendingPathComponent("units/pins-import.timer"), encoding: .utf8)
        XCTAssertTrue(timer.contains("OnCalendar=*-*-* 02:30:00"), timer)
        let verify = try CLI.run(["verify", "--man=no", "./pins-import.service", "./pins-import.timer"],
                                 executable: "/usr/bin/systemd-analyze", cwd: dir.appendingPathComponent("units").path)
        XCTAssertEqual(verify.status, 0, verify.stderr)
        XCTAssertEqual(verify.stderr + verify.stdout, "", "systemd-analyze verify warns")
        // A named user instead of a DynamicUser; a group to read a shared library.
        let named = try install(["/opt/pins", "--library", library.path, "--user", "photos", "--group", "users", "--print-units"], cwd: dir)
        XCTAssertTrue(named.stdout.contains("\nUser=photos\n") && named.stdout.contains("\nSupplementaryGroups=users\n"), named.stdout)
        XCTAssertFalse(named.stdout.contains("DynamicUser"), named.stdout)
    }
}
