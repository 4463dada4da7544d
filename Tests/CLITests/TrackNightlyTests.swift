import Foundation
import XCTest
@testable import PinStore

/// Tracks that arrive after the photos (issue 29 item 4): a new or changed track file has the
/// photos skipped earlier for "no location" that it covers decided again; an unchanged one is
/// not read; nothing else is decided again. On Fixtures/tracks (scripts/fixtures-tracks): the
/// photos of offset/ and segments.gpx, whose fixes are F1 10:00:00Z (48.0, 2.0), F2 10:10:00Z
/// (48.1, 2.2), F3 10:39:59Z (48.2, 2.3), F4 11:10:00Z (48.3, 2.5), then a new segment F5
/// 11:20:00Z (48.4, 2.6) and F6 13:00:00Z (48.5, 2.7). With the default limits (1800 s) a file
/// covers F1 − 30 min ... F6 + 30 min = 09:30Z ... 13:30Z.
final class TrackNightlyTests: XCTestCase {
    let fixtures = CLI.repo.appendingPathComponent("Fixtures/tracks")

    /// A library of the 12 photos of offset/ imported without tracks, and an empty folder for
    /// the phone's tracks.
    func library() throws -> (dir: URL, photos: String, phone: String, db: String) {
        let dir = try CLI.temporaryDirectory(self)
        let photos = dir.appendingPathComponent("photos")
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent("offset"), to: photos)
        let phone = dir.appendingPathComponent("phone")
        try FileManager.default.createDirectory(at: phone, withIntermediateDirectories: true)
        let db = dir.appendingPathComponent("pins.sqlite").path
        let first = try importJSON(photos.path, db: db, track: nil)
        XCTAssertEqual(first.counts["created"] as? Int, 0)
        XCTAssertEqual((first.counts["skipped"] as? [String: Int])?["noLocation"], 12)
        return (dir, photos.path, phone.path, db)
    }

    struct Report {
        var json: [String: Any]
        var stderr: String
        var counts: [String: Any] { json["counts"] as! [String: Any] }
        var redecided: [String: [String: Any]] {
            Dictionary(uniqueKeysWithValues: (json["redecided"] as! [[String: Any]]).map { ($0["photo"] as! String, $0) })
        }
        var tracks: [[String: Any]] { json["tracks"] as! [[String: Any]] }
    }

    func importJSON(_ photos: String, db: String, track: String?, dryRun: Bool = false, extra: [String] = []) throws -> Report {
        let r = try CLI.run(["import", photos, "--db", db, "--timezone", "UTC", "--json"] + (track.map { ["--track", $0] } ?? [])
                            + (dryRun ? ["--dry-run"] : []) + extra)
        XCTAssertEqual(r.status, 0, r.stderr)
        return Report(json: try XCTUnwrap(CLI.json(r.stdout) as? [String: Any], r.stdout), stderr: r.stderr)
    }

    /// Pins by photo name: (latitude, longitude).
    func pins(_ db: String) throws -> [String: (Double, Double)] {
        let list = try XCTUnwrap(CLI.json(CLI.run(["list", "--json", "--db", db]).stdout) as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: list.map {
            (URL(fileURLWithPath: ($0["photoIDs"] as! [String])[0]).lastPathComponent, ($0["latitude"] as! Double, $0["longitude"] as! Double))
        })
    }

    /// Photo records: name → (decision, detail).
    func records(_ db: String) throws -> [String: (String, String?)] {
        let rows = try sqlite(db, "SELECT path, decision, detail FROM photos") { ($0.string(0), $0.string(1), $0.optionalString(2)) }
        return Dictionary(uniqueKeysWithValues: rows.map { (URL(fileURLWithPath: $0.0).lastPathComponent, ($0.1, $0.2)) })
    }

    func sqlite<T>(_ db: String, _ sql: String, _ row: (Statement) throws -> T) throws -> [T] {
        try PinDatabase(readOnlyPath: db).connection.query(sql, [], row)
    }

    func assertPin(_ pins: [String: (Double, Double)], _ name: String, _ lat: Double, _ lon: Double,
                   file: StaticString = #filePath, line: UInt = #line) {
        guard let p = pins[name] else { return XCTFail("no pin for \(name): \(pins.keys.sorted())", file: file, line: line) }
        // Pins keep 7 decimals (the app's precision).
        XCTAssertEqual(p.0, lat, accuracy: 5e-8, name, file: file, line: line)
        XCTAssertEqual(p.1, lon, accuracy: 5e-8, name, file: file, line: line)
    }

    func testANewTrackDecidesAgainTheNoLocationPhotosItCoversAndAnUnchangedOneIsNotRead() throws {
        let (_, photos, phone, db) = try library()
        let track = phone + "/track.gpx"
        try FileManager.default.copyItem(atPath: fixtures.appendingPathComponent("segments.gpx").path, toPath: track)

        // A dry run says what the track would do, and stores nothing.
        let dry = try importJSON(photos, db: db, track: phone, dryRun: true)
        XCTAssertEqual(dry.counts["redecidedForTracks"] as? Int, 10)
        XCTAssertEqual(dry.counts["created"] as? Int, 8)
        XCTAssertEqual(try pins(db).count, 0)
        XCTAssertEqual(try sqlite(db, "SELECT count(*) FROM tracks") { $0.int(0) }, [0])

        // The track arrives: the 10 photos it covers (all but 09:20Z and 13:40Z) are decided again.
        let page = phone + "/../run.html"
        let second = try importJSON(photos, db: db, track: phone, extra: ["--html", page])
        XCTAssertEqual(second.counts["redecidedForTracks"] as? Int, 10)
        XCTAssertEqual(second.counts["created"] as? Int, 8)
        XCTAssertEqual(second.counts["read"] as? Int, 10)
        XCTAssertEqual(second.tracks.count, 1)
        XCTAssertEqual(second.tracks.first?["state"] as? String, "new")
        XCTAssertEqual(second.tracks.first?["points"] as? Int, 6)
        XCTAssertEqual(Set(second.redecided.keys), ["before-first-within.jpg", "between-fixes.jpg", "between-fixes-subsec.jpg", "on-fix.jpg",
                                                    "gap-just-under.jpg", "gap-just-over-nearer-first.jpg", "gap-just-over-nearer-second.jpg",
                                                    "new-segment.jpg", "wide-gap.jpg", "after-last-within.jpg"])
        XCTAssertEqual(second.redecided["between-fixes.jpg"]?["trackFile"] as? String, track)
        XCTAssertEqual(second.redecided["between-fixes.jpg"]?["secondsToTrackFix"] as? Double, 200)
        XCTAssertEqual(second.redecided["wide-gap.jpg"]?["decision"] as? String, "noLocation")
        XCTAssertEqual(second.redecided["between-fixes-subsec.jpg"]?["decision"] as? String, "interval")
        // The run's page says it of the pins, with the track that placed them.
        let run = try XCTUnwrap(CLI.island(String(contentsOfFile: page, encoding: .utf8), "run-data") as? [String: Any])
        let created = try XCTUnwrap((run["created"] as? [[String: Any]])?.first { $0["photo"] as? String == "between-fixes.jpg" })
        XCTAssertEqual(created["detail"] as? String, "skipped earlier for no location, decided again for a new or changed track")
        XCTAssertEqual(created["trackFile"] as? String, track)
        var p = try pins(db)
        XCTAssertEqual(p.count, 8)
        assertPin(p, "before-first-within.jpg", 48.0, 2.0)                // 09:45Z, 900 s before F1: F1
        assertPin(p, "between-fixes.jpg", 48.0 + 0.1 / 3, 2.0 + 0.2 / 3)  // 10:03:20Z, a third of F1..F2
        assertPin(p, "on-fix.jpg", 48.1, 2.2)                             // 10:10:00Z = F2
        assertPin(p, "gap-just-under.jpg", 48.1 + 0.1 * 900 / 1799, 2.2 + 0.1 * 900 / 1799) // 900 s into F2..F3 (1799 s)
        assertPin(p, "gap-just-over-nearer-first.jpg", 48.2, 2.3)         // F3..F4 is 1801 s: the nearer fix, F3
        assertPin(p, "gap-just-over-nearer-second.jpg", 48.3, 2.5)        // F4
        assertPin(p, "new-segment.jpg", 48.35, 2.55)                      // 11:15Z, half of F4..F5
        assertPin(p, "after-last-within.jpg", 48.5, 2.7)                  // 13:20Z, 1200 s after F6: F6
        var r = try records(db)
        XCTAssertEqual(r["wide-gap.jpg"]?.0, "noLocation")
        XCTAssertEqual(r["wide-gap.jpg"]?.1, "no GPS position; nearest track fix 50 min away (in a gap of the track)")
        XCTAssertEqual(r["between-fixes-subsec.jpg"]?.0, "interval")
        // Not covered: not read, their record as the first run left it.
        XCTAssertEqual(r["before-first-too-far.jpg"]?.0, "noLocation")
        XCTAssertEqual(r["before-first-too-far.jpg"]?.1, "no GPS position")
        XCTAssertEqual(r["after-last-too-far.jpg"]?.1, "no GPS position")

        // The next night, the track unchanged: not opened. Its bytes are replaced by others of the
        // same size, in place, and its modification time put back: reading it would fail loudly.
        let original = try Data(contentsOf: URL(fileURLWithPath: track))
        try replaceKeepingFingerprint(track, with: Data(repeating: UInt8(ascii: "x"), count: original.count))
        let third = try importJSON(photos, db: db, track: phone)
        XCTAssertEqual(third.counts["redecidedForTracks"] as? Int, 0)
        XCTAssertEqual(third.counts["read"] as? Int, 0)
        XCTAssertEqual(third.tracks.first?["state"] as? String, "unchanged")
        XCTAssertFalse(third.stderr.contains("track.gpx"), third.stderr)
        let text = try CLI.run(["import", photos, "--db", db, "--timezone", "UTC", "--track", phone])
        XCTAssertEqual(text.stdout, "pins import \(URL(fileURLWithPath: photos).resolvingSymlinksInPath().path): nothing new: 12 files unchanged; "
                                    + "1 track file unchanged, not read\n")
        XCTAssertEqual(try pins(db).count, 8)

        // The phone syncs again: the point without a time gets one (12:10:00Z), so the file changes.
        // Only the photos still skipped for no location that it covers are decided again: wide-gap
        // (12:10:00Z), now on that fix; 09:20Z and 13:40Z stay outside the file's time.
        let changed = String(decoding: original, as: UTF8.self)
            .replacingOccurrences(of: "<trkpt lat=\"48.450000\" lon=\"2.650000\"/>",
                                  with: "<trkpt lat=\"48.450000\" lon=\"2.650000\"><time>2024-05-01T12:10:00Z</time></trkpt>")
        XCTAssertNotEqual(changed, String(decoding: original, as: UTF8.self))
        try Data(changed.utf8).write(to: URL(fileURLWithPath: track))
        let fourth = try importJSON(photos, db: db, track: phone)
        XCTAssertEqual(fourth.tracks.first?["state"] as? String, "changed")
        XCTAssertEqual(fourth.tracks.first?["points"] as? Int, 7)
        XCTAssertEqual(Array(fourth.redecided.keys), ["wide-gap.jpg"])
        XCTAssertEqual(fourth.redecided["wide-gap.jpg"]?["decision"] as? String, "accepted")
        XCTAssertEqual(fourth.redecided["wide-gap.jpg"]?["secondsToTrackFix"] as? Double, 0)
        p = try pins(db)
        XCTAssertEqual(p.count, 9)
        assertPin(p, "wide-gap.jpg", 48.45, 2.65)
        assertPin(p, "new-segment.jpg", 48.35, 2.55)

        // The track goes away: nothing is decided again, no pin goes.
        try FileManager.default.removeItem(atPath: track)
        let fifth = try CLI.run(["import", photos, "--db", db, "--timezone", "UTC", "--json", "--track", phone])
        XCTAssertEqual(fifth.status, 0, fifth.stderr)
        let report = try XCTUnwrap(CLI.json(fifth.stdout) as? [String: Any])
        XCTAssertEqual((report["counts"] as? [String: Any])?["redecidedForTracks"] as? Int, 0)
        XCTAssertEqual((report["counts"] as? [String: Any])?["read"] as? Int, 0)
        XCTAssertEqual(try pins(db).count, 9)
        r = try records(db)
        XCTAssertEqual(r["before-first-too-far.jpg"]?.0, "noLocation")
    }

    /// An unchanged track is read when a photo of the run without a position falls in its time
    /// (once), and not for one far from it; a photo a later run decided without the track (no
    /// --track that night) is decided again with it.
    func testAnUnchangedTrackIsReadOnlyForAPhotoInItsTime() throws {
        let (_, photos, phone, db) = try library()
        try FileManager.default.copyItem(atPath: fixtures.appendingPathComponent("segments.gpx").path, toPath: phone + "/track.gpx")
        _ = try importJSON(photos, db: db, track: phone)
        // A photo of the next day (2024-05-02T08:05:00Z), 19 h 5 min after F6: the track is not read.
        try FileManager.default.copyItem(atPath: fixtures.appendingPathComponent("antimeridian/crossing.jpg").path, toPath: photos + "/crossing.jpg")
        let far = try importJSON(photos, db: db, track: phone)
        XCTAssertEqual(far.tracks.first?["state"] as? String, "unchanged")
        XCTAssertEqual(far.counts["read"] as? Int, 1)
        let skipped = try XCTUnwrap((far.json["skipped"] as? [[String: Any]])?.first { $0["photo"] as? String == "crossing.jpg" })
        // The nearest fix is F6, the end of the file not read.
        XCTAssertEqual(skipped["detail"] as? String, "no GPS position; nearest track fix 19 h 5 min away (after the track)")
        // A photo imported on a night without --track: 10:05:00Z on a clock 100 s fast, so
        // 10:05:00Z as pins reads it (no --camera-clock-offset), half of F1..F2.
        try FileManager.default.copyItem(atPath: fixtures.appendingPathComponent("clock/clock-fast.jpg").path, toPath: photos + "/clock-fast.jpg")
        let without = try importJSON(photos, db: db, track: nil)
        XCTAssertEqual((without.counts["skipped"] as? [String: Int])?["noLocation"], 1)
        let again = try importJSON(photos, db: db, track: phone)
        XCTAssertEqual(again.tracks.first?["state"] as? String, "reread")
        XCTAssertEqual(Array(again.redecided.keys), ["clock-fast.jpg"])
        // (48.05, 2.1) is 2.6 km from the pin of between-fixes.jpg (48.0333, 2.0667): distance.
        XCTAssertEqual(again.redecided["clock-fast.jpg"]?["decision"] as? String, "distance")
        XCTAssertEqual(again.redecided["clock-fast.jpg"]?["secondsToTrackFix"] as? Double, 300)
        // That night had the track: the next one decides nothing again and reads nothing.
        let next = try importJSON(photos, db: db, track: phone)
        XCTAssertEqual(next.counts["redecidedForTracks"] as? Int, 0)
        XCTAssertEqual(next.tracks.first?["state"] as? String, "unchanged")
    }

    /// The tracks are remembered per imported folder: a track already read for one library is
    /// new to another, whose photos skipped for no location are decided again against every pin
    /// (the distance rule), their camera's zone given by --camera-timezone.
    func testATrackIsNewToAnotherFolderAndItsPhotosAreDecidedAgainstAllPins() throws {
        let (dir, photos, phone, db) = try library()
        try FileManager.default.copyItem(atPath: fixtures.appendingPathComponent("segments.gpx").path, toPath: phone + "/track.gpx")
        _ = try importJSON(photos, db: db, track: phone)
        XCTAssertEqual(try pins(db).count, 8)
        // A camera set to New York time, without offsets: 06:03:20 and 09:15:00 on its clock.
        let other = dir.appendingPathComponent("camera").path
        try FileManager.default.copyItem(atPath: fixtures.appendingPathComponent("local").path, toPath: other)
        let first = try importJSON(other, db: db, track: nil)
        XCTAssertEqual((first.counts["skipped"] as? [String: Int])?["noLocation"], 2)
        let r = try CLI.run(["import", other, "--db", db, "--timezone", "UTC", "--json", "--track", phone,
                             "--camera-timezone", "America/New_York"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = Report(json: try XCTUnwrap(CLI.json(r.stdout) as? [String: Any]), stderr: r.stderr)
        XCTAssertEqual(report.tracks.first?["state"] as? String, "new")
        // 10:03:20Z is where and when between-fixes.jpg made its pin (a third of F1..F2): the
        // rules see that instant (issue 36 item 1: the camera's zone decides it once, not only
        // for the track), 0 s after an accepted photo: interval. 13:15:00Z is 900 s after F6,
        // where after-last-within.jpg made a pin: too close to it.
        XCTAssertEqual(Set(report.redecided.keys), ["new-york-between-fixes.jpg", "new-york-after-last.jpg"])
        XCTAssertEqual(report.redecided["new-york-between-fixes.jpg"]?["decision"] as? String, "interval")
        XCTAssertEqual(report.redecided["new-york-between-fixes.jpg"]?["secondsToTrackFix"] as? Double, 200)
        XCTAssertEqual(report.redecided["new-york-after-last.jpg"]?["decision"] as? String, "distance")
        XCTAssertEqual(report.redecided["new-york-after-last.jpg"]?["secondsToTrackFix"] as? Double, 900)
        XCTAssertEqual(try pins(db).count, 8)
        // The first folder's record of the track is as it was: unchanged there.
        XCTAssertEqual(try importJSON(photos, db: db, track: phone).tracks.first?["state"] as? String, "unchanged")
    }

    /// Writes `data` (of the file's size) over the file in place and puts its modification time
    /// back: the same size, inode and time, other bytes.
    /// A camera clock found wrong after the tracks were used: the same track, unchanged, and
    /// `--camera-clock-offset +15:00` given alone. The photos whose corrected instant the track
    /// covers (09:30Z ... 13:30Z) are decided again: before-first-too-far.jpg (09:20:00Z as read,
    /// 09:35:00Z by the corrected clock, 1500 s before F1, within the 1800 s the rule reaches) is
    /// placed at F1 (48.0, 2.0), where before-first-within.jpg's pin already is (0 km: skipped
    /// for distance, a photo of that pin); wide-gap.jpg (12:10Z, now 12:25Z: 2100 s from F6 in a
    /// gap of the track) is decided again and stays without a location. after-last-too-far.jpg
    /// (13:40Z, now 13:55Z) is outside: not read. A next run with the same offset reads nothing.
    func testACorrectedCameraClockDecidesAgainThePhotosItMovesIntoAnUnchangedTrack() throws {
        let (_, photos, phone, db) = try library()
        try FileManager.default.copyItem(atPath: fixtures.appendingPathComponent("segments.gpx").path, toPath: phone + "/track.gpx")
        let tracked = try importJSON(photos, db: db, track: phone)
        XCTAssertEqual(tracked.counts["created"] as? Int, 8)
        XCTAssertEqual(try records(db)["before-first-too-far.jpg"]?.0, "noLocation")

        let corrected = try importJSON(photos, db: db, track: phone, extra: ["--camera-clock-offset", "+15:00"])
        XCTAssertEqual(Set(corrected.redecided.keys), ["before-first-too-far.jpg", "wide-gap.jpg"])
        XCTAssertEqual(corrected.redecided["before-first-too-far.jpg"]?["decision"] as? String, "distance")
        XCTAssertEqual(corrected.redecided["wide-gap.jpg"]?["decision"] as? String, "noLocation")
        let placed = try sqlite(db, "SELECT latitude, longitude, taken_at FROM photos WHERE CAST(path AS TEXT) LIKE '%/before-first-too-far.jpg'") {
            ($0.double(0), $0.double(1), $0.double(2))
        }
        XCTAssertEqual(placed.first?.0, 48.0)
        XCTAssertEqual(placed.first?.1, 2.0)
        XCTAssertEqual(placed.first?.2, 1714555200 + 900, "09:35:00Z")
        XCTAssertEqual(try records(db)["after-last-too-far.jpg"]?.0, "noLocation")
        XCTAssertEqual(try pins(db).count, 8)

        let again = try importJSON(photos, db: db, track: phone, extra: ["--camera-clock-offset", "+15:00"])
        XCTAssertEqual(again.counts["redecidedForTracks"] as? Int, 0)
        XCTAssertEqual(again.counts["read"] as? Int, 0)
    }

    /// A photo's instant is decided once, when it is read: a corrected clock offset reads no
    /// photo a track placed again, so their pins stay where the old offset put them. The run
    /// says so on stderr, naming the run and its undo. Run 2 (no offset) placed 9 photos by the
    /// track: the 8 pins and between-fixes-subsec.jpg (skipped for the interval). A run with
    /// +15:00 (run 3), dry or not, names those 9 of run 2; after `pins runs undo 2`, an import
    /// with +15:00 places them at the new instants: between-fixes.jpg (10:03:20Z, now 10:18:20Z)
    /// 500 s into F2..F3 (1799 s). Then a run with the same offset, or with none (the nightly
    /// run), says nothing.
    func testACorrectedCameraClockNamesThePhotosATrackPlacedAtTheOldOneAndTheirRun() throws {
        let (_, photos, phone, db) = try library()
        try FileManager.default.copyItem(atPath: fixtures.appendingPathComponent("segments.gpx").path, toPath: phone + "/track.gpx")
        XCTAssertEqual(try importJSON(photos, db: db, track: phone).counts["created"] as? Int, 8)
        let said = "pins import: 9 photos placed by a track or the photos around keep the position an earlier camera zone or clock "
            + "offset gave (run 2: 9), and their pins stay there: this run's zone and offset apply to the photos it reads. "
            + "To place them again at this run's: pins runs undo 2, then this import again.\n"
        let dry = try importJSON(photos, db: db, track: phone, dryRun: true, extra: ["--camera-clock-offset", "+15:00"])
        XCTAssertTrue(dry.stderr.hasSuffix(said), dry.stderr)
        let corrected = try importJSON(photos, db: db, track: phone, extra: ["--camera-clock-offset", "+15:00"])
        XCTAssertTrue(corrected.stderr.hasSuffix(said), corrected.stderr)
        assertPin(try pins(db), "between-fixes.jpg", 48.0 + 0.1 / 3, 2.0 + 0.2 / 3)

        XCTAssertEqual(try CLI.run(["runs", "undo", "2", "--db", db]).status, 0)
        let placed = try importJSON(photos, db: db, track: phone, extra: ["--camera-clock-offset", "+15:00"])
        XCTAssertFalse(placed.stderr.contains("keep the position"), placed.stderr)
        assertPin(try pins(db), "between-fixes.jpg", 48.1 + 0.1 * 500 / 1799, 2.2 + 0.1 * 500 / 1799)
        XCTAssertFalse(try importJSON(photos, db: db, track: phone, extra: ["--camera-clock-offset", "+15:00"]).stderr.contains("keep the position"))
        XCTAssertFalse(try importJSON(photos, db: db, track: phone).stderr.contains("keep the position"))
    }

    func replaceKeepingFingerprint(_ path: String, with data: Data) throws {
        var before = stat()
        XCTAssertEqual(stat(path, &before), 0)
        XCTAssertEqual(Int(before.st_size), data.count)
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        try handle.write(contentsOf: data)
        try handle.close()
        var times = [before.st_atim, before.st_mtim]
        XCTAssertEqual(utimensat(AT_FDCWD, path, &times, 0), 0)
        var after = stat()
        XCTAssertEqual(stat(path, &after), 0)
        XCTAssertEqual(after.st_ino, before.st_ino)
        XCTAssertEqual(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec)
        XCTAssertEqual(after.st_mtim.tv_sec, before.st_mtim.tv_sec)
    }
}
