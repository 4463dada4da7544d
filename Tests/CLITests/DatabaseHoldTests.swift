import Foundation
@testable import PinStore
import TestSupport
import XCTest

/// Issue 22 items 2, 3 and 6: the run lock follows the file (not its name), a repair holds the
/// database for its whole run, and a wrong path is an error, never a new file or folder.
final class DatabaseHoldTests: XCTestCase {
    /// A pins process started in the background, its output read as it comes.
    final class Background: @unchecked Sendable {
        let process = Process()
        private let out = Pipe(), err = Pipe()
        private var outData = Data(), errData = Data()
        private let group = DispatchGroup()

        init(_ arguments: [String], environment: [String: String] = [:]) throws {
            process.executableURL = URL(fileURLWithPath: CLI.binary)
            process.arguments = arguments
            var env = ProcessInfo.processInfo.environment
            env["PINS_DB"] = nil
            env["PINS_DATA_DIR"] = CLI.dataDirectory
            for (k, v) in environment { env[k] = v }
            process.environment = env
            process.standardOutput = out
            process.standardError = err
            process.standardInput = FileHandle.nullDevice
            try process.run()
            for (pipe, keep) in [(out, true), (err, false)] {
                group.enter()
                let handle = pipe.fileHandleForReading
                DispatchQueue.global().async {
                    let data = handle.readDataToEndOfFile()
                    if keep { self.outData = data } else { self.errData = data }
                    self.group.leave()
                }
            }
        }

        var isRunning: Bool { process.isRunning }

        func wait() -> Run {
            group.wait()
            process.waitUntilExit()
            return Run(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                       stderr: String(decoding: errData, as: UTF8.self))
        }
    }

    func library(_ dir: URL, files: Int, seed: Int = 5) throws -> String {
        let root = dir.appendingPathComponent("photos").path
        try CLI.generateLibrary(at: root, files: files)
        _ = seed
        return root
    }

    func pinCount(_ db: String) throws -> Int {
        let list = try CLI.run(["list", "--json", "--db", db])
        XCTAssertEqual(list.status, 0, list.stderr)
        return try XCTUnwrap(CLI.json(list.stdout) as? [Any]).count
    }

    // MARK: item 2: the lock follows the file

    /// While an import holds the database, a second one through a symlink or a hard link of
    /// the file (or of its folder) exits 75 at once and writes nothing, whichever name the
    /// holder used. (Before: the lock was `<name>.lock`, so another name ran beside it.)
    func testAnImportThroughAnotherNameOfTheHeldFileExits75() throws {
        let dir = try CLI.temporaryDirectory(self)
        let root = try library(dir, files: 40)
        let db = dir.appendingPathComponent("pins.sqlite").path
        let first = try CLI.run(["import", root, "--db", db, "--quiet"])
        XCTAssertEqual(first.status, 0, first.stderr)
        let symlink = dir.appendingPathComponent("link.sqlite").path
        let hardLink = dir.appendingPathComponent("hard.sqlite").path
        let folderLink = dir.appendingPathComponent("folder-link").path
        XCTAssertEqual(Glibc.symlink(db, symlink), 0)
        XCTAssertEqual(Glibc.link(db, hardLink), 0)
        XCTAssertEqual(Glibc.symlink(dir.path, folderLink), 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        for holderName in [db, hardLink] {
            let held = try RunLock(databasePath: holderName)
            for name in [db, symlink, hardLink, folderLink + "/pins.sqlite", dir.path + "/./pins.sqlite"] where name != holderName {
                let refused = try CLI.run(["import", root, "--db", name])
                XCTAssertEqual(refused.status, 75, "\(name) while \(holderName) is held: \(refused.stderr)")
                XCTAssertTrue(refused.stderr.contains("another pins import"), refused.stderr)
            }
            XCTAssertTrue(RunLock.isHeld(databasePath: symlink), "pins runs sees the run through any name")
            withExtendedLifetime(held) {}
        }
        XCTAssertFalse(RunLock.isHeld(databasePath: db))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)), before, "a refused run touches nothing")
        XCTAssertEqual(try CLI.run(["import", root, "--db", hardLink, "--quiet"]).status, 0, "free again once let go")
    }

    // MARK: item 3: a repair holds the database

    /// A file whose `settings` page is damaged (its pins are sound), with three pins.
    func damagedWithPins(_ dir: URL) throws -> (db: String, ids: [String]) {
        let db = dir.appendingPathComponent("pins.sqlite").path
        var ids: [String] = []
        for (lat, lon, title) in [(48.8584, 2.2945, "Eiffel"), (41.8902, 12.4922, "Colosseum"), (52.5163, 13.3777, "Gate")] {
            let add = try CLI.run(["add", "--lat", "\(lat)", "--lon", "\(lon)", "--title", title, "--db", db])
            XCTAssertEqual(add.status, 0, add.stderr)
            ids.append(CLI.addedID(add))
        }
        try DatabaseDamage.damageRootPage(of: "settings", in: db)
        XCTAssertEqual(try CLI.run(["check", "--db", db]).status, 1, "the file is damaged")
        return (db, ids)
    }

    func titles(_ db: String) throws -> [String] {
        let list = try XCTUnwrap(CLI.json(CLI.run(["list", "--json", "--db", db]).stdout) as? [[String: Any]])
        return list.compactMap { $0["title"] as? String }.sorted()
    }

    func startHeldRepair(_ db: String, _ dir: URL) throws -> (Background, String) {
        let hold = dir.appendingPathComponent("hold-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: hold, withIntermediateDirectories: true)
        let repair = try Background(["check", "--repair", "--db", db], environment: ["PINS_TEST_HOLD_REPAIR": hold])
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: hold + "/held"), repair.isRunning, Date() < deadline { usleep(5_000) }
        XCTAssertTrue(FileManager.default.fileExists(atPath: hold + "/held"), "the repair reached its hold")
        return (repair, hold)
    }

    /// An edit started while the repair holds the file waits for it, then lands in the
    /// repaired file (before: it was written into the damaged file the repair then moved
    /// aside, and said nothing). An import exits 75 at once; an `add` that waits longer than
    /// 5 seconds exits 75 and says why: nothing is told "done" and then lost.
    func testWritersWaitForARepairOrExit75AndNoEditIsLost() throws {
        let dir = try CLI.temporaryDirectory(self)
        let (db, ids) = try damagedWithPins(dir)
        XCTAssertEqual(ids.count, 3)
        let root = try library(dir, files: 5)
        let (repair, hold) = try startHeldRepair(db, dir)
        let importRun = try CLI.run(["import", root, "--db", db])
        XCTAssertEqual(importRun.status, 75, importRun.stderr)
        // The edit is let go well within its 5 seconds of waiting.
        let edit = try Background(["edit", ids[0], "--title", "Tour Eiffel", "--db", db])
        usleep(1_000_000)
        XCTAssertTrue(edit.isRunning, "the edit waits while the repair holds the file")
        XCTAssertTrue(FileManager.default.createFile(atPath: hold + "/go", contents: Data()))
        let repaired = repair.wait()
        XCTAssertEqual(repaired.status, 0, repaired.stderr)
        let edited = edit.wait()
        XCTAssertEqual(edited.status, 0, edited.stderr)
        XCTAssertEqual(try titles(db), ["Colosseum", "Gate", "Tour Eiffel"], "the edit is in the repaired file")
        XCTAssertEqual(try CLI.run(["check", "--db", db]).stdout, "\(db): ok\n")

        // A writer that waits longer than 5 seconds gives up with 75 and changes nothing.
        try DatabaseDamage.damageRootPage(of: "settings", in: db)
        let (second, secondHold) = try startHeldRepair(db, dir)
        let started = Date()
        let add = try CLI.run(["add", "--lat", "35.6586", "--lon", "139.7454", "--title", "Tower", "--db", db])
        XCTAssertEqual(add.status, 75, add.stderr)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 4.5, "it waited for the repair first")
        XCTAssertTrue(add.stderr.contains("'pins check --repair' is repairing it; nothing was changed"), add.stderr)
        XCTAssertTrue(FileManager.default.createFile(atPath: secondHold + "/go", contents: Data()))
        XCTAssertEqual(second.wait().status, 0)
        XCTAssertEqual(try titles(db), ["Colosseum", "Gate", "Tour Eiffel"])
    }

    // MARK: item 6: a wrong path is an error

    /// `report` with a database that does not exist fails like `list`, and leaves the page
    /// that was there (before: an empty page replaced it, exit 0).
    func testReportWithAMissingDatabaseFailsAndKeepsThePage() throws {
        let dir = try CLI.temporaryDirectory(self)
        let db = dir.appendingPathComponent("pins.sqlite").path
        XCTAssertEqual(try CLI.run(["add", "--lat", "48.8584", "--lon", "2.2945", "--title", "Eiffel", "--db", db]).status, 0)
        let page = dir.appendingPathComponent("map.html").path
        XCTAssertEqual(try CLI.run(["report", "--db", db, "--out", page]).status, 0)
        let good = try Data(contentsOf: URL(fileURLWithPath: page))
        let wrong = dir.appendingPathComponent("pins.sqlit").path
        let report = try CLI.run(["report", "--db", wrong, "--out", page])
        XCTAssertEqual(report.status, 1)
        XCTAssertEqual(report.stdout, "")
        XCTAssertTrue(report.stderr.hasPrefix("pins report: there is no database at \(wrong)"), report.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: page)), good, "the good page stays")
        XCTAssertFalse(FileManager.default.fileExists(atPath: wrong))
    }

    /// An import of a folder that is not there exits 66 and makes nothing: no database, no
    /// lock file, no folder (before: an empty database and its folder were made first).
    func testAFailedImportMakesNoDatabaseNorItsFolder() throws {
        let dir = try CLI.temporaryDirectory(self)
        let db = dir.appendingPathComponent("pins.sqlite").path
        let missing = dir.appendingPathComponent("not-mounted").path
        let run = try CLI.run(["import", missing, "--db", db])
        XCTAssertEqual(run.status, 66, run.stderr)
        XCTAssertTrue(run.stderr.contains("cannot import \(missing)"), run.stderr)
        // The default location too: its folder is not made for a run that does nothing.
        let home = dir.appendingPathComponent("home").path
        let defaultRun = try CLI.run(["import", missing], environment: ["HOME": home, "XDG_DATA_HOME": ""])
        XCTAssertEqual(defaultRun.status, 66, defaultRun.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [], "nothing made")
    }

    /// A `--db` (or PINS_DB) whose folder does not exist is an error, not a `mkdir`; the
    /// default location's folder is made at the first import.
    func testANamedDatabaseInAMissingFolderIsAnError() throws {
        let dir = try CLI.temporaryDirectory(self)
        let root = try library(dir, files: 5)
        let db = dir.appendingPathComponent("typo/pins.sqlite").path
        for run in [try CLI.run(["import", root, "--db", db]),
                    try CLI.run(["add", "--lat", "1", "--lon", "1", "--db", db]),
                    try CLI.run(["import", root], environment: ["PINS_DB": db])] {
            XCTAssertEqual(run.status, 1, run.stderr)
            XCTAssertTrue(run.stderr.contains("there is no folder \(dir.path)/typo for the database \(db)"), run.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("typo").path))
        let home = dir.appendingPathComponent("home").path
        let first = try CLI.run(["import", root, "--quiet"], environment: ["HOME": home, "XDG_DATA_HOME": ""])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: home + "/.local/share/pins/pins.sqlite"))
    }
}
