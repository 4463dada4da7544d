import Foundation
import XCTest

/// Issue 40 item 11 (piped input): `curl ... | pins import-places -` and `pins import-places
/// <(unzip -p takeout.zip Saved.json)` read the pipe once, before the run lock, into a scratch
/// copy with no name, and import that copy as a file. An empty pipe says so; a signal while
/// nothing comes ends the command, with nothing written and nothing left in TMPDIR.
final class PipedPlacesTests: XCTestCase {
    /// Two places, hand-written: the Eiffel Tower (France) and the Colosseum (Italy).
    static let csv = "name,latitude,longitude\nEiffel Tower,48.8584,2.2945\nColosseum,41.8902,12.4922\n"

    func titlesAndCountries(_ db: String) throws -> [String] {
        let list = try CLI.json(try CLI.run(["list", "--json", "--db", db]).stdout) as! [[String: Any]]
        return list.map { "\($0["title"]!) \($0["country"]!)" }.sorted()
    }

    func testAPlaceFileThroughAPipeIsImported() throws {
        let dir = try CLI.temporaryDirectory(self)
        let tmp = dir.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        let db = dir.appendingPathComponent("pins.sqlite").path
        // A real pipe: the test process writes pins' standard input.
        let run = try CLI.run(["import-places", "-", "--db", db, "--json"], stdin: Self.csv, environment: ["TMPDIR": tmp.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        let report = try CLI.json(run.stdout) as! [String: Any]
        XCTAssertEqual((report["files"] as! [[String: Any]]).map { "\($0["file"]!) \($0["kind"]!) \($0["records"]!)" },
                       ["standard input csv 2"])
        XCTAssertEqual(try titlesAndCountries(db), ["Colosseum IT", "Eiffel Tower FR"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: tmp.path), [], "the copy leaves nothing")
        // The same bytes again, through cat and a shell's process substitution (/dev/fd/N): the
        // same records, so nothing new.
        let file = dir.appendingPathComponent("places.csv")
        try Data(Self.csv.utf8).write(to: file)
        for line in ["cat '\(file.path)' | '\(CLI.binary)' import-places - --db '\(db)'",
                     "'\(CLI.binary)' import-places <(cat '\(file.path)') --db '\(db)'"] {
            let shell = try CLI.run(["-c", line], executable: "/bin/bash")
            XCTAssertEqual(shell.status, 0, "\(line): \(shell.stderr)")
            XCTAssertTrue(shell.stdout.contains("2 unchanged"), "\(line): \(shell.stdout)")
        }
        XCTAssertEqual(try titlesAndCountries(db), ["Colosseum IT", "Eiffel Tower FR"])
    }

    func testAnEmptyPipeSaysSo() throws {
        let dir = try CLI.temporaryDirectory(self)
        let db = dir.appendingPathComponent("pins.sqlite").path
        let run = try CLI.run(["import-places", "-", "--db", db], stdin: "")
        XCTAssertEqual(run.status, 66, run.stderr)
        XCTAssertEqual(run.stderr, "pins import-places: standard input: nothing came through the pipe (0 bytes); nothing was imported\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: db), "nothing written")
    }

    /// pins waits for a writer that writes nothing: it holds no lock meanwhile (another import
    /// runs), and SIGTERM (then SIGINT) ends it at once, leaving nothing in TMPDIR.
    func testASignalWhileNothingComesEndsItWithoutTheLock() throws {
        for signal in [SIGTERM, SIGINT] {
            let dir = try CLI.temporaryDirectory(self)
            let tmp = dir.appendingPathComponent("tmp")
            try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
            let db = dir.appendingPathComponent("pins.sqlite").path
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CLI.binary)
            process.arguments = ["import-places", "-", "--db", db]
            var env = ProcessInfo.processInfo.environment
            env["PINS_DATA_DIR"] = CLI.dataDirectory
            env["TMPDIR"] = tmp.path
            process.environment = env
            let input = Pipe()
            process.standardInput = input
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            Thread.sleep(forTimeInterval: 1)
            XCTAssertTrue(process.isRunning, "waiting for the pipe")
            let file = dir.appendingPathComponent("places.csv")
            try Data(Self.csv.utf8).write(to: file)
            let other = try CLI.run(["import-places", file.path, "--db", db])
            XCTAssertEqual(other.status, 0, "the run lock is not held while the pipe is read: \(other.stderr)")
            kill(process.processIdentifier, signal)
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            XCTAssertFalse(process.isRunning, "signal \(signal) ends it")
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            XCTAssertEqual(process.terminationReason, .uncaughtSignal)
            XCTAssertEqual(process.terminationStatus, signal)
            try input.fileHandleForWriting.close()
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: tmp.path), [], "no scratch file left")
            XCTAssertEqual(try titlesAndCountries(db), ["Colosseum IT", "Eiffel Tower FR"], "only the other import's pins")
        }
    }
}
