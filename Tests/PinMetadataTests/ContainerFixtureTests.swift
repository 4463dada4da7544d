import Foundation
@testable import PinCore
@testable import PinMetadata
import XCTest

/// Every file `scripts/fixtures-containers` wrote (issue 14: date rules, XMP in every container,
/// more containers), read by us and compared with ExifTool's own reading
/// (`Fixtures/formats/exiftool-containers.json`, `exiftool -j -n -G1 -a`). Which ExifTool tags
/// give the expected time is said per file, with the source that must win. Fails, never skips,
/// when the fixtures are missing.
final class ContainerFixtureTests: XCTestCase {
    typealias Expected = ExifToolComparison.Expected

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
        // A space before the offset (issue 24): ExifTool reads the offset, so do we.
        "dates/xmp-datecreated-space-before-offset.jpg":
            Expected(format: "jpeg", time: .tag("XMP-photoshop:DateCreated"), timeSource: .isoWithOffset,
                     timeTag: "XMP photoshop:DateCreated", positionSource: nil),
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
        // The newer packet's trailer ends at byte 2,929 of the 7,139-byte APP1 packet; the older
        // packet's tail follows (worked from the file: `xmp-over-older` in the script).
        "xmp/jpeg-xmp-leftover-of-older-packet.jpg":
            Expected(format: "jpeg", time: .tag("XMP-exif:DateTimeOriginal"), timeSource: .isoWithOffset,
                     timeTag: "XMP exif:DateTimeOriginal", positionSource: "xmp",
                     warnings: ["4210 bytes after the end of the XMP packet (from byte 2929): ignored"]),
        // QuickTime ©day and movies that do not start with ftyp (class 3).
        "video/mov-udta-day-with-offset.mov": movieDay("UserData:ContentCreateDate", "QuickTime udta ©day", position: true),
        "video/mp4-ilst-day-with-offset.mp4": movieDay("ItemList:ContentCreateDate", "QuickTime ilst ©day", position: false),
        "video/mov-day-without-offset-and-mvhd.mov":
            Expected(format: "quicktime", time: .tag("QuickTime:CreateDate"), timeSource: .containerUTC,
                     timeTag: "QuickTime mvhd", positionSource: nil),
        // udta `date` with its offset beats mvhd (06:00:00Z, 2 h 11 min earlier), issue 24.
        "video/mov-udta-date-with-offset-and-mvhd.mov":
            Expected(format: "quicktime", time: .tag("UserData:DateTimeOriginal"), timeSource: .isoWithOffset,
                     timeTag: "QuickTime udta date", positionSource: nil),
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
        // JPEG 2000 (issue 24): Exif and XMP in `uuid` boxes after the codestream, XMP in an `xml `
        // box (ExifTool shows it as XML-exif tags, the GPS as the text `48,51.504N` `2,17.67E`:
        // 48 + 51.504/60, 2 + 17.67/60), a GDAL JPX whose XMP `uuid` comes with a GDAL `xml `
        // box that is not XMP.
        "other/jpeg2000-bare-codestream.j2c":
            Expected(format: "jp2", time: .modificationTime, timeSource: .fileModification, timeTag: nil, positionSource: nil),
        "other/jpeg2000-exif-uuid.jp2": exifWithOffset("jp2"),
        "other/jpeg2000-xmp-uuid.jp2": xmpOnly("jp2"),
        "other/jpeg2000-gdal-jpx-xmp-uuid.jpx": xmpOnly("jp2"),
        "other/jpeg2000-gdal-xmp-xml-box.jp2":
            Expected(format: "jp2", time: .tag("XML-exif:DateTimeOriginal"), timeSource: .isoWithOffset,
                     timeTag: "XMP exif:DateTimeOriginal", locationText: ("XML-exif:GPSLatitude", 48.8584, 2.2945),
                     positionSource: "xmp"),
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

    func testAgainstExifTool() throws {
        try ExifToolComparison.assertEveryFileAgrees(expected, readings: Self.loadReadings(),
                                                     dir: Self.formatsDir().appendingPathComponent("containers"))
    }

    /// Every prefix of every fixture and deterministic byte flips: a result or a
    /// `MetadataError`, never a crash, and never a position the whole file does not have.
    func testPrefixesAndFlipsFailCleanly() throws {
        let outcomes = try Self.assertPrefixesAndFlipsFailCleanly(
            Self.formatsDir().appendingPathComponent("containers"), names: Self.loadReadings().keys.sorted())
        XCTAssertGreaterThan(outcomes, 1_000)
    }

    /// The files `names` under `dir`, each cut at `prefixes` prefixes and with `flips`
    /// deterministic byte flips (from `seed`) in its first `flipWithin` bytes; returns how many
    /// readings ended in a result or a `MetadataError` (of one non-empty line).
    static func assertPrefixesAndFlipsFailCleanly(_ dir: URL, names: [String], seed: UInt64 = 0x2545_F491_4F6C_DD1D,
                                                  prefixes: Int = 200, flips: Int = 100, flipWithin: Int = 4_096) throws -> Int {
        var state = seed
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33)
        }
        var outcomes = 0
        for name in names {
            let bytes = try Array(Data(contentsOf: dir.appendingPathComponent(name)))
            let full = (try? MetadataReader.read(bytes: bytes, modificationTime: nil, options: optionsUTC)) ?? nil
            var variants: [[UInt8]] = stride(from: 0, to: bytes.count, by: max(1, bytes.count / prefixes)).map { Array(bytes[0..<$0]) }
            for _ in 0..<flips {
                var copy = bytes
                let at = next() % min(copy.count, flipWithin)
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
                    XCTAssertFalse("\(error)".isEmpty || "\(error)".contains("\n"), "\(name): '\(error)'")
                    outcomes += 1
                }
            }
        }
        return outcomes
    }
}
