import Foundation
@testable import PinCore
@testable import PinImport
import TestSupport
import XCTest

/// `TrackRun` (issue 29 item 4): which photos skipped for "no location" a run's tracks decide
/// again, and which track files it reads. On Fixtures/tracks/segments.gpx: fixes from
/// 2024-05-01T10:00:00Z (1714557600) to 13:00:00Z (1714568400), so with the default limits
/// (1800 s) it covers 1714555800 ... 1714570200.
final class TrackRunTests: XCTestCase {
    static let gpx = Repository.url("Fixtures/tracks/segments.gpx").path
    let root = RawPath("/photos")
    let f1 = 1714557600.0, f6 = 1714568400.0

    var options: TrackOptions {
        var o = TrackOptions()
        o.paths = [Self.gpx]
        return o
    }

    /// The record an earlier run (`seen`) left of the fixture, unchanged since.
    func record(seen: Int64?) throws -> TrackRecord {
        let key = try XCTUnwrap(TrackRun.key(Self.gpx))
        return TrackRecord(root: root, path: key.path, fingerprint: key.fingerprint, format: "GPX", points: 6,
                           first: f1, last: f6, readRunID: 1, seenRunID: seen)
    }

    func photo(_ t: Double, _ source: TimeSource = .exifOffset, offset: Int? = 0, run: Int64? = 1) -> UnplacedPhoto {
        UnplacedPhoto(takenAt: t, timeSource: source, utcOffsetSeconds: offset, runID: run)
    }

    func testANewFileDecidesAgainThePhotosInItsTimeWidenedByTheLimits() {
        let run = TrackRun(options: options, root: root, records: [])
        XCTAssertEqual(run.files.map(\.state), [.new])
        XCTAssertEqual(run.files.first?.points, 6)
        XCTAssertTrue(run.redecides(photo(f1 - 1800)))
        XCTAssertFalse(run.redecides(photo(f1 - 1800.5)))
        XCTAssertTrue(run.redecides(photo(f6 + 1800)))
        XCTAssertFalse(run.redecides(photo(f6 + 1801)))
        XCTAssertTrue(run.redecides(photo((f1 + f6) / 2)))
        // Only a file-modification time: no instant for the tracks.
        XCTAssertFalse(run.redecides(photo(f1, .fileModification)))
        XCTAssertFalse(run.redecides(UnplacedPhoto(takenAt: nil, timeSource: nil, utcOffsetSeconds: nil, runID: 1)))
        // The reach is the wider of the two limits.
        var wide = options
        wide.limits.maxGap = 7200
        XCTAssertTrue(TrackRun(options: wide, root: root, records: []).redecides(photo(f6 + 7200)))
    }

    func testACameraZoneMovesTheInstantAsForAPhotoRead() {
        // A wall clock of 06:03:20 without an offset, read in UTC (--timezone UTC): 06:03:20Z is
        // 3 h 56 min 40 s before F1, outside. In New York (EDT, UTC-4) it is 10:03:20Z, inside.
        let wall = f1 - 4 * 3600 + 200
        XCTAssertFalse(TrackRun(options: options, root: root, records: []).redecides(photo(wall, .assumedZone)))
        var ny = options
        ny.cameraTimeZone = TimeZone(identifier: "America/New_York")
        XCTAssertTrue(TrackRun(options: ny, root: root, records: []).redecides(photo(wall, .assumedZone)))
        // A clock 4 h slow, corrected by --camera-clock-offset.
        var slow = options
        slow.clockOffset = 4 * 3600
        XCTAssertTrue(TrackRun(options: slow, root: root, records: []).redecides(photo(wall, .assumedZone)))
    }

    func testAnUnchangedFileIsNotReadAndDecidesAgainOnlyWhatALaterRunDecidedWithoutIt() throws {
        let run = TrackRun(options: options, root: root, records: [try record(seen: 5)])
        XCTAssertEqual(run.files.map(\.state), [.unchanged])
        XCTAssertEqual(run.files.first?.points, 6)
        XCTAssertEqual(run.set.timeline.count, 0, "not read")
        // Decided by run 5 (which had the file) or before: not again; by run 6, without it: again.
        XCTAssertFalse(run.redecides(photo(f1, run: 5)))
        XCTAssertTrue(run.redecides(photo(f1, run: 6)))
        XCTAssertFalse(run.redecides(photo(f6 + 3600, run: 6)))
        // What the run keeps: the same record, seen by the new run.
        let kept = run.records(runID: 7)
        XCTAssertEqual(kept.count, 1)
        XCTAssertEqual(kept.first?.seenRunID, 7)
        XCTAssertEqual(kept.first?.readRunID, 1)
    }

    func testAnUnchangedFileIsReadForAPhotoInItsTimeAndItsEndsGiveTheReasonOtherwise() throws {
        var run = TrackRun(options: options, root: root, records: [try record(seen: 5)])
        // A day after F6: the file stays unread, and its last fix is the nearest.
        let far = run.tracks(for: [f6 + 86_400])
        XCTAssertEqual(far.timeline.count, 0)
        XCTAssertEqual(run.files.first?.state, .unchanged)
        XCTAssertEqual(TrackSet.counting(far.unread, in: far.timeline.match(f6 + 86_400), at: f6 + 86_400),
                       .tooFar(secondsToNearestFix: 86_400, where: .afterTrack))
        XCTAssertEqual(TrackSet.counting(far.unread, in: far.timeline.match(f1 - 60), at: f1 - 60),
                       .tooFar(secondsToNearestFix: 60, where: .beforeTrack))
        // At F1 + 5 min: read, once.
        let near = run.tracks(for: [f6 + 86_400, f1 + 300])
        XCTAssertEqual(run.files.first?.state, .reread)
        XCTAssertEqual(near.timeline.count, 6)
        XCTAssertTrue(near.unread.isEmpty)
        // Half of F1 (48.0, 2.0) .. F2 (48.1, 2.2), 10 min apart.
        guard case let .position(c, d, _, _) = near.timeline.match(f1 + 300) else { return XCTFail("no position") }
        XCTAssertEqual(c.latitude, 48.05, accuracy: 1e-12)
        XCTAssertEqual(c.longitude, 2.1, accuracy: 1e-12)
        XCTAssertEqual(d, 300)
        XCTAssertEqual(run.records(runID: 8).first?.readRunID, 1, "the content is the one run 1 read")
    }

    /// Six loggers' CSV files, one a day (each two fixes at 10:00Z and 11:00Z), recorded by an
    /// earlier run: each photo's day reads that day's file; after four such loads the rest is
    /// read at once. A photo between two days' files, both unread, is "in a gap" of the tracks.
    func testUnchangedFilesAreReadDayByDayThenAllAtOnce() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pins-trackrun-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let day = 86_400.0, start = 1714557600.0  // 2024-05-01T10:00:00Z
        for d in 0..<6 {
            try Data("lat,lon,time\n48.\(d),2.0,\(Int(start + Double(d) * day))\n48.\(d),2.1,\(Int(start + Double(d) * day + 3600))\n".utf8)
                .write(to: dir.appendingPathComponent("day\(d).csv"))
        }
        var o = TrackOptions()
        o.paths = [dir.path]
        let first = TrackRun(options: o, root: root, records: [])
        XCTAssertEqual(first.files.map(\.state), Array(repeating: .new, count: 6))
        var run = TrackRun(options: o, root: root, records: first.records(runID: 1))
        XCTAssertEqual(run.files.map(\.state), Array(repeating: .unchanged, count: 6))
        // Between day 0 (ends 11:00Z) and day 1 (starts 10:00Z the next day): 23 h from both ends.
        let between = start + 3600 + day / 2 - 1800
        XCTAssertEqual(TrackSet.counting(run.set.unread, in: run.set.timeline.match(between), at: between),
                       .tooFar(secondsToNearestFix: 11.5 * 3600, where: .inGap))
        for d in 0..<4 {
            _ = run.tracks(for: [start + Double(d) * day + 1800])
            XCTAssertEqual(run.files.map(\.state).filter { $0 == .reread }.count, d + 1)
            XCTAssertEqual(run.files[d].state, .reread)
        }
        // A photo far from every file: after four loads, the two left are read anyway.
        let set = run.tracks(for: [start - 10 * day])
        XCTAssertEqual(run.files.map(\.state), Array(repeating: .reread, count: 6))
        XCTAssertEqual(set.timeline.count, 12)
        XCTAssertTrue(run.tracks(for: [start]).unread.isEmpty)
    }

    func testAChangedFileIsReadAndRecordedByTheRunThatReadIt() throws {
        var old = try record(seen: 5)
        old.fingerprint.modificationNanoseconds -= 1
        let run = TrackRun(options: options, root: root, records: [old])
        XCTAssertEqual(run.files.map(\.state), [.changed])
        XCTAssertEqual(run.set.timeline.count, 6)
        XCTAssertTrue(run.redecides(photo(f1, run: 1)))
        let kept = try XCTUnwrap(run.records(runID: 9).first)
        XCTAssertEqual(kept.readRunID, 9)
        XCTAssertEqual(kept.seenRunID, 9)
        XCTAssertEqual(kept.fingerprint, try XCTUnwrap(TrackRun.key(Self.gpx)).fingerprint)
        XCTAssertEqual(kept.first, f1)
        XCTAssertEqual(kept.last, f6)
    }
}
