import Foundation
import XCTest

/// Issue 40, item 1: a file that could not be opened is no decision. It is named, the run exits
/// 74, nothing of it is recorded, and once it can be opened the next run reads it: the pins
/// are then those of a fresh import of the same folder.
///
/// The tests run as root, which ignores mode bits, so the failure is made real by running pins
/// as another user (`setpriv` to nobody): open(2) of a root-owned 0600 file then fails with
/// EACCES in the kernel, through the very calls an import makes (no injected failure, no
/// guessed errno). A low `ulimit -n` would fail an arbitrary open (the database's, a folder's)
/// rather than the photo's, so it would not say which file the mechanism had to spare.
final class UnopenableFileTests: XCTestCase {
    static let nobody = "65534"

    /// A folder anyone may write (the database and scratch files of the run as nobody).
    func sharedFolder(_ dir: URL) throws -> String {
        let shared = dir.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        XCTAssertEqual(chmod(shared.path, 0o777), 0)
        return shared.path
    }

    func asNobody(_ arguments: [String], home: String) throws -> Run {
        // Beside the shared folder (its parent is open to all), not in it: the run's TMPDIR.
        let readable = try CLI.readableByAll(in: URL(fileURLWithPath: home).deletingLastPathComponent())
        return try CLI.run(["--reuid=\(Self.nobody)", "--regid=\(Self.nobody)", "--clear-groups", "--", readable.binary] + arguments,
                           environment: ["HOME": home, "TMPDIR": home, "PINS_DATA_DIR": readable.data], executable: "/usr/bin/setpriv")
    }

    func requireRootWithSetpriv() throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            // A failure, never a skip: scripts/test runs as root (it installs packages), as CI does.
            XCTFail("needs root and setpriv to make another user's open(2) fail with EACCES")
            throw CocoaError(.featureUnsupported)
        }
    }

    /// Every folder of `root` readable by all, every file too except `hidden` (0600, root's).
    func prepare(_ root: URL, hidden: Set<String>) throws {
        XCTAssertEqual(chmod(root.path, 0o755), 0)
        let walk = try XCTUnwrap(FileManager.default.enumerator(atPath: root.path))
        while let rel = walk.nextObject() as? String {
            let path = root.appendingPathComponent(rel).path
            var isDir: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDir)
            XCTAssertEqual(chmod(path, isDir.boolValue ? 0o755 : hidden.contains(rel) ? 0o600 : 0o644), 0, path)
        }
    }

    func pinCount(_ db: String) throws -> Int {
        let listed = try CLI.run(["list", "--db", db, "--json"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [Any]).count
    }

    func testAPhotoThatCouldNotBeOpenedIsNamedAndReadAtTheNextRun() throws {
        try requireRootWithSetpriv()
        let dir = try CLI.temporaryDirectory(self)
        let library = dir.appendingPathComponent("library")
        try FileManager.default.copyItem(at: CLI.repo.appendingPathComponent("Fixtures/library/2024"), to: library)
        let photos = try FileManager.default.subpathsOfDirectory(atPath: library.path).filter { $0.lowercased().hasSuffix(".jpg") }.sorted()
        XCTAssertGreaterThan(photos.count, 4)
        // Whole places far from the rest in space and time: the rules (interval, distance) decide
        // them alike whether they come in the first run or a later one.
        let hidden = Set(photos.filter { $0.hasPrefix("01-brasil/") || $0.hasPrefix("08-colorado/") })
        XCTAssertGreaterThan(hidden.count, 1)
        try prepare(library, hidden: [])
        let fresh = dir.appendingPathComponent("fresh.sqlite").path
        let reference = try CLI.run(["import", library.path, "--db", fresh, "--timezone", "UTC"])
        XCTAssertEqual(reference.status, 0, reference.stderr)
        let expected = try pinCount(fresh)
        XCTAssertGreaterThan(expected, 1)

        try prepare(library, hidden: hidden)
        let shared = try sharedFolder(dir)
        let db = shared + "/pins.sqlite"
        let first = try asNobody(["import", library.path, "--db", db, "--timezone", "UTC"], home: shared)
        XCTAssertEqual(first.status, 74, first.stderr)
        for name in hidden {
            XCTAssertTrue(first.stderr.contains("cannot read \(name): cannot open: Permission denied: not read, tried again at the next run"),
                          "\(name) not named: \(first.stderr)")
        }
        XCTAssertLessThan(try pinCount(db), expected, "the files not opened made no pins")

        // The fault gone (a chmod changes neither size, time nor inode): the next run reads them.
        try prepare(library, hidden: [])
        let second = try asNobody(["import", library.path, "--db", db, "--timezone", "UTC"], home: shared)
        XCTAssertEqual(second.status, 0, second.stderr + second.stdout)
        XCTAssertEqual(try pinCount(db), expected, "the same pins as a fresh import of the folder")
        let third = try asNobody(["import", library.path, "--db", db, "--timezone", "UTC"], home: shared)
        XCTAssertEqual(third.status, 0, third.stderr)
        XCTAssertEqual(try pinCount(db), expected)
    }

    /// A database an earlier version left with "unreadable: cannot open: Permission denied"
    /// records (a failure to open was then a decision): the next run reads those files again.
    func testARecordOfAFileThatCouldNotBeOpenedIsReadAgain() throws {
        let dir = try CLI.temporaryDirectory(self)
        let library = dir.appendingPathComponent("library")
        try FileManager.default.copyItem(at: CLI.repo.appendingPathComponent("Fixtures/library/2024"), to: library)
        let fresh = dir.appendingPathComponent("fresh.sqlite").path
        XCTAssertEqual(try CLI.run(["import", library.path, "--db", fresh, "--timezone", "UTC"]).status, 0)
        let expected = try pinCount(fresh)
        let db = dir.appendingPathComponent("old.sqlite").path
        XCTAssertEqual(try CLI.run(["import", library.path, "--db", db, "--timezone", "UTC"]).status, 0)
        // As the old version recorded them: every photo "unreadable", no pin.
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", """
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1])
            c.execute("UPDATE photos SET decision = 'unreadable', detail = 'cannot open: Permission denied', location_id = NULL, "
                      "digest = NULL, format = NULL, taken_at = NULL, time_source = NULL, latitude = NULL, longitude = NULL "
                      "WHERE decision != 'notMedia'")
            c.commit()
            """, db]
        try python.run()
        python.waitUntilExit()
        XCTAssertEqual(python.terminationStatus, 0)
        for pin in try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try CLI.run(["list", "--db", db, "--json"]).stdout.utf8)) as? [[String: Any]]) {
            XCTAssertEqual(try CLI.run(["delete", try XCTUnwrap(pin["id"] as? String), "--db", db]).status, 0)
        }
        XCTAssertEqual(try pinCount(db), 0)
        let again = try CLI.run(["import", library.path, "--db", db, "--timezone", "UTC"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(try pinCount(db), expected, "the files recorded as not opened are read again")
    }

    func testATrackThatCouldNotBeOpenedIsNamedAndReadAtTheNextRun() throws {
        try requireRootWithSetpriv()
        let dir = try CLI.temporaryDirectory(self)
        let photos = dir.appendingPathComponent("photos"), tracks = dir.appendingPathComponent("tracks")
        try FileManager.default.copyItem(at: CLI.repo.appendingPathComponent("Fixtures/tracks/offset"), to: photos)
        try FileManager.default.createDirectory(at: tracks, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: CLI.repo.appendingPathComponent("Fixtures/tracks/segments.gpx"),
                                         to: tracks.appendingPathComponent("segments.gpx"))
        try prepare(photos, hidden: [])
        try prepare(tracks, hidden: [])
        let fresh = dir.appendingPathComponent("fresh.sqlite").path
        let reference = try CLI.run(["import", photos.path, "--db", fresh, "--timezone", "UTC", "--track", tracks.path])
        XCTAssertEqual(reference.status, 0, reference.stderr)
        let expected = try pinCount(fresh)

        try prepare(tracks, hidden: ["segments.gpx"])
        let shared = try sharedFolder(dir)
        let db = shared + "/pins.sqlite"
        let first = try asNobody(["import", photos.path, "--db", db, "--timezone", "UTC", "--track", tracks.path], home: shared)
        XCTAssertEqual(first.status, 74, first.stderr)
        XCTAssertTrue(first.stderr.contains("segments.gpx: cannot open: Permission denied: track not read; tried again at the next run"),
                      first.stderr)
        XCTAssertLessThan(try pinCount(db), expected)

        try prepare(tracks, hidden: [])
        let second = try asNobody(["import", photos.path, "--db", db, "--timezone", "UTC", "--track", tracks.path], home: shared)
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertTrue(second.stdout.contains("9 photos placed from"), second.stdout)
        XCTAssertEqual(try pinCount(db), expected, "the same pins as a fresh import with the track")
    }
}
