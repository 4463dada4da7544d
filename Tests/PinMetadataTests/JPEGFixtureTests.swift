import Foundation
@testable import PinCore
@testable import PinMetadata
import XCTest

/// Compares our readings of every file that `scripts/make-fixtures` wrote with ExifTool's own
/// (`Fixtures/formats/exiftool-jpeg.json`, `exiftool -j -n`). Fails, never skips, when the
/// fixtures are missing.
final class JPEGFixtureTests: XCTestCase {
    let mtime = epoch(1_735_646_400)  // 2024-12-31 12:00:00Z, what make-fixtures sets

    /// Files whose GPS tags are deliberately unusable: ExifTool may still print numbers for them.
    let expectedIssues: [String: String] = [
        "zero-zero.jpg": "0,0 (no GPS fix)",
        "DSC01003.JPG": "0,0 (no GPS fix)",
        "lat-out-of-range.jpg": "latitude out of range",
        "zero-denominator.jpg": "zero denominator",
    ]

    /// Files that must be refused as unreadable (truncated inside the Exif segment).
    let expectedUnreadable: Set<String> = ["truncated-in-exif.jpg", "PXL_20230903_101500123.jpg"]

    /// Hand-worked offsets for files with DateTimeOriginal and GPS date/time but no
    /// OffsetTimeOriginal (section 7 step 3), from ExifTool's printed stamps; nil = rejected.
    let expectedInferredOffsets: [String: Int?] = [
        "gps-time-nepal.jpg": 20_700,      // L 17:00:00, G 11:15:00 same day → +05:45
        "IMG_3002.jpg": 20_700,            // same readings
        "gps-time-midnight.jpg": 7_200,    // L 07-14 01:59:40, G 07-13 23:59:50 → +02:00
        "gps-time-stale.jpg": nil,         // L 10:11:12, G 08:04:12: residual 7 min
    ]

    /// ExifTool's readings of the JPEG fixtures, by path (the order the test walks them in).
    private func loadReadings() throws -> [[String: Any]] {
        let readings = try exifToolReadings("exiftool-jpeg.json", madeBy: "scripts/make-fixtures", minimum: 21)
        return readings.keys.sorted().map { readings[$0]! }
    }

    func testAgainstExifTool() throws {
        let readings = try loadReadings()
        var checkedPositions = 0, checkedTimes = 0
        for entry in readings {
            let source = try XCTUnwrap(entry["SourceFile"] as? String)
            let name = (source as NSString).lastPathComponent
            let path = repoRoot().appendingPathComponent(source).path
            let label = "\(source)"

            let result: PhotoMetadata?
            do {
                result = try MetadataReader.read(path: RawPath(path), modificationTime: mtime, options: optionsUTC)
            } catch {
                XCTAssertTrue(expectedUnreadable.contains(name), "\(label): unexpected error \(error)")
                continue
            }
            XCTAssertFalse(expectedUnreadable.contains(name), "\(label): should be unreadable")
            guard entry["FileType"] as? String == "JPEG" else {
                XCTAssertNil(result, "\(label): ExifTool says \(entry["FileType"] ?? "?"), we said media")
                continue
            }
            let m = try XCTUnwrap(result, "\(label): a JPEG read as not media")
            XCTAssertEqual(m.format.rawValue, "jpeg", label)

            // Position.
            let lat = entry["GPSLatitude"] as? Double, lon = entry["GPSLongitude"] as? Double
            if let issue = expectedIssues[name] {
                XCTAssertNil(m.coordinate, label)
                XCTAssertEqual(m.locationIssue, issue, label)
                XCTAssertNil(m.positionSource, label)
            } else if let lat, let lon {
                let c = try XCTUnwrap(m.coordinate, "\(label): ExifTool has \(lat),\(lon); issue \(m.locationIssue ?? "-")")
                XCTAssertEqual(c.latitude, lat, accuracy: 1e-6, label)
                XCTAssertEqual(c.longitude, lon, accuracy: 1e-6, label)
                XCTAssertEqual(m.positionSource, .exif, label)
                if let altitude = entry["GPSAltitude"] as? Double {
                    XCTAssertEqual(try XCTUnwrap(m.altitude, label), altitude, accuracy: 1e-6, label)
                }
                checkedPositions += 1
            } else {
                XCTAssertNil(m.coordinate, "\(label): ExifTool has no position")
            }
            if entry["GPSStatus"] as? String == "V" {
                XCTAssertTrue(m.warnings.contains { $0.contains("GPSStatus is V") }, label)
            }

            // Time.
            let dto = (entry["DateTimeOriginal"] as? String).flatMap(Self.parseExifToolDate)
            let offset = (entry["OffsetTimeOriginal"] as? String).flatMap(Self.parseExifToolOffset)
            if let subsec = (entry["SubSecDateTimeOriginal"] as? String).flatMap(Self.parseExifToolInstant) {
                XCTAssertEqual(try XCTUnwrap(m.takenAt, label).timeIntervalSince1970,
                               subsec.timeIntervalSince1970, accuracy: 1e-3, label)
                XCTAssertEqual(m.timeSource, .exifOffset, label)
                XCTAssertEqual(m.utcOffsetSeconds, offset, label)
                checkedTimes += 1
            } else if let dto, let offset {
                // ExifTool printed no SubSecDateTimeOriginal (e.g. a dashed date it would not
                // combine); the instant is DateTimeOriginal − OffsetTimeOriginal.
                XCTAssertEqual(m.takenAt, dto.addingTimeInterval(-Double(offset)), label)
                XCTAssertEqual(m.timeSource, .exifOffset, label)
                checkedTimes += 1
            } else if let dto, entry["GPSTimeStamp"] != nil {
                guard let expected = expectedInferredOffsets[name] else {
                    XCTFail("\(label): add a hand-worked GPS-inferred offset for this file")
                    continue
                }
                if let expected {
                    XCTAssertEqual(m.timeSource, .gpsInferredOffset, label)
                    XCTAssertEqual(m.utcOffsetSeconds, expected, label)
                    XCTAssertEqual(m.takenAt, dto.addingTimeInterval(-Double(expected)), label)
                } else {
                    XCTAssertEqual(m.timeSource, .assumedZone, label)
                    XCTAssertEqual(m.takenAt, dto, label)  // default zone UTC in this test
                }
                checkedTimes += 1
            } else if let dto {
                XCTAssertEqual(m.timeSource, .assumedZone, label)
                XCTAssertEqual(m.takenAt, dto, label)
                XCTAssertEqual(m.utcOffsetSeconds, 0, label)
                checkedTimes += 1
            } else {
                // No date, or one ExifTool prints but nobody can read (zeros, blanks).
                XCTAssertEqual(m.timeSource, .fileModification, label)
                XCTAssertEqual(m.takenAt, mtime, label)
            }
        }
        XCTAssertGreaterThan(checkedPositions, 20)
        XCTAssertGreaterThan(checkedTimes, 20)
    }

    func testNamedFixturesExist() throws {
        let dir = repoRoot().appendingPathComponent("Fixtures/formats/jpeg")
        for name in ["le-dms", "be-dms", "decimal-minutes", "decimal-degrees", "south-west",
                     "altitude-below-sea", "zero-zero", "zero-denominator", "lat-out-of-range", "no-gps",
                     "no-date", "offset-time", "offset-negative-half", "gps-time-nepal", "gps-time-midnight",
                     "gps-time-stale", "com-before-app1", "app0-then-app1", "xmp-before-exif", "blank-date",
                     "zero-date", "dash-date", "truncated-in-exif", "truncated-after-exif", "gps-status-void",
                     "absurd-count-date", "zero-count-date"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: dir.appendingPathComponent(name + ".jpg").path), name)
        }
    }

    /// A date tag that is there but unusable falls back to the file's time with a warning that
    /// names the tag and says so (issue 22); before, zeros, blanks and a count libexif could not
    /// load fell back in silence.
    func testUnusableDatesFallBackToTheFileTimeWithAWarning() throws {
        let dir = repoRoot().appendingPathComponent("Fixtures/formats/jpeg")
        let expected = [
            "zero-date.jpg": "DateTimeOriginal '0000:00:00 00:00:00' is not a valid date: the file's modification time is used",
            "blank-date.jpg": "DateTimeOriginal is blank: the file's modification time is used",
            "absurd-count-date.jpg": "DateTimeOriginal is ASCII × 2147483647 that cannot be read: the file's modification time is used",
            "zero-count-date.jpg": "DateTimeOriginal is ASCII × 0 that cannot be read: the file's modification time is used",
        ]
        for (name, warning) in expected.sorted(by: { $0.key < $1.key }) {
            let m = try XCTUnwrap(MetadataReader.read(path: RawPath(dir.appendingPathComponent(name).path),
                                                      modificationTime: mtime, options: optionsUTC), name)
            XCTAssertEqual(m.timeSource, .fileModification, name)
            XCTAssertEqual(m.takenAt, mtime, name)
            XCTAssertTrue(m.warnings.contains(warning), "\(name): \(m.warnings)")
            XCTAssertNotNil(m.coordinate, name)  // the rest of the Exif is still read
        }
        // A good date gets no such warning.
        let good = try XCTUnwrap(MetadataReader.read(path: RawPath(dir.appendingPathComponent("le-dms.jpg").path),
                                                     modificationTime: mtime, options: optionsUTC))
        XCTAssertFalse(good.warnings.contains { $0.contains("modification time") }, "\(good.warnings)")
    }

    func testLittleAndBigEndianFixturesAgree() throws {
        let dir = repoRoot().appendingPathComponent("Fixtures/formats/jpeg")
        let le = try XCTUnwrap(MetadataReader.read(path: RawPath(dir.appendingPathComponent("le-dms.jpg").path),
                                                   modificationTime: mtime, options: optionsUTC))
        let be = try XCTUnwrap(MetadataReader.read(path: RawPath(dir.appendingPathComponent("be-dms.jpg").path),
                                                   modificationTime: mtime, options: optionsUTC))
        XCTAssertEqual(le.coordinate, be.coordinate)
        XCTAssertEqual(le.takenAt, be.takenAt)
        XCTAssertNotEqual(le.metadataDigest, be.metadataDigest, "different TIFF bytes, different digest")
    }

    func testEveryPrefixOfEveryFixtureFailsCleanly() throws {
        let dir = repoRoot().appendingPathComponent("Fixtures/formats/jpeg")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".jpg") }
        XCTAssertGreaterThan(names.count, 20)
        for name in names.sorted() {
            let bytes = try Array(Data(contentsOf: dir.appendingPathComponent(name)))
            for length in 0...bytes.count {
                // Any of: metadata, nil, or a thrown MetadataError; a crash fails the whole run.
                do {
                    _ = try MetadataReader.read(bytes: Array(bytes.prefix(length)), modificationTime: nil,
                                                options: optionsUTC)
                } catch is MetadataError {
                } catch {
                    XCTFail("\(name) prefix \(length): non-MetadataError \(error)")
                }
            }
        }
    }

    // MARK: Independent parsers for ExifTool's printed values (Foundation Calendar, not ours)

    /// "YYYY:MM:DD HH:MM:SS" as UTC, strictly.
    static func parseExifToolDate(_ text: String) -> Date? {
        let parts = text.split(whereSeparator: { $0 == ":" || $0 == " " }).compactMap { Int($0) }
        guard text.count == 19, parts.count == 6, parts[0] > 0, parts[1] > 0, parts[2] > 0 else {
            // ExifTool prints a dashed date as is; accept that form too.
            let dashed = text.split(whereSeparator: { $0 == "-" || $0 == ":" || $0 == " " }).compactMap { Int($0) }
            guard text.count == 19, dashed.count == 6, dashed[0] > 0 else { return nil }
            return utcDate(dashed, fraction: 0)
        }
        return utcDate(parts, fraction: 0)
    }

    /// "+HH:MM" → seconds.
    static func parseExifToolOffset(_ text: String) -> Int? {
        guard text.count == 6, let sign = text.first, sign == "+" || sign == "-" else { return nil }
        let hm = text.dropFirst().split(separator: ":").compactMap { Int($0) }
        guard hm.count == 2 else { return nil }
        return (hm[0] * 3600 + hm[1] * 60) * (sign == "-" ? -1 : 1)
    }

    /// "YYYY:MM:DD HH:MM:SS[.fff]±HH:MM" → instant; nil for anything else.
    static func parseExifToolInstant(_ text: String) -> Date? {
        guard text.count >= 25 else { return nil }
        let offsetText = String(text.suffix(6))
        guard let offset = parseExifToolOffset(offsetText) else { return nil }
        let body = text.dropLast(6)
        guard let local = parseExifToolDate(String(body.prefix(19))) else { return nil }
        var fraction = 0.0
        if body.count > 19 {
            guard body.dropFirst(19).first == ".", let f = Double("0" + body.dropFirst(19)) else { return nil }
            fraction = f
        }
        return local.addingTimeInterval(fraction - Double(offset))
    }

    private static func utcDate(_ p: [Int], fraction: Double) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: p[0], month: p[1], day: p[2], hour: p[3], minute: p[4], second: p[5])
        return calendar.date(from: components)?.addingTimeInterval(fraction)
    }
}
