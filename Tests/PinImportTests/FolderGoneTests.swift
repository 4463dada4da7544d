import Foundation
@testable import PinCore
@testable import PinMetadata
@testable import PinImport
@testable import PinStore
import TestSupport
import XCTest

/// Issue 22 item 1: a share that goes away while an import reads it. A file the walk listed
/// and the reader cannot find is no decision (left unread, named, exit 74); when the folder
/// itself goes away (moved, or a bind mount unmounted with `umount -l`) the run stops as
/// interrupted (exit 66) before deciding anything, and the run after the folder is back gives
/// exactly the pins and decisions of a run that was never disturbed.
///
/// Deterministic: the folder is taken away from the reading thread itself, before the read of
/// a chosen file (`ImportOptions.beforeRead`), never by a sleep racing the run.
final class FolderGoneTests: XCTestCase {
    static let repo = Repository.root

    func creation() -> CreationService {
        CreationService(locator: FixedCountry(), countries: CountryService(catalog: CountryCatalog(entries: [
            CountryInfo(alpha2: "FR", alpha3: "FRA", numeric: "250", name: "France", continent: "Europe", region: "", subRegion: ""),
        ])), ids: .system)
    }

    func temporaryDirectory() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pins-gone-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: dir) }
        return dir
    }

    /// A generated library (scripts/gen-library: nested day folders, GPS, bursts, trips).
    func generateLibrary(at path: String, files: Int, seed: Int) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.repo.appendingPathComponent("scripts/gen-library").path, path,
                             "--files", String(files), "--seed", String(seed), "--small"]
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
    }

    /// Calls `body` once, on the reading thread, before the read of the `n`th file (counted
    /// over all threads).
    final class AtRead: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        private let n: Int
        private let body: @Sendable (FileEntry) -> Void
        init(_ n: Int, _ body: @escaping @Sendable (FileEntry) -> Void) {
            self.n = n
            self.body = body
        }
        func callAsFunction(_ entry: FileEntry) {
            lock.lock()
            count += 1
            let now = count == n
            lock.unlock()
            if now { body(entry) }
        }
    }

    func session(_ root: String, db: String, beforeRead: (@Sendable (FileEntry) -> Void)? = nil) -> ImportSession {
        var options = ImportOptions(root: root)
        options.timeZone = TimeZone(identifier: "UTC")!
        options.jobs = 4
        options.batchSize = 50
        options.beforeRead = beforeRead
        return ImportSession(options: options, databasePath: db, creation: creation())
    }

    /// Every photo record (path, fingerprint, decision, detail, its pin's title and position)
    /// and every pin (title, position, photos), sorted: what two databases must share.
    func contents(_ db: String) throws -> [String] {
        let database = try PinDatabase(readOnlyPath: db)
        let photos = try database.connection.query("""
            SELECT CAST(p.path AS TEXT), p.size, p.mtime_ns, p.inode, p.decision, coalesce(p.detail, '-'), p.missing,
                   coalesce(l.title || ' ' || l.latitude || ' ' || l.longitude, '-')
            FROM photos p LEFT JOIN locations l ON l.id = p.location_id ORDER BY p.path
            """) { row in (0..<8).map { row.string(Int32($0)) }.joined(separator: " | ") }
        let pins = try database.connection.query(
            "SELECT title, latitude, longitude, photo_ids, country_id FROM locations ORDER BY title, latitude, longitude"
        ) { row in "pin " + (0..<5).map { row.string(Int32($0)) }.joined(separator: " | ") }
        let countries = try database.connection.query("SELECT id, pin_count FROM countries ORDER BY id") {
            "country \($0.string(0)) \($0.string(1))"
        }
        return photos + pins.sorted() + countries
    }

    func runs(_ db: String) throws -> [ImportRunRecord] {
        let database = try PinDatabase(readOnlyPath: db)
        return try database.read { try $0.runs.recent(limit: 10) }
    }

    /// The folder moved away while its files are read: the run stops, exit 66, recorded as
    /// interrupted; nothing of it is stored (not one `unreadable` record); once the folder is
    /// back, the next run's pins and decisions are those of a run never disturbed. Over a first
    /// import and over a nightly run that reads every file again (all touched).
    func testTheFolderMovedAwayMidRunStopsItAndTheRunAfterEqualsAnUndisturbedOne() async throws {
        let dir = try temporaryDirectory()
        let root = dir + "/photos", away = dir + "/photos-away"
        try generateLibrary(at: root, files: 600, seed: 31)

        // The reference: one undisturbed run, then (all files touched) an undisturbed nightly run.
        let reference = dir + "/reference.sqlite"
        let first = try await session(root, db: reference).run()
        XCTAssertGreaterThan(first.created, 20)
        XCTAssertEqual(first.count(.unreadable), 0)
        let referenceFirst = try contents(reference)

        let db = dir + "/pins.sqlite"
        let moveAway = AtRead(150) { _ in XCTAssertEqual(rename(root, away), 0) }
        do {
            _ = try await session(root, db: db, beforeRead: { moveAway($0) }).run()
            XCTFail("the run must stop when its folder goes away")
        } catch let failure as ImportFailure {
            XCTAssertEqual(failure.exitCode, 66)
            XCTAssertTrue(failure.message.contains("\(root) went away during the run"), failure.message)
            XCTAssertTrue(failure.message.contains("nothing was saved"), failure.message)
        }
        XCTAssertEqual(rename(away, root), 0)
        XCTAssertEqual(try contents(db), [], "nothing of the stopped run is stored")
        XCTAssertEqual(try runs(db).map { "\($0.status) \($0.exitCode ?? -1)" }, ["interrupted 66"])
        _ = try await session(root, db: db).run()
        XCTAssertEqual(try contents(db), referenceFirst)

        // Nightly: every file touched, so every file is read again; the folder goes away again.
        let enumerator = FileManager.default.enumerator(atPath: root)!
        while let name = enumerator.nextObject() as? String {
            _ = utimes(root + "/" + name, [timeval(tv_sec: 2_000_000_000, tv_usec: 0), timeval(tv_sec: 2_000_000_000, tv_usec: 0)])
        }
        let before = try contents(db)
        let moveAgain = AtRead(300) { _ in XCTAssertEqual(rename(root, away), 0) }
        do {
            _ = try await session(root, db: db, beforeRead: { moveAgain($0) }).run()
            XCTFail("the run must stop when its folder goes away")
        } catch let failure as ImportFailure {
            XCTAssertEqual(failure.exitCode, 66, failure.message)
        }
        XCTAssertEqual(rename(away, root), 0)
        XCTAssertEqual(try contents(db), before, "every record keeps its state and its pin")
        _ = try await session(root, db: reference).run()
        _ = try await session(root, db: db).run()
        XCTAssertEqual(try contents(db), try contents(reference))
    }

    /// The same with the share itself: a bind mount of the library unmounted lazily
    /// (`umount -l`, as a NAS share that drops) mid-run. Needs root (CI runs as root).
    func testAShareUnmountedMidRunStopsItAndTheRunAfterEqualsAnUndisturbedOne() async throws {
        let dir = try temporaryDirectory()
        let library = dir + "/library", share = dir + "/share"
        try generateLibrary(at: library, files: 600, seed: 32)
        try FileManager.default.createDirectory(atPath: share, withIntermediateDirectories: true)
        guard getuid() == 0 else { throw XCTSkip("bind mounts need root (CI runs as root)") }
        guard mount(library, share, nil, UInt(MS_BIND), nil) == 0 else {
            XCTFail("bind mount failed as root: \(String(cString: strerror(errno)))")
            throw SetupFailed()
        }
        var mounted = true
        defer { if mounted { umount2(share, Int32(MNT_DETACH)) } }

        let reference = dir + "/reference.sqlite"
        _ = try await session(share, db: reference).run()

        let db = dir + "/pins.sqlite"
        let unmount = AtRead(200) { _ in XCTAssertEqual(umount2(share, Int32(MNT_DETACH)), 0) }
        do {
            _ = try await session(share, db: db, beforeRead: { unmount($0) }).run()
            XCTFail("the run must stop when its share goes away")
        } catch let failure as ImportFailure {
            XCTAssertEqual(failure.exitCode, 66)
            XCTAssertTrue(failure.message.contains("another folder is there now"), failure.message)
        }
        mounted = false
        XCTAssertEqual(try contents(db), [])
        XCTAssertEqual(try runs(db).first?.status, .interrupted)
        XCTAssertEqual(mount(library, share, nil, UInt(MS_BIND), nil), 0)
        mounted = true
        _ = try await session(share, db: db).run()
        XCTAssertEqual(try contents(db), try contents(reference))
    }

    /// One file taken away between the walk and its read, the folder still there: no decision
    /// and no record; the run completes, names it as a problem (exit 74). An accepted photo
    /// read again (touched) that goes away keeps its record, its decision and its pin.
    func testAFileGoneAfterTheWalkIsNotADecisionAndKeepsItsRecord() async throws {
        let dir = try temporaryDirectory()
        let root = dir + "/photos"
        try generateLibrary(at: root, files: 200, seed: 33)
        let db = dir + "/pins.sqlite"

        // A first import: the 50th file read goes away just before its read.
        let gone = Gone()
        let takeAway = AtRead(50) { entry in gone.take(root + "/" + entry.relativePath.description) }
        let first = try await session(root, db: db, beforeRead: { takeAway($0) }).run()
        let path = try XCTUnwrap(gone.path)
        XCTAssertEqual(first.exitCode, 74)
        XCTAssertEqual(first.problems.map { $0.path.description }, [String(path.dropFirst(root.count + 1))])
        XCTAssertEqual(first.problems.first?.reason, "cannot open: No such file or directory: gone since the walk listed it; not read")
        XCTAssertEqual(first.count(.unreadable), 0)
        XCTAssertFalse(try contents(db).contains { $0.hasPrefix(path + " |") }, "no record for the file not read")
        gone.putBack()
        let second = try await session(root, db: db).run()
        XCTAssertEqual([second.read, Int(second.exitCode)], [1, 0], "the next run reads it")

        // An accepted photo touched (so read again) goes away before its read: its record stays.
        let database = try PinDatabase(readOnlyPath: db)
        let accepted = try XCTUnwrap(try database.connection.query(
            "SELECT CAST(path AS TEXT) FROM photos WHERE decision = 'accepted' ORDER BY path LIMIT 1") { $0.string(0) }.first)
        _ = utimes(accepted, [timeval(tv_sec: 2_000_000_000, tv_usec: 0), timeval(tv_sec: 2_000_000_000, tv_usec: 0)])
        let before = try contents(db)
        let again = Gone()
        let takeAccepted = AtRead(1) { _ in again.take(accepted) }
        let third = try await session(root, db: db, beforeRead: { takeAccepted($0) }).run()
        XCTAssertEqual(third.exitCode, 74)
        XCTAssertEqual([third.read, third.count(.unreadable), third.missing], [0, 0, 0])
        XCTAssertEqual(try contents(db), before, "the accepted photo keeps its record and its pin")
        again.putBack()
        let fourth = try await session(root, db: db).run()
        XCTAssertEqual([fourth.touched, Int(fourth.exitCode)], [1, 0])
    }

    /// Issue 22 item 8: a run stopped by SIGTERM while it saves records what its committed
    /// batches hold (files, photos, pins, skips), not 0: the figures `pins runs` shows are
    /// those the database holds for the run. The stop is asked after the second batch of 50
    /// is committed (the save stage's own progress), so exactly 100 decisions are saved.
    func testARunStoppedWhileSavingRecordsWhatItSaved() async throws {
        let dir = try temporaryDirectory()
        let root = dir + "/photos"
        try generateLibrary(at: root, files: 300, seed: 34)
        let db = dir + "/pins.sqlite"
        let session = session(root, db: db)
        let stop = session.options.stop
        do {
            _ = try await session.run(progress: { if $0.phase == .saving && $0.done >= 100 { stop.stop(signal: SIGTERM) } })
            XCTFail("the run must stop")
        } catch let failure as ImportFailure {
            XCTAssertEqual(failure.exitCode, 143)
        }
        let run = try XCTUnwrap(try runs(db).first)
        XCTAssertEqual(run.status, .interrupted)
        let database = try PinDatabase(readOnlyPath: db)
        let stored = try database.connection.query("SELECT decision, count(*) FROM photos WHERE run_id = ? GROUP BY decision", [run.id]) {
            ($0.string(0), $0.int(1))
        }
        let byDecision = Dictionary(uniqueKeysWithValues: stored)
        let pins = try XCTUnwrap(try database.connection.scalarInt("SELECT count(*) FROM locations WHERE run_id = ?", [run.id]))
        XCTAssertEqual(byDecision.values.reduce(0, +), 100, "two batches of 50")
        XCTAssertGreaterThan(pins, 0)
        XCTAssertEqual(run.files, 100)
        XCTAssertEqual(run.created, Int(pins))
        XCTAssertEqual(run.photos, 100 - (byDecision["notMedia"] ?? 0))
        for reason in [PhotoDecision.noLocation, .interval, .distance, .unreadable] {
            XCTAssertEqual(run.skipped[reason] ?? 0, byDecision[reason.rawValue] ?? 0, "\(reason)")
        }
    }

    /// Moves a file aside (from the reading thread) and back.
    final class Gone: @unchecked Sendable {
        private(set) var path: String?
        func take(_ path: String) {
            self.path = path
            XCTAssertEqual(rename(path, path + ".aside"), 0)
        }
        func putBack() {
            if let path { XCTAssertEqual(rename(path + ".aside", path), 0) }
        }
    }
}

/// Ends a test after the XCTFail that says why (a machine that cannot run it is a failure, not a skip).
private struct SetupFailed: Error {}
