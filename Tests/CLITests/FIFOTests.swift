import Foundation
import XCTest

/// Issue 40, item 8: a FIFO where a track or place file is expected hung the run while it held
/// the run lock (open(2) of a FIFO waits for a writer); the next nights exited 75. Only regular
/// files are opened as tracks or place files: a FIFO is named and skipped, or refused, at once,
/// and the lock goes with the run.
final class FIFOTests: XCTestCase {
    func makeFIFO(_ path: String) {
        XCTAssertEqual(mkfifo(path, 0o644), 0, String(cString: strerror(errno)))
    }

    /// pins under timeout(1): a run that waits for a writer is killed (124), not the test hung.
    func bounded(_ args: [String]) throws -> Run {
        try CLI.run(["30", CLI.binary] + args, executable: "/usr/bin/timeout")
    }

    func testAFIFOInTheTrackFolderOrNamedAsATrackIsNamedAndSkipped() throws {
        let dir = try CLI.temporaryDirectory(self)
        let photos = dir.appendingPathComponent("photos"), tracks = dir.appendingPathComponent("tracks")
        try FileManager.default.copyItem(at: CLI.repo.appendingPathComponent("Fixtures/tracks/offset"), to: photos)
        try FileManager.default.createDirectory(at: tracks, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: CLI.repo.appendingPathComponent("Fixtures/tracks/segments.gpx"),
                                         to: tracks.appendingPathComponent("segments.gpx"))
        makeFIFO(tracks.appendingPathComponent("live.gpx").path)
        makeFIFO(tracks.appendingPathComponent("feed.json").path)
        let named = dir.appendingPathComponent("named.gpx").path
        makeFIFO(named)
        let db = dir.appendingPathComponent("pins.sqlite").path
        let started = Date()
        let run = try bounded(["import", photos.path, "--db", db, "--timezone", "UTC", "--track", tracks.path, "--track", named])
        XCTAssertLessThan(Date().timeIntervalSince(started), 30, "the run must not wait for a writer")
        XCTAssertEqual(run.status, 74, run.stderr)
        for fifo in ["live.gpx", "feed.json", "named.gpx"] {
            XCTAssertTrue(run.stderr.contains("\(fifo): not a regular file (a FIFO): track not read"), "\(fifo): \(run.stderr)")
        }
        XCTAssertTrue(run.stdout.contains("9 photos placed from"), "the regular track is read: \(run.stdout)")
        // The lock went with the run: the next one runs (not 75).
        let next = try CLI.run(["import", photos.path, "--db", db, "--timezone", "UTC", "--track", tracks.path + "/segments.gpx"])
        XCTAssertEqual(next.status, 0, next.stderr)
    }

    /// A FIFO named on the command line is read as a pipe (PipedPlacesTests), but one nobody
    /// writes to is not waited for: it reads as empty, at once, before the lock.
    func testAFIFOGivenToImportPlacesWithoutAWriterIsNotWaitedFor() throws {
        let dir = try CLI.temporaryDirectory(self)
        let fifo = dir.appendingPathComponent("places.csv").path
        makeFIFO(fifo)
        let db = dir.appendingPathComponent("pins.sqlite").path
        let started = Date()
        let run = try bounded(["import-places", fifo, "--db", db])
        XCTAssertLessThan(Date().timeIntervalSince(started), 30, "import-places must not wait for a writer")
        XCTAssertEqual(run.status, 66, run.stderr)
        XCTAssertTrue(run.stderr.contains("\(fifo): nothing came through the pipe (0 bytes); nothing was imported"), run.stderr)
        let places = CLI.repo.appendingPathComponent("Fixtures/places/from-ogr2ogr.csv").path
        let next = try CLI.run(["import-places", places, "--db", db])
        XCTAssertEqual(next.status, 0, "the lock is free: \(next.stderr)")
    }
}
