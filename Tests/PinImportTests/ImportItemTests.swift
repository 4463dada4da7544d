import XCTest
@testable import PinCore
@testable import PinImport

/// An item keeps the metadata the import uses compactly; what comes back must be exactly what
/// went in, for every field the rules, the records and the reports read.
final class ImportItemTests: XCTestCase {
    let entry = FileEntry(relativePath: RawPath("2023/IMG_0001.jpg"), size: 10, modificationNanoseconds: 1_700_000_000_123_456_789,
                          inode: 3, device: 1)

    func testEveryFieldTheImportUsesComesBackExactly() {
        // 2023-07-14T10:11:12.39+02:00; a coordinate with all its digits; a 16-hex digest.
        let taken = Date(timeIntervalSince1970: 1_689_322_272.39)
        let m = PhotoMetadata(format: .heif, coordinate: Coordinate(latitude: 48.858370000000001, longitude: -2.2944810000000002),
                              altitude: 35, locationIssue: nil, positionSource: .xmpSidecar, takenAt: taken,
                              utcOffsetSeconds: 7200, timeSource: .exifOffset, timeTag: "DateTimeOriginal",
                              warnings: ["a warning"], metadataDigest: "00f0e1d2c3b4a596")
        let item = ImportItem(entry: entry, metadata: m, decision: .noLocation)
        let back = item.metadata!
        XCTAssertEqual(back.format.rawValue, "heif")
        XCTAssertEqual(back.coordinate, Coordinate(latitude: 48.858370000000001, longitude: -2.2944810000000002))
        XCTAssertEqual(item.coordinate, back.coordinate)
        XCTAssertEqual(back.positionSource, .xmpSidecar)
        XCTAssertNil(back.locationIssue)
        XCTAssertEqual(back.takenAt, taken)
        XCTAssertEqual(back.takenAt?.timeIntervalSinceReferenceDate.bitPattern, taken.timeIntervalSinceReferenceDate.bitPattern)
        XCTAssertEqual(back.utcOffsetSeconds, 7200)
        XCTAssertEqual(back.timeSource, .exifOffset)
        XCTAssertEqual(back.metadataDigest, "00f0e1d2c3b4a596", "leading zeros kept")
        XCTAssertEqual(item.takenAtText, "2023-07-14T10:11:12.390+02:00")
        // Not kept: the import never reads them (pins inspect does, from the file).
        XCTAssertNil(back.altitude)
        XCTAssertNil(back.timeTag)
        XCTAssertEqual(back.warnings, [])
    }

    func testAbsentValuesStayAbsent() {
        let m = PhotoMetadata(format: .png, locationIssue: "0,0 (no fix)", timeSource: .none)
        let item = ImportItem(entry: entry, metadata: m, decision: .noLocation)
        let back = item.metadata!
        XCTAssertNil(back.coordinate)
        XCTAssertNil(back.takenAt)
        XCTAssertNil(back.utcOffsetSeconds)
        XCTAssertNil(back.metadataDigest)
        XCTAssertNil(back.positionSource)
        XCTAssertEqual(back.locationIssue, "0,0 (no fix)")
        // Without a capture time the rules use the file's modification time.
        XCTAssertEqual(item.takenAt, Date(timeIntervalSince1970: 1_700_000_000.123456789))
        // A zero offset is an offset (UTC), not none.
        var utc = m
        utc.utcOffsetSeconds = 0
        XCTAssertEqual(ImportItem(entry: entry, metadata: utc, decision: .noLocation).metadata?.utcOffsetSeconds, 0)
    }

    /// Only 16 lowercase hex digits become a number; anything else comes back as it was.
    func testDigestsThatAreNotSixteenLowercaseHexDigitsAreKeptAsText() {
        for digest in ["d1", "ABCDEF0123456789", "0123456789abcdef0", "0123456789abcdeg", ""] {
            let m = PhotoMetadata(format: .jpeg, metadataDigest: digest)
            XCTAssertEqual(ImportItem(entry: entry, metadata: m, decision: .noLocation).metadata?.metadataDigest, digest)
        }
        XCTAssertEqual(StoredDigest.hexValue("ffffffffffffffff"), UInt64.max)
        XCTAssertEqual(StoredDigest.hexValue("0000000000000010"), 16)
        XCTAssertNil(StoredDigest.hexValue("ABCDEF0123456789"))
        // A known file's digest (read from the database as bytes) comes back the same way.
        for digest in ["d1", "ABCDEF0123456789", "0123456789abcdef0", "0123456789abcdeg", "", "0000000000000010", "é"] {
            let known = KnownPhoto(fingerprint: entry.fingerprint, digest: digest, missing: false)
            XCTAssertEqual(known.digest, digest)
            let fromBytes = Array(digest.utf8).withUnsafeBytes { StoredDigest(utf8: $0) }
            XCTAssertEqual(fromBytes.text, digest)
            XCTAssertEqual(fromBytes, known.storedDigest)
        }
        XCTAssertEqual(StoredDigest("0000000000000010"), .value(16))
        XCTAssertEqual(StoredDigest("0000000000000010 "), .text("0000000000000010 "))
    }

    func testErrorAndPinAreKeptApartAndTogether() {
        let plan = PinPlan(id: UUID(uuidString: "12345678-1234-1234-1234-123456789ABC")!, country: "FR", title: "France, 2023-07-14")
        var item = ImportItem(entry: entry, decision: .notMedia)
        XCTAssertNil(item.error)
        XCTAssertNil(item.pin)
        item.error = "truncated"
        item.pin = plan
        XCTAssertEqual(item.error, "truncated")
        XCTAssertEqual(item.pin, plan)
        XCTAssertEqual(item.country, "FR")
        item.error = nil
        XCTAssertNil(item.error)
        XCTAssertEqual(item.title, "France, 2023-07-14")
        // Items are values: a copy changed does not change the original.
        var copy = item
        copy.pin = nil
        XCTAssertEqual(item.pin, plan)
        XCTAssertNil(copy.pin)
    }
}
