import Foundation
import TestSupport
import XCTest
@testable import PinCore
@testable import PinStore

/// Generated libraries (scripts/gen-library) checked against an independent implementation of
/// the rules (scripts/reference-rules), and the nightly-run guarantees: incremental,
/// idempotent, crash-safe, one run at a time.
final class NightlyTests: XCTestCase {
    func script(_ name: String, _ args: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", CLI.repo.appendingPathComponent("scripts/\(name)").path] + args
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "\(name) \(args)")
        return String(decoding: data, as: UTF8.self)
    }

    /// A generated library of `files` small photos in a fresh folder, with its manifest.
    func library(files: Int, seed: Int) throws -> (root: String, manifest: String, dir: URL) {
        let dir = try CLI.temporaryDirectory(self)
        let root = dir.appendingPathComponent("photos").path
        let manifest = dir.appendingPathComponent("manifest.jsonl").path
        _ = try script("gen-library", [root, "--files", String(files), "--seed", String(seed), "--small", "--manifest", manifest])
        return (root, manifest, dir)
    }

    func importJSON(_ root: String, db: String, _ extra: [String] = []) throws -> (status: Int32, json: [String: Any]?, stderr: String) {
        let run = try CLI.run(["import", root, "--json", "--timezone", "UTC", "--db", db] + extra)
        return (run.status, try? CLI.json(run.stdout) as? [String: Any], run.stderr)
    }

    /// The YYYY/MM/DD folders of a generated library, in order.
    func dayFolders(_ root: String) throws -> [String] {
        let all = FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []
        return all.filter { $0.split(separator: "/").count == 3 && !$0.hasSuffix(".jpg") && !$0.hasSuffix(".txt") }.sorted()
    }

    func jpegs(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".jpg") }.sorted()
    }

    func counts(_ json: [String: Any]?) -> [String: Any] { json?["counts"] as? [String: Any] ?? [:] }

    func pinPhotos(_ db: String) throws -> [String] {
        let list = try XCTUnwrap(CLI.json(CLI.run(["list", "--json", "--db", db]).stdout) as? [[String: Any]])
        return list.compactMap { ($0["photoIDs"] as? [String])?.first }.sorted()
    }

    func testGeneratedLibraryGivesExactlyThePinsTheRulesSelect() throws {
        let lib = try library(files: 3000, seed: 11)
        let reference = try XCTUnwrap(CLI.json(try script("reference-rules", [lib.manifest])) as? [String: [String]])
        let db = lib.dir.appendingPathComponent("pins.sqlite").path
        let (status, json, stderr) = try importJSON(lib.root, db: db, ["--dry-run"])
        XCTAssertEqual(status, 0, stderr)
        let pins = try XCTUnwrap(json?["pins"] as? [[String: Any]])
        XCTAssertEqual(pins.map { $0["photo"] as! String }, reference["accepted"])
        let skipped = try XCTUnwrap(json?["skipped"] as? [[String: Any]])
        for reason in ["interval", "distance", "noLocation"] {
            XCTAssertEqual(Set(skipped.filter { $0["reason"] as? String == reason }.map { $0["photo"] as! String }),
                           Set(reference[reason] ?? []), reason)
        }
        XCTAssertGreaterThan(reference["accepted"]?.count ?? 0, 100)
        XCTAssertGreaterThan(reference["interval"]?.count ?? 0, 50)
    }

    /// A dry run's text grows with the pins, not with the skipped photos: a few examples per
    /// reason (the old text had one line per skipped photo).
    func testDryRunTextGrowsWithThePinsNotWithTheSkippedPhotos() throws {
        let lib = try library(files: 600, seed: 13)
        let db = lib.dir.appendingPathComponent("none.sqlite").path
        let (status, json, stderr) = try importJSON(lib.root, db: db, ["--dry-run"])
        XCTAssertEqual(status, 0, stderr)
        let created = counts(json)["created"] as? Int ?? 0
        let skipped = (counts(json)["skipped"] as? [String: Int] ?? [:]).values.reduce(0, +)
        XCTAssertGreaterThan(skipped, 150)
        let text = try CLI.run(["import", lib.root, "--dry-run", "--timezone", "UTC", "--db", db])
        let lines = text.stdout.split(separator: "\n", omittingEmptySubsequences: false).count
        // Summary (at most 12 lines), pins (3 + one per pin), skipped (2 + 5 per reason), unreadable (at most 23).
        XCTAssertLessThanOrEqual(lines, 12 + 3 + created + 2 + 3 * 5 + 23, text.stdout)
        let verbose = try CLI.run(["import", lib.root, "--dry-run", "--verbose", "--timezone", "UTC", "--db", db])
        XCTAssertEqual(verbose.stdout.split(separator: "\n").filter { $0.contains("\t") }.count, counts(json)["files"] as? Int)
    }

    /// Issue 15 item 4: files left out by --exclude are out of scope, not vanished.
    func testExcludedFilesAreNotMissing() throws {
        let lib = try library(files: 200, seed: 15)
        let db = lib.dir.appendingPathComponent("pins.sqlite").path
        let first = try importJSON(lib.root, db: db)
        XCTAssertEqual(first.status, 0, first.stderr)
        // Leave out every day folder but one (globs match relative paths): most known files are
        // now out of sight, which used to stop the run as an unmounted share.
        let days = try dayFolders(lib.root)
        XCTAssertGreaterThan(days.count, 3)
        let excludes = days.dropFirst().flatMap { ["--exclude", $0] }
        let second = try importJSON(lib.root, db: db, excludes)
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(counts(second.json)["missing"] as? Int, 0)
        // And they are still known as present: a run without the excludes reads nothing again.
        let third = try importJSON(lib.root, db: db)
        XCTAssertEqual(counts(third.json)["read"] as? Int, 0)
        XCTAssertEqual(counts(third.json)["missing"] as? Int, 0)
    }

    /// Issue 15 item 4: an entry the walk cannot read is named, its known files keep their
    /// state, and the run ends with exit code 74. (Tests run as root, which reads every folder,
    /// so the unreadable entry here is a followed symlink whose target went away.)
    func testAnEntryTheWalkCannotReadKeepsItsFilesAndExits74() throws {
        let lib = try library(files: 120, seed: 17)
        let db = lib.dir.appendingPathComponent("pins.sqlite").path
        let day = try XCTUnwrap(try dayFolders(lib.root).first)
        let target = lib.dir.appendingPathComponent("elsewhere").path
        try FileManager.default.moveItem(atPath: lib.root + "/" + day, toPath: target)
        try FileManager.default.createSymbolicLink(atPath: lib.root + "/" + day, withDestinationPath: target)
        XCTAssertEqual(try importJSON(lib.root, db: db, ["--follow-symlinks"]).status, 0)
        try FileManager.default.removeItem(atPath: target)
        let run = try importJSON(lib.root, db: db, ["--follow-symlinks"])
        XCTAssertEqual(run.status, 74, run.stderr)
        XCTAssertTrue(run.stderr.contains("pins import: cannot read \(day): broken symlink"), run.stderr)
        XCTAssertEqual(counts(run.json)["missing"] as? Int, 0, "its files are out of sight, not gone")
        let runs = try XCTUnwrap(CLI.json(CLI.run(["runs", "--json", "--db", db]).stdout) as? [[String: Any]])
        XCTAssertEqual(runs.first?["exitCode"] as? Int, 74)
    }

    /// Issue 15 item 3: a report that cannot be written is found before the work, and nothing
    /// is recorded or created.
    func testAnUnwritableReportStopsTheRunBeforeAnyWork() throws {
        let lib = try library(files: 40, seed: 19)
        let db = lib.dir.appendingPathComponent("pins.sqlite").path
        let run = try CLI.run(["import", lib.root, "--db", db, "--report", lib.dir.path + "/no/such/folder/report.json"])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("cannot write the report to \(lib.dir.path)/no/such/folder/report.json: "), run.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: db), "nothing was done")
        let folder = try CLI.run(["import", lib.root, "--db", db, "--report", lib.dir.path])
        XCTAssertEqual(folder.status, 1)
        XCTAssertTrue(folder.stderr.contains("it is a folder"), folder.stderr)
        let page = try CLI.run(["import", lib.root, "--db", db, "--html", lib.dir.path + "/no/such/folder/map.html"])
        XCTAssertEqual(page.status, 1)
        XCTAssertTrue(page.stderr.contains("cannot write the page to \(lib.dir.path)/no/such/folder/map.html: "), page.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: db), "nothing was done")
    }

    /// Issue 15 item 3: another writer holding the database past the busy timeout stops the run
    /// at its start (exit 75, nothing changed), instead of an import that exits 0 unrecorded.
    func testADatabaseHeldByAnotherWriterStopsTheRunAtItsStart() throws {
        let lib = try library(files: 40, seed: 21)
        let db = lib.dir.appendingPathComponent("pins.sqlite").path
        XCTAssertEqual(try importJSON(lib.root, db: db).status, 0)
        let holder = try holdDatabase(db, seconds: 12)
        defer { holder.terminate(); holder.waitUntilExit() }
        let run = try importJSON(lib.root, db: db)
        XCTAssertEqual(run.status, 75, run.stderr)
        XCTAssertTrue(run.stderr.contains("nothing was changed"), run.stderr)
        holder.terminate()
        holder.waitUntilExit()
        let runs = try XCTUnwrap(CLI.json(CLI.run(["runs", "--json", "--db", db]).stdout) as? [[String: Any]])
        XCTAssertEqual(runs.count, 1, "the held run changed nothing")
    }

    /// Issue 15 item 3: SIGTERM ends a run at once; it is recorded as interrupted with exit
    /// code 143; the database is whole and the next run finishes the job.
    func testSIGTERMEndsTheRunRecordedAsInterrupted() throws {
        let lib = try library(files: 3000, seed: 23)
        let db = lib.dir.appendingPathComponent("pins.sqlite").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = ["import", lib.root, "--quiet", "--timezone", "UTC", "--db", db]
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Held open, not timed: the run is frozen (SIGSTOP) as soon as its run record says
        // "running", so the SIGTERM always reaches a run in progress, however loaded the machine
        // (a fixed sleep let a fast machine finish first, and the test then skipped itself).
        let deadline = Date().addingTimeInterval(60)
        while !runIsRecordedRunning(db) {
            XCTAssertTrue(process.isRunning, "the import ended before its run record said running")
            XCTAssertLessThan(Date(), deadline, "no running run recorded within 60 s")
            guard process.isRunning, Date() < deadline else { return }
            Thread.sleep(forTimeInterval: 0.005)
        }
        kill(process.processIdentifier, SIGSTOP)
        let signalled = Date()
        process.terminate()
        kill(process.processIdentifier, SIGCONT)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 143, "a run in progress ends with 128 + SIGTERM")
        XCTAssertLessThan(Date().timeIntervalSince(signalled), 10, "stopped at once (a generous bound for a loaded machine)")
        let runs = try XCTUnwrap(CLI.json(CLI.run(["runs", "--json", "--db", db]).stdout) as? [[String: Any]])
        XCTAssertEqual(runs.first?["status"] as? String, "interrupted")
        XCTAssertEqual(runs.first?["exitCode"] as? Int, 143)
        let check = try PinDatabase(readOnlyPath: db)
        // Issue 22 item 8: the run record says what the stopped run saved (0 only when it saved nothing).
        XCTAssertEqual(runs.first?["created"] as? Int, Int(try check.connection.scalarInt("SELECT count(*) FROM locations") ?? -1))
        XCTAssertEqual(runs.first?["files"] as? Int, Int(try check.connection.scalarInt("SELECT count(*) FROM photos") ?? -1))
        XCTAssertEqual(try check.connection.query("PRAGMA integrity_check") { $0.string(0) }, ["ok"])
        XCTAssertEqual(try check.countMismatches(), [])
        // The next run does the rest: the same pins as one run over the whole library.
        XCTAssertEqual(try importJSON(lib.root, db: db).status, 0)
        let whole = lib.dir.appendingPathComponent("whole.sqlite").path
        XCTAssertEqual(try importJSON(lib.root, db: whole).status, 0)
        XCTAssertEqual(try pinPhotos(db), try pinPhotos(whole))
    }

    /// True once the import's run record is in the database, still running (read-only, so the
    /// poll never takes a lock the import needs).
    func runIsRecordedRunning(_ db: String) -> Bool {
        guard FileManager.default.fileExists(atPath: db),
              let file = try? PinDatabase(readOnlyPath: db),
              let running = try? file.connection.scalarInt("SELECT count(*) FROM runs WHERE status = 'running'")
        else { return false }
        return running > 0
    }

    func testAnEmptyFolderNeverImportedExits66() throws {
        let dir = try CLI.temporaryDirectory(self)
        try FileManager.default.createDirectory(atPath: dir.path + "/empty", withIntermediateDirectories: true)
        // Empty folders below it are still no file (an unmounted share's empty mount points).
        try FileManager.default.createDirectory(atPath: dir.path + "/empty/2024/06", withIntermediateDirectories: true)
        let run = try CLI.run(["import", dir.path + "/empty", "--db", dir.path + "/pins.sqlite"])
        XCTAssertEqual(run.status, 66, run.stderr)
        XCTAssertTrue(run.stderr.contains("holds no file"), run.stderr)
        // "Nothing was changed", on the disk too: no database, no lock file beside it.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(), ["empty"])
        XCTAssertEqual(try CLI.run(["import", dir.path + "/empty", "--allow-shrink", "--db", dir.path + "/pins.sqlite"]).status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.path + "/pins.sqlite"))
        // With a database the walk finds the folder empty: 66 again, and the pins are kept.
        XCTAssertEqual(try CLI.run(["import", dir.path + "/empty", "--db", dir.path + "/pins.sqlite"]).status, 66)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.path + "/pins.sqlite"))
    }

    func testSecondRunOpensNoFileAndCreatesNothing() throws {
        let lib = try library(files: 400, seed: 3)
        let db = lib.dir.appendingPathComponent("pins.sqlite").path
        let first = try importJSON(lib.root, db: db)
        XCTAssertEqual(first.status, 0, first.stderr)
        let created = counts(first.json)["created"] as? Int ?? 0
        XCTAssertGreaterThan(created, 10)
        let second = try importJSON(lib.root, db: db)
        XCTAssertEqual(counts(second.json)["read"] as? Int, 0, "an unchanged file must not be opened")
        XCTAssertEqual(counts(second.json)["created"] as? Int, 0)
        XCTAssertEqual(counts(second.json)["unchanged"] as? Int, counts(first.json)["files"] as? Int)
        XCTAssertEqual(try pinPhotos(db).count, created)
    }

    func testMovedRenamedAndTouchedFilesAreNotDecidedAgain() throws {
        let lib = try library(files: 300, seed: 5)
        let db = lib.dir.appendingPathComponent("pins.sqlite").path
        XCTAssertEqual(try importJSON(lib.root, db: db).status, 0)
        let before = try pinPhotos(db).count
        let fm = FileManager.default
        // Rename a day folder, rename one file, touch another.
        let days = try dayFolders(lib.root)
        XCTAssertGreaterThan(days.count, 3)
        try fm.moveItem(atPath: lib.root + "/" + days[0], toPath: lib.root + "/" + days[0] + "-renamed")
        let second = lib.root + "/" + days[1]
        let renamed = try XCTUnwrap(try jpegs(in: second).first)
        try fm.moveItem(atPath: second + "/" + renamed, toPath: second + "/renamed-" + renamed)
        let last = lib.root + "/" + days.last!
        let touched = try XCTUnwrap(try jpegs(in: last).first)
        try fm.setAttributes([.modificationDate: Date(timeIntervalSince1970: 2_000_000_000)], ofItemAtPath: last + "/" + touched)
        let again = try importJSON(lib.root, db: db)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(counts(again.json)["created"] as? Int, 0)
        XCTAssertGreaterThan(counts(again.json)["moved"] as? Int ?? 0, 1)
        XCTAssertEqual(counts(again.json)["touched"] as? Int, 1)
        XCTAssertEqual(counts(again.json)["missing"] as? Int, 0, "moved files are not missing")
        XCTAssertEqual(counts(again.json)["photos"] as? Int, 0, "nothing was decided again")
        XCTAssertEqual(try pinPhotos(db).count, before)
        // Pins made from the moved folder name the photos where they are now.
        let photos = try pinPhotos(db)
        XCTAssertFalse(photos.contains { $0.contains("/" + days[0] + "/") }, "\(photos)")
        XCTAssertTrue(photos.contains { $0.contains("/" + days[0] + "-renamed/") }, "the first day made a pin: \(photos)")
        for photo in photos { XCTAssertTrue(FileManager.default.fileExists(atPath: photo), photo) }
    }

    /// Issue 22 item 9: a photo copied under a new name while the original is still there is a
    /// copy of the same photo: no new pin (as before), and the report says "copied", not "moved".
    func testACopyUnderANewNameIsReportedAsACopyNotAMove() throws {
        let lib = try library(files: 120, seed: 12)
        let db = lib.dir.appendingPathComponent("pins.sqlite").path
        XCTAssertEqual(try importJSON(lib.root, db: db).status, 0)
        let pins = try pinPhotos(db)
        let day = lib.root + "/" + (try dayFolders(lib.root))[0]
        let photo = try XCTUnwrap(try jpegs(in: day).first)
        try FileManager.default.copyItem(atPath: day + "/" + photo, toPath: day + "/copy-of-" + photo)
        let text = try CLI.run(["import", lib.root, "--dry-run", "--timezone", "UTC", "--db", db])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("\n  copied     1 copy of photos already imported, the originals still there: no new pin\n"), text.stdout)
        XCTAssertFalse(text.stdout.contains("  moved "), text.stdout)
        let again = try importJSON(lib.root, db: db)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(counts(again.json)["copied"] as? Int, 1)
        XCTAssertEqual(counts(again.json)["moved"] as? Int, 0)
        XCTAssertEqual(counts(again.json)["created"] as? Int, 0)
        XCTAssertEqual(try pinPhotos(db), pins, "no new pin")
    }

    func testEveryPhotoAndPinARunWritesCarriesItsRunID() throws {
        let lib = try library(files: 120, seed: 11)
        let db = lib.dir.appendingPathComponent("pins.sqlite").path
        XCTAssertEqual(try CLI.run(["add", "--lat", "10", "--lon", "10", "--db", db]).status, 0)
        XCTAssertEqual(try importJSON(lib.root, db: db).status, 0)
        // Rename one file: the second run writes its record again, under the second run's id.
        let day = lib.root + "/" + (try dayFolders(lib.root))[0]
        let moved = try XCTUnwrap(try jpegs(in: day).first)
        try FileManager.default.moveItem(atPath: day + "/" + moved, toPath: day + "/renamed-" + moved)
        XCTAssertEqual(try importJSON(lib.root, db: db).status, 0)
        let runs = try XCTUnwrap(CLI.json(CLI.run(["runs", "--json", "--db", db]).stdout) as? [[String: Any]])
        XCTAssertEqual(runs.compactMap { $0["id"] as? Int }, [2, 1])

        let store = try PinDatabase(readOnlyPath: db)
        let photoRuns = try store.connection.query("SELECT run_id, count(*) FROM photos GROUP BY run_id ORDER BY run_id") {
            [$0.isNull(0) ? -1 : $0.int(0), $0.int(1)]
        }
        XCTAssertEqual(photoRuns, [[1, 119], [2, 1]], "the generated library has 120 files; one was moved by run 2")
        let pins = try store.read { try $0.locations.fetchAll(countryID: nil) }
        // 10,10 is in Bauchi State, 38 km from the town of Bauchi: no town that near, so the
        // region names it (issue 23).
        XCTAssertEqual(pins.filter { $0.runID == nil }.map(\.title), ["Bauchi, Nigeria"], "the pin made by hand has no run")
        XCTAssertGreaterThan(pins.count, 10)
        XCTAssertTrue(pins.allSatisfy { $0.runID == nil || $0.runID == 1 }, "pins are made by the first run only")
    }

    func testADeletedPinStaysDeleted() throws {
        let lib = try library(files: 200, seed: 7)
        let db = lib.dir.appendingPathComponent("pins.sqlite").path
        XCTAssertEqual(try importJSON(lib.root, db: db).status, 0)
        let list = try XCTUnwrap(CLI.json(CLI.run(["list", "--json", "--db", db]).stdout) as? [[String: Any]])
        let victim = try XCTUnwrap(list.first?["id"] as? String)
        XCTAssertEqual(try CLI.run(["delete", victim, "--db", db]).status, 0)
        XCTAssertEqual(counts(try importJSON(lib.root, db: db).json)["created"] as? Int, 0)
        XCTAssertEqual(try pinPhotos(db).count, list.count - 1)
    }

    func testUnmountedShareStopsAndChangesNothing() throws {
        let lib = try library(files: 200, seed: 9)
        let db = lib.dir.appendingPathComponent("pins.sqlite").path
        XCTAssertEqual(try importJSON(lib.root, db: db).status, 0)
        let pins = try pinPhotos(db)
        // The share is not mounted: the mount point is an empty folder.
        try FileManager.default.moveItem(atPath: lib.root, toPath: lib.root + ".away")
        try FileManager.default.createDirectory(atPath: lib.root, withIntermediateDirectories: false)
        let empty = try CLI.run(["import", lib.root, "--db", db])
        XCTAssertEqual(empty.status, 66, empty.stderr)
        XCTAssertTrue(empty.stderr.contains("mounted"), empty.stderr)
        // The folder is not there at all.
        try FileManager.default.removeItem(atPath: lib.root)
        XCTAssertEqual(try CLI.run(["import", lib.root, "--db", db]).status, 66)
        // Nothing was marked missing: the share comes back, nothing to do.
        try FileManager.default.moveItem(atPath: lib.root + ".away", toPath: lib.root)
        let back = try importJSON(lib.root, db: db)
        XCTAssertEqual(back.status, 0)
        XCTAssertEqual(counts(back.json)["read"] as? Int, 0)
        XCTAssertEqual(counts(back.json)["missing"] as? Int, 0)
        XCTAssertEqual(try pinPhotos(db), pins)
    }

    func testShrinkNeedsAllowShrinkAndKeepsPins() throws {
        let lib = try library(files: 200, seed: 13)
        let db = lib.dir.appendingPathComponent("pins.sqlite").path
        XCTAssertEqual(try importJSON(lib.root, db: db).status, 0)
        let pins = try pinPhotos(db)
        // Remove about two thirds of the library.
        let days = try dayFolders(lib.root)
        var removed = 0
        for day in days.dropFirst(days.count / 3) {
            // Every recorded file goes missing, photos, videos and the odd text file alike.
            removed += try FileManager.default.contentsOfDirectory(atPath: lib.root + "/" + day).count
            try FileManager.default.removeItem(atPath: lib.root + "/" + day)
        }
        XCTAssertGreaterThan(removed, 110, "the test needs most files gone")
        XCTAssertEqual(try importJSON(lib.root, db: db).status, 66)
        let allowed = try importJSON(lib.root, db: db, ["--allow-shrink"])
        XCTAssertEqual(allowed.status, 0, allowed.stderr)
        XCTAssertEqual(counts(allowed.json)["missing"] as? Int, removed)
        XCTAssertEqual(try pinPhotos(db), pins, "pins of vanished photos stay")
    }

    func testASecondRunIsRefusedAtOnceAndAStaleLockDoesNotBlock() throws {
        let lib = try library(files: 50, seed: 17)
        let db = lib.dir.appendingPathComponent("pins.sqlite").path
        XCTAssertEqual(try importJSON(lib.root, db: db).status, 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        // Another process holds the run lock (here: this test).
        let fd = open(db + ".lock", O_RDWR | O_CREAT, 0o644)
        XCTAssertEqual(flock(fd, LOCK_EX | LOCK_NB), 0)
        let started = Date()
        let refused = try CLI.run(["import", lib.root, "--db", db])
        XCTAssertEqual(refused.status, 75, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("another pins import"), refused.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "it must not wait")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)), before, "a refused run touches nothing")
        // The holder dies (the lock file stays, with a stale pid): the next run goes ahead.
        flock(fd, LOCK_UN)
        close(fd)
        try "99999999\n".write(toFile: db + ".lock", atomically: true, encoding: .utf8)
        XCTAssertEqual(try importJSON(lib.root, db: db).status, 0)
    }

    func testOutputToALogHasNoControlCharacters() throws {
        let lib = try library(files: 300, seed: 19)
        let run = try CLI.run(["import", lib.root, "--db", lib.dir.appendingPathComponent("pins.sqlite").path, "--verbose"])
        XCTAssertEqual(run.status, 0, run.stderr)
        for text in [run.stdout, run.stderr] {
            XCTAssertFalse(text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" && $0 != "\t" }, text)
        }
        XCTAssertTrue(run.stdout.contains("accepted\t"), "--verbose lists decisions")
        let quiet = try CLI.run(["import", lib.root, "--db", lib.dir.appendingPathComponent("q.sqlite").path, "--quiet"])
        XCTAssertEqual(quiet.status, 0)
        XCTAssertEqual(quiet.stdout + quiet.stderr, "")
    }

    func testKillNineAtRandomPointsThenACompletingRunGivesTheSamePins() throws {
        let lib = try library(files: 3000, seed: 23)
        let reference = lib.dir.appendingPathComponent("reference.sqlite").path
        let clock = Date()
        XCTAssertEqual(try importJSON(lib.root, db: reference, ["--jobs", "2"]).status, 0)
        // Kill points spread over a whole run, start-up included.
        let runMicroseconds = UInt32(min(20, Date().timeIntervalSince(clock)) * 1_000_000)
        let expected = try pinPhotos(reference)
        var sawInterruptedRun = false

        let db = lib.dir.appendingPathComponent("killed.sqlite").path
        var generator = SeededRandom(seed: 1)
        // Kills on the database that the completing run finishes (a series restarts when an
        // attempt happens to finish before its kill point).
        var kills = 0
        var attempt = 0
        while kills < 4 && attempt < 30 {
            attempt += 1
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CLI.binary)
            process.arguments = ["import", lib.root, "--timezone", "UTC", "--db", db, "--quiet"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Kill points within the first 70 % of a whole run; later attempts have less left to
            // do, so one that finishes anyway starts the series again on a fresh database.
            usleep(UInt32.random(in: 10_000...max(20_000, runMicroseconds * 7 / 10), using: &generator))
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                kills += 1
                process.waitUntilExit()
            } else {
                process.waitUntilExit()
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: db + suffix) }
                kills = 0
                sawInterruptedRun = false
                continue
            }
            // After every kill: a sound database whose counts equal a recount.
            guard FileManager.default.fileExists(atPath: db) else { continue }
            let check = try PinDatabase(path: db)
            if try check.connection.scalarInt("SELECT count(*) FROM runs WHERE status = 'running'") ?? 0 > 0 { sawInterruptedRun = true }
            XCTAssertEqual(try check.connection.query("PRAGMA integrity_check") { $0.string(0) }, ["ok"], "attempt \(attempt)")
            XCTAssertEqual(try check.countMismatches(), [], "attempt \(attempt)")
        }
        XCTAssertGreaterThan(kills, 0, "the loop must actually interrupt runs")
        let final = try importJSON(lib.root, db: db)
        XCTAssertEqual(final.status, 0, final.stderr)
        XCTAssertEqual(try pinPhotos(db), expected)
        let runs = try XCTUnwrap(CLI.json(CLI.run(["runs", "--json", "--db", db]).stdout) as? [[String: Any]])
        XCTAssertEqual(runs.first?["status"] as? String, "completed")
        if sawInterruptedRun { XCTAssertTrue(runs.contains { $0["status"] as? String == "interrupted" }, "\(runs)") }
    }
}
