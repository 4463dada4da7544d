import Foundation
import PinCore
@testable import PinMetadata
import XCTest

/// Every file `scripts/fixtures-containers` wrote (issue 14: date rules, XMP in every container,
/// more containers), read by us and compared with ExifTool's own reading
/// (`Fixtures/formats/exiftool-containers.json`, `exiftool -j -n -G1 -a`). Which ExifTool tags
/// give the expected time is said per file, with the source that must win. Fails, never skips,
/// when the fixtures are missing.
final class ContainerFixtureTests: XCTestCase {
    let mtime = epoch(1_735_646_400)  // 2024-12-31 12:00:00Z, what the script sets

    /// Where the expected capture time comes from, in ExifTool's reading.
    enum Time {
        /// This tag's value, with the offset it carries (none: read in UTC, the tests' zone).
        case tag(String)
        /// The wall clock of the first tag with the offset written in the second.
        case wallWithOffsetOf(String, String)
        /// No capture time: the file's mtime.
        case modificationTime
    }

    struct Expected {
        var format: String
        var time: Time
        var timeSource: TimeSource
        var timeTag: String?
        /// nil: no position (ExifTool has none either).
        var positionSource: String?
        var warnings: [String] = []
        /// The file must be refused with this message.
        var error: String?
        /// Compare with ExifTool's reading of this file instead (one ExifTool cannot read).
        var sameAs: String?
    }

    let expected: [String: Expected] = [
        // Dates (class 1).
        "dates/xmp-date-disagrees-with-exif.jpg":
            Expected(format: "jpeg", time: .tag("ExifIFD:DateTimeOriginal"), timeSource: .assumedZone,
                     timeTag: "DateTimeOriginal", positionSource: nil,
                     warnings: ["XMP xmp:CreateDate (2023:07:15 09:00:00) differs from DateTimeOriginal (2023:07:14 10:11:12): the EXIF date is kept"]),
        "dates/xmp-offset-lent-to-exif.jpg":
            Expected(format: "jpeg", time: .wallWithOffsetOf("ExifIFD:DateTimeOriginal", "XMP-photoshop:DateCreated"),
                     timeSource: .isoWithOffset, timeTag: "DateTimeOriginal + offset of XMP photoshop:DateCreated",
                     positionSource: nil),
        "dates/xmp-createdate-before-datecreated.jpg":
            Expected(format: "jpeg", time: .tag("XMP-xmp:CreateDate"), timeSource: .isoWithOffset,
                     timeTag: "XMP xmp:CreateDate", positionSource: nil),
        "dates/xmp-date-without-time.jpg":
            Expected(format: "jpeg", time: .modificationTime, timeSource: .fileModification, timeTag: nil,
                     positionSource: nil),
        "dates/xmp-offset-one-digit-hour.jpg":
            Expected(format: "jpeg", time: .tag("XMP-exif:DateTimeOriginal"), timeSource: .isoWithOffset,
                     timeTag: "XMP exif:DateTimeOriginal", positionSource: nil),
        "dates/datetimedigitized-only.jpg":
            Expected(format: "jpeg", time: .tag("Composite:SubSecCreateDate"), timeSource: .exifOffset,
                     timeTag: "DateTimeDigitized", positionSource: nil),
        // XMP in other containers (class 2).
        "xmp/png-itxt.png": xmpOnly("png"),
        "xmp/png-itxt-compressed.png": xmpOnly("png"),
        "xmp/png-ztxt.png": xmpOnly("png"),
        "xmp/png-text.png": xmpOnly("png"),
        "xmp/tiff-tag700.tif":
            Expected(format: "tiff", time: .tag("XMP-xmp:CreateDate"), timeSource: .isoWithOffset,
                     timeTag: "XMP xmp:CreateDate", positionSource: "xmp"),
        "xmp/webp-xmp-chunk.webp": xmpOnly("webp"),
        "xmp/jpeg-xmp-getty-header.jpg":
            Expected(format: "jpeg", time: .tag("XMP-exif:DateTimeOriginal"), timeSource: .isoWithOffset,
                     timeTag: "XMP exif:DateTimeOriginal", positionSource: "xmp",
                     warnings: ["APP1 XMP segment at byte 20 has a non-standard header"]),
        "xmp/jpeg-junk-between-segments.jpg":
            Expected(format: "jpeg", time: .tag("Composite:SubSecDateTimeOriginal"), timeSource: .exifOffset,
                     timeTag: "DateTimeOriginal", positionSource: "xmp",
                     warnings: ["5 junk bytes at byte 20 before the next marker: skipped"]),
        // QuickTime ©day and movies that do not start with ftyp (class 3).
        "video/mov-udta-day-with-offset.mov": movieDay("UserData:ContentCreateDate", "QuickTime udta ©day", position: true),
        "video/mp4-ilst-day-with-offset.mp4": movieDay("ItemList:ContentCreateDate", "QuickTime ilst ©day", position: false),
        "video/mov-day-without-offset-and-mvhd.mov":
            Expected(format: "quicktime", time: .tag("QuickTime:CreateDate"), timeSource: .containerUTC,
                     timeTag: "QuickTime mvhd", positionSource: nil),
        "video/first-atom-free.mov": movieDay("UserData:ContentCreateDate", "QuickTime udta ©day", position: true),
        "video/first-atom-skip.mov": movieDay("UserData:ContentCreateDate", "QuickTime udta ©day", position: true),
        "video/first-atom-junk.mov": movieDay("UserData:ContentCreateDate", "QuickTime udta ©day", position: true),
        "video/first-atom-wide.mov": movieDay("UserData:ContentCreateDate", "QuickTime udta ©day", position: true),
        "video/first-atom-uuid.mov": movieDay("UserData:ContentCreateDate", "QuickTime udta ©day", position: true),
        // EXIF that libexif alone gets wrong (class 4).
        "exif/ifd0-thumbnail-length-past-end.jpg":
            Expected(format: "jpeg", time: .tag("Composite:SubSecDateTimeOriginal"), timeSource: .exifOffset,
                     timeTag: "DateTimeOriginal", positionSource: "exif",
                     warnings: ["libexif ExifData: Tag data past end of buffer (12 > 362)",
                                "libexif stopped in IFD0: the Exif and GPS directories were read on a second pass"]),
        "exif/gps-as-text-dms.jpg":
            Expected(format: "jpeg", time: .tag("Composite:SubSecDateTimeOriginal"), timeSource: .exifOffset,
                     timeTag: "DateTimeOriginal", positionSource: "exif",
                     warnings: ["GPSLatitude is written as text ('35 39 30.8916')",
                                "GPSLongitude is written as text ('139 44 43.5588')"]),
        "exif/gps-as-text-decimal.jpg":
            Expected(format: "jpeg", time: .tag("Composite:SubSecDateTimeOriginal"), timeSource: .exifOffset,
                     timeTag: "DateTimeOriginal", positionSource: "exif",
                     warnings: ["GPSLatitude is written as text ('35.658581')", "GPSLongitude is written as text ('139.745433')"]),
        // More containers (class 5).
        "other/fujifilm-embedded-jpeg.raf":
            exifWithOffset("raf"),
        "other/photoshop.psd":
            exifWithOffset("psd"),
        "other/photoshop-xmp-only.psd": xmpOnly("psd"),
        "other/jpegxl-bare-codestream.jxl":
            Expected(format: "jxl", time: .modificationTime, timeSource: .fileModification, timeTag: nil, positionSource: nil),
        "other/jpegxl-exif-box.jxl":
            exifWithOffset("jxl"),
        "other/jpegxl-xml-box.jxl": xmpOnly("jxl"),
        "other/jpegxl-brob-source.jpg":
            exifWithOffset("jpeg"),
        // ExifTool 12.57 cannot read `brob` (Brotli came in 12.63): the source JPEG's reading.
        "other/jpegxl-brob-boxes.jxl":
            Expected(format: "jxl", time: .tag("Composite:SubSecDateTimeOriginal"), timeSource: .exifOffset,
                     timeTag: "DateTimeOriginal", positionSource: "exif", sameAs: "other/jpegxl-brob-source.jpg"),
        "other/gif-no-metadata.gif":
            Expected(format: "gif", time: .modificationTime, timeSource: .fileModification, timeTag: nil, positionSource: nil),
        "other/gif-xmp-extension.gif": xmpOnly("gif"),
    ]

    /// EXIF DateTimeOriginal with its own offset, EXIF GPS.
    static func exifWithOffset(_ format: String) -> Expected {
        Expected(format: format, time: .tag("Composite:SubSecDateTimeOriginal"), timeSource: .exifOffset,
                 timeTag: "DateTimeOriginal", positionSource: "exif")
    }

    static func movieDay(_ tag: String, _ timeTag: String, position: Bool) -> Expected {
        Expected(format: "quicktime", time: .tag(tag), timeSource: .isoWithOffset, timeTag: timeTag,
                 positionSource: position ? "quicktime" : nil)
    }

    static func xmpOnly(_ format: String) -> Expected {
        Expected(format: format, time: .tag("XMP-exif:DateTimeOriginal"), timeSource: .isoWithOffset,
                 timeTag: "XMP exif:DateTimeOriginal", positionSource: "xmp")
    }

    static func formatsDir() -> URL { repoRoot().appendingPathComponent("Fixtures/formats") }

    static func loadReadings() throws -> [String: [String: Any]] {
        try exifToolReadings("exiftool-containers.json", madeBy: "scripts/fixtures-containers",
                             droppingPrefix: "Fixtures/formats/containers/")
    }

    /// ExifTool's `YYYY:MM:DD HH:MM:SS[.ss][±H:MM|Z]` (its -n form of EXIF, XMP and QuickTime
    /// dates) → (seconds if the wall clock were UTC, offset or nil). Worked with Foundation's
    /// Gregorian calendar, independently of the reader's arithmetic.
    static func parseExifToolDate(_ text: String) -> (wall: Double, offset: Int?)? {
        let pattern = #"^(\d{4}):(\d{2}):(\d{2}) (\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{1,2}:\d{2})?$"#
        guard let regex = try? NSRegularExpression(pattern: pattern),
              let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) else { return nil }
        func group(_ i: Int) -> String? {
            Range(match.range(at: i), in: text).map { String(text[$0]) }
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = (1...6).map { Int(group($0)!)! }
        let components = DateComponents(year: parts[0], month: parts[1], day: parts[2], hour: parts[3],
                                        minute: parts[4], second: parts[5])
        guard let date = calendar.date(from: components) else { return nil }
        let fraction = group(7).flatMap { Double("0" + $0) } ?? 0
        var offset: Int?
        if let zone = group(8) {
            if zone == "Z" {
                offset = 0
            } else {
                let sign = zone.hasPrefix("-") ? -1 : 1
                let hm = zone.dropFirst().split(separator: ":").map { Int($0)! }
                offset = sign * (hm[0] * 3_600 + hm[1] * 60)
            }
        }
        return (date.timeIntervalSince1970 + fraction, offset)
    }

    func testAgainstExifTool() throws {
        try Self.assertEveryFileAgrees(expected, readings: Self.loadReadings(),
                                       dir: Self.formatsDir().appendingPathComponent("containers"))
    }

    /// Every file ExifTool read (under `dir`) has an expectation and agrees with its reading.
    static func assertEveryFileAgrees(_ expected: [String: Expected], readings: [String: [String: Any]], dir: URL) throws {
        XCTAssertEqual(Set(readings.keys), Set(expected.keys), "fixtures and expectations differ")
        for name in readings.keys.sorted() {
            let want = try XCTUnwrap(expected[name], name)
            try assertAgreesWithExifTool(name, want, readings: readings, path: dir.appendingPathComponent(name).path)
        }
    }

    /// Reads the file at `path` and compares it with ExifTool's reading `readings[name]` (or of
    /// `want.sameAs`): format, warnings, position and its source, time and its source.
    static func assertAgreesWithExifTool(_ name: String, _ want: Expected, readings: [String: [String: Any]],
                                         path: String) throws {
        let mtime = epoch(1_735_646_400)  // what the fixture scripts set
        let entry = try XCTUnwrap(readings[want.sameAs ?? name])
        if let error = want.error {
            XCTAssertThrowsError(try MetadataReader.read(path: RawPath(path), modificationTime: mtime, options: optionsUTC)) {
                XCTAssertEqual("\($0)", error, name)
            }
            return
        }
        let m = try XCTUnwrap(try MetadataReader.read(path: RawPath(path), modificationTime: mtime, options: optionsUTC),
                              "\(name): read as not media")
        XCTAssertEqual(m.format.rawValue, want.format, name)
        XCTAssertEqual(m.warnings, want.warnings, name)

        // Position: ExifTool's (signed, -n), from EXIF GPS (Composite) or XMP.
        let lat = (entry["Composite:GPSLatitude"] ?? entry["XMP-exif:GPSLatitude"]) as? Double
        let lon = (entry["Composite:GPSLongitude"] ?? entry["XMP-exif:GPSLongitude"]) as? Double
        if let lat, let lon {
            let c = try XCTUnwrap(m.coordinate, "\(name): ExifTool has \(lat),\(lon); issue \(m.locationIssue ?? "-")")
            XCTAssertEqual(c.latitude, lat, accuracy: 1e-6, name)
            XCTAssertEqual(c.longitude, lon, accuracy: 1e-6, name)
            XCTAssertEqual(m.positionSource?.rawValue, want.positionSource, name)
        } else {
            XCTAssertNil(want.positionSource, "\(name): ExifTool has no position")
            XCTAssertNil(m.coordinate, name)
        }

        // Time.
        XCTAssertEqual(m.timeSource, want.timeSource, name)
        XCTAssertEqual(m.timeTag, want.timeTag, name)
        switch want.time {
        case .modificationTime:
            XCTAssertEqual(m.takenAt, mtime, name)
        case .tag(let tag):
            let text = try XCTUnwrap(entry[tag] as? String, "\(name): ExifTool has no \(tag)")
            let (wall, offset) = try XCTUnwrap(Self.parseExifToolDate(text), "\(name): \(text)")
            XCTAssertEqual(try XCTUnwrap(m.takenAt, name).timeIntervalSince1970, wall - Double(offset ?? 0),
                           accuracy: 1e-3, name)
            // A UTC value (mvhd) carries no offset of the wall clock.
            XCTAssertEqual(m.utcOffsetSeconds, want.timeSource == .containerUTC ? nil : offset ?? 0, name)
        case .wallWithOffsetOf(let wallTag, let offsetTag):
            let wallText = try XCTUnwrap(entry[wallTag] as? String, "\(name): ExifTool has no \(wallTag)")
            let offsetText = try XCTUnwrap(entry[offsetTag] as? String, "\(name): ExifTool has no \(offsetTag)")
            let wall = try XCTUnwrap(Self.parseExifToolDate(wallText)).wall
            let offset = try XCTUnwrap(Self.parseExifToolDate(offsetText)?.offset, "\(name): \(offsetText)")
            XCTAssertEqual(try XCTUnwrap(m.takenAt, name).timeIntervalSince1970, wall - Double(offset),
                           accuracy: 1e-3, name)
            XCTAssertEqual(m.utcOffsetSeconds, offset, name)
        }
    }

    /// Every prefix of every fixture and deterministic byte flips: a result or a
    /// `MetadataError`, never a crash, and never a position the whole file does not have.
    func testPrefixesAndFlipsFailCleanly() throws {
        let outcomes = try Self.assertPrefixesAndFlipsFailCleanly(
            Self.formatsDir().appendingPathComponent("containers"), names: Self.loadReadings().keys.sorted())
        XCTAssertGreaterThan(outcomes, 1_000)
    }

    /// The files `names` under `dir`, each cut at 200 prefixes and with 100 deterministic byte
    /// flips; returns how many readings ended in a result or a `MetadataError`.
    static func assertPrefixesAndFlipsFailCleanly(_ dir: URL, names: [String]) throws -> Int {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33)
        }
        var outcomes = 0
        for name in names {
            let bytes = try Array(Data(contentsOf: dir.appendingPathComponent(name)))
            let full = (try? MetadataReader.read(bytes: bytes, modificationTime: nil, options: optionsUTC)) ?? nil
            var variants: [[UInt8]] = stride(from: 0, to: bytes.count, by: max(1, bytes.count / 200)).map { Array(bytes[0..<$0]) }
            for _ in 0..<100 {
                var copy = bytes
                let at = next() % min(copy.count, 4_096)
                copy[at] = UInt8(truncatingIfNeeded: next())
                variants.append(copy)
            }
            for variant in variants {
                do {
                    let m = try MetadataReader.read(bytes: variant, modificationTime: nil, options: optionsUTC)
                    if let c = m?.coordinate, variant.count < bytes.count {
                        XCTAssertEqual(c, full?.coordinate, "\(name) prefix \(variant.count): a position the file does not have")
                    }
                    outcomes += 1
                } catch let error as MetadataError {
                    XCTAssertFalse("\(error)".isEmpty)
                    outcomes += 1
                }
            }
        }
        return outcomes
    }
}
