import Foundation
import XCTest

/// Where the binary finds its data (issue 12): `<bin>/../share/pins`, then `$PINS_DATA_DIR`;
/// never a path of the machine that built it.
final class DataLookupTests: XCTestCase {
    /// A copy of the built binary in `<tmp>/bin/pins`, with no share/pins beside it.
    func lonelyBinary() throws -> (dir: URL, binary: String) {
        let dir = try CLI.temporaryDirectory(self)
        let bin = dir.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let binary = bin.appendingPathComponent("pins").path
        try FileManager.default.copyItem(atPath: CLI.binary, toPath: binary)
        return (dir, binary)
    }

    /// Without share/pins and without PINS_DATA_DIR: exit 1, and the message names both places
    /// looked (the old binary silently read the source tree's Resources/ compiled in).
    func testMissingDataNamesThePlacesLooked() throws {
        let (dir, binary) = try lonelyBinary()
        let run = try CLI.run(["locate"], stdin: "48.8566,2.3522\n", environment: ["PINS_DATA_DIR": ""],
                              executable: binary, cwd: "/")
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stdout, "")
        XCTAssertTrue(run.stderr.contains("cannot find the country data"), run.stderr)
        XCTAssertTrue(run.stderr.contains(dir.path + "/share/pins"), run.stderr)
        XCTAssertTrue(run.stderr.contains("PINS_DATA_DIR (not set)"), run.stderr)
        XCTAssertFalse(run.stderr.contains(CLI.repo.appendingPathComponent("Resources").path), run.stderr)
    }

    /// PINS_DATA_DIR is used when nothing is next to the binary; a wrong one is named.
    func testDataDirectoryFromTheEnvironment() throws {
        let (_, binary) = try lonelyBinary()
        let data = CLI.repo.appendingPathComponent("Resources").path
        let found = try CLI.run(["locate"], stdin: "48.8566,2.3522\n", environment: ["PINS_DATA_DIR": data],
                                executable: binary, cwd: "/")
        XCTAssertEqual(found.status, 0, found.stderr)
        XCTAssertEqual(found.stdout, "FR\n")
        let wrong = try CLI.run(["locate"], stdin: "48.8566,2.3522\n", environment: ["PINS_DATA_DIR": "/nonexistent/pins"],
                                executable: binary, cwd: "/")
        XCTAssertEqual(wrong.status, 1)
        XCTAssertTrue(wrong.stderr.contains("PINS_DATA_DIR=/nonexistent/pins"), wrong.stderr)
    }

    /// locate reads no database: it runs where there is no HOME (a service, a chroot).
    func testLocateNeedsNoDatabaseLocation() throws {
        let run = try CLI.run(["locate"], stdin: "48.8566,2.3522\n", environment: ["HOME": "", "XDG_DATA_HOME": "", "PINS_DB": ""])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, "FR\n")
    }

    /// A symbolic link to the binary (`/usr/local/bin/pins -> /opt/pins/bin/pins`) finds the
    /// data beside the real file; share/pins comes before PINS_DATA_DIR.
    func testSymlinkedBinaryFindsItsShareFolder() throws {
        let (dir, binary) = try lonelyBinary()
        let share = dir.appendingPathComponent("share/pins")
        try FileManager.default.createDirectory(at: share, withIntermediateDirectories: true)
        for name in ["Countries.bin", "Countries.json"] {
            try FileManager.default.copyItem(atPath: CLI.repo.appendingPathComponent("Resources/\(name)").path,
                                            toPath: share.appendingPathComponent(name).path)
        }
        let link = dir.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: link, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: link.appendingPathComponent("pins").path, withDestinationPath: binary)
        let run = try CLI.run(["locate"], stdin: "48.8566,2.3522\n", environment: ["PINS_DATA_DIR": "/nonexistent/pins"],
                              executable: link.appendingPathComponent("pins").path, cwd: "/")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, "FR\n")
    }
}
