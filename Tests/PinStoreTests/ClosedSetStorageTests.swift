import Foundation
@testable import PinStore
@testable import PinCore
import XCTest

/// Closed sets (run status, format, time source, decision, a run's skip reasons) are stored as the texts below, written out
/// by hand: the database, `pins runs --json` and the reports print them, so a renamed case must
/// not change a stored byte. A stored text outside the set is a read error naming it.
final class ClosedSetStorageTests: XCTestCase {
    func testStoredTextsAreTheOnesEarlierVersionsWrote() {
        XCTAssertEqual(RunStatus.allCases.map(\.rawValue), ["running", "completed", "interrupted", "failed", "undone"])
        XCTAssertEqual(TimeSource.allCases.map(\.rawValue),
                       ["exifOffset", "isoWithOffset", "gpsInferredOffset", "containerUTC", "assumedZone",
                        "localTimeZoneOfPosition", "gpsTime", "modifyDate", "fileModification", "none"])
        // "gpsTime" and "modifyDate" (issue 36 item 2) are new: the GPS date and time stamp, and
        // IFD0 DateTime, both tried before the file's modification time.
        // "track" (issue 29) is new: a position from the person's own track files.
        // "estimate" (issue 36 item 4) is new: a position from the photos taken around it.
        XCTAssertEqual(PositionSource.allCases.map(\.rawValue), ["exif", "xmp", "quicktime", "matroska", "xmp-sidecar", "takeout", "track", "estimate"])
        XCTAssertEqual(PhotoDecision.allCases.map(\.rawValue),
                       ["accepted", "noLocation", "interval", "distance", "unreadable", "notMedia"])
        // "jp2" (issue 24) is new: JPEG 2000.
        XCTAssertEqual(FileKind.allCases.map(\.rawValue),
                       ["jpeg", "heif", "png", "webp", "tiff", "quicktime", "raf", "psd", "jxl", "gif", "mrw", "crw", "x3f", "mpegts", "avi", "matroska", "jp2", "notMedia"])
        // Interpolation prints the stored text, not the case name.
        XCTAssertEqual("\(PositionSource.xmpSidecar) \(PositionSource.quickTime) \(RunStatus.undone)", "xmp-sidecar quicktime undone")
    }

    func testARunIsStoredWithItsStatusText() throws {
        let db = try PinDatabase(path: try temporaryDatabasePath(self))
        let id = try db.write { try $0.runs.start(root: "/photos", at: Date(timeIntervalSince1970: 1_700_000_000)) }
        XCTAssertEqual(try db.connection.query("SELECT status FROM runs WHERE id = ?", [id]) { $0.string(0) }, ["running"])
        XCTAssertEqual(try db.run(id: id)?.status, .running)
        try db.write {
            try $0.runs.finish(ImportRunRecord(id: id, root: "/photos", startedAt: Date(timeIntervalSince1970: 1_700_000_000),
                                               finishedAt: Date(timeIntervalSince1970: 1_700_000_060), status: .interrupted,
                                               exitCode: 130))
        }
        XCTAssertEqual(try db.connection.query("SELECT status FROM runs WHERE id = ?", [id]) { $0.string(0) }, ["interrupted"])
        XCTAssertEqual(try db.run(id: id)?.status, .interrupted)
    }

    /// A run's skip counts are keyed by `PhotoDecision` in the model and stored as the JSON
    /// object earlier versions wrote (written out by hand); an unknown reason is a read error.
    func testARunsSkipCountsKeepTheirStoredTextAndAnUnknownReasonIsAReadError() throws {
        let db = try PinDatabase(path: try temporaryDatabasePath(self))
        let id = try db.write { try $0.runs.start(root: "/photos", at: Date(timeIntervalSince1970: 1_700_000_000)) }
        let skipped: [PhotoDecision: Int] = [.noLocation: 4, .interval: 5, .distance: 2, .unreadable: 1]
        try db.write {
            try $0.runs.finish(ImportRunRecord(id: id, root: "/photos", startedAt: Date(timeIntervalSince1970: 1_700_000_000),
                                               finishedAt: Date(timeIntervalSince1970: 1_700_000_060), status: .completed,
                                               exitCode: 0, skipped: skipped))
        }
        XCTAssertEqual(try db.connection.query("SELECT skipped FROM runs WHERE id = ?", [id]) { $0.string(0) },
                       [#"{"distance":2,"interval":5,"noLocation":4,"unreadable":1}"#])
        XCTAssertEqual(try db.run(id: id)?.skipped, skipped)

        _ = try db.connection.run(#"UPDATE runs SET skipped = '{"interval":1,"tooDark":2}' WHERE id = ?"#, [id])
        XCTAssertThrowsError(try db.run(id: id)) { error in
            XCTAssertEqual((error as? StorageError)?.reason, .unknownValue(column: "skipped", value: "tooDark"))
        }
    }

    func testAnUnknownRunStatusIsAReadErrorNamingIt() throws {
        let db = try PinDatabase(path: try temporaryDatabasePath(self))
        let id = try db.write { try $0.runs.start(root: "/photos", at: Date(timeIntervalSince1970: 1_700_000_000)) }
        _ = try db.connection.run("UPDATE runs SET status = 'paused' WHERE id = ?", [id])
        XCTAssertThrowsError(try db.run(id: id)) { error in
            XCTAssertEqual((error as? StorageError)?.reason, .unknownValue(column: "status", value: "paused"))
            XCTAssertEqual("\(error)", "cannot read \(db.connection.path): status 'paused' is not one this version of pins knows "
                                       + "(written by a newer version, or edited by hand)")
        }
    }

    func testAPhotoKeepsItsTimeSourceAndAnUnknownOneIsAReadError() throws {
        let db = try PinDatabase(path: try temporaryDatabasePath(self))
        let record = PhotoRecord(path: RawPath("/photos/a.jpg"), fingerprint: PhotoFingerprint(size: 10, modificationNanoseconds: 1, inode: 2),
                                 digest: "0123456789abcdef", format: .jpeg, takenAt: Date(timeIntervalSince1970: 1_700_000_000),
                                 timeSource: .gpsInferredOffset, utcOffsetSeconds: 3600, decision: .noLocation)
        try db.write { try $0.photos.save(record, runID: nil) }
        XCTAssertEqual(try db.connection.query("SELECT format, time_source, decision FROM photos") { [$0.string(0), $0.string(1), $0.string(2)] },
                       [["jpeg", "gpsInferredOffset", "noLocation"]])
        XCTAssertEqual(try db.read { try $0.photos.find(size: 10, digest: "0123456789abcdef") }?.timeSource, .gpsInferredOffset)

        _ = try db.connection.run("UPDATE photos SET time_source = 'sundial'")
        XCTAssertThrowsError(try db.read { try $0.photos.find(size: 10, digest: "0123456789abcdef") }) { error in
            XCTAssertEqual((error as? StorageError)?.reason, .unknownValue(column: "time_source", value: "sundial"))
        }
        // The schema's CHECK lists today's decisions; a newer version's file may hold another.
        try db.connection.execute("PRAGMA ignore_check_constraints = ON")
        _ = try db.connection.run("UPDATE photos SET time_source = NULL, format = 'bmp'")
        XCTAssertThrowsError(try db.read { try $0.photos.find(size: 10, digest: "0123456789abcdef") }) { error in
            XCTAssertEqual((error as? StorageError)?.reason, .unknownValue(column: "format", value: "bmp"))
        }
        _ = try db.connection.run("UPDATE photos SET format = 'jpeg', decision = 'maybe'")
        XCTAssertThrowsError(try db.read { try $0.photos.find(size: 10, digest: "0123456789abcdef") }) { error in
            XCTAssertEqual((error as? StorageError)?.reason, .unknownValue(column: "decision", value: "maybe"))
        }
    }
}
