import Foundation
import PinCore
@testable import PinMetadata
import XCTest

/// Every file `scripts/fixtures-stills` wrote (issue 14's remaining still-image containers: BigTIFF,
/// JPEG Extended XMP, GIF XMP after the first image, camera raws), read by us and compared with
/// ExifTool's own reading (`Fixtures/formats/exiftool-stills.json`, `exiftool -j -n -G1 -a`), by
/// the rules of `ContainerFixtureTests`. Fails, never skips, when the fixtures are missing.
final class StillFixtureTests: XCTestCase {
    typealias Expected = ContainerFixtureTests.Expected

    let expected: [String: Expected] = [
        // BigTIFF. ExifTool 12.57 reads a BigTIFF's GPS directory with its Exif tag table (it
        // names tag 1 InteropIndex and so on, and has no Composite position), so the position is
        // compared with its reading of the classic TIFF the BigTIFF was written from (same
        // values; `testBigTIFFTimeAsExifToolReadsIt` checks the time on the BigTIFF itself).
        "bigtiff/bigtiff-exif-gps-source.tif": ContainerFixtureTests.exifWithOffset("tiff"),
        "bigtiff/bigtiff-exif-gps.tif":
            Expected(format: "tiff", time: .tag("Composite:SubSecDateTimeOriginal"), timeSource: .exifOffset,
                     timeTag: "DateTimeOriginal", positionSource: "exif", sameAs: "bigtiff/bigtiff-exif-gps-source.tif"),
        "bigtiff/bigtiff-xmp-tag700.tif":
            Expected(format: "tiff", time: .tag("XMP-xmp:CreateDate"), timeSource: .isoWithOffset,
                     timeTag: "XMP xmp:CreateDate", positionSource: "xmp"),
    ]

    static func stillsDir() -> URL { repoRoot().appendingPathComponent("Fixtures/formats/stills") }

    static func loadReadings() throws -> [String: [String: Any]] {
        try exifToolReadings("exiftool-stills.json", madeBy: "scripts/fixtures-stills",
                             droppingPrefix: "Fixtures/formats/stills/")
    }

    func testAgainstExifTool() throws {
        let readings = try Self.loadReadings()
        XCTAssertEqual(Set(readings.keys), Set(expected.keys), "fixtures and expectations differ")
        for name in readings.keys.sorted() {
            let want = try XCTUnwrap(expected[name], name)
            try ContainerFixtureTests.assertAgreesWithExifTool(name, want, readings: readings,
                                                               path: Self.stillsDir().appendingPathComponent(name).path)
        }
    }

    func testPrefixesAndFlipsFailCleanly() throws {
        let names = try Self.loadReadings().keys.sorted()
        let outcomes = try ContainerFixtureTests.assertPrefixesAndFlipsFailCleanly(Self.stillsDir(), names: names)
        XCTAssertGreaterThanOrEqual(outcomes, names.count * 200)
    }

    /// The BigTIFF's own time as ExifTool reads it, and the altitude, an 8-byte RATIONAL that
    /// BigTIFF keeps inside its value field (moved out of line in the classic copy).
    func testBigTIFFTimeAsExifToolReadsIt() throws {
        let readings = try Self.loadReadings()
        let big = try XCTUnwrap(readings["bigtiff/bigtiff-exif-gps.tif"])
        let source = try XCTUnwrap(readings["bigtiff/bigtiff-exif-gps-source.tif"])
        XCTAssertEqual(big["File:FileType"] as? String, "BTF")
        XCTAssertEqual(big["Composite:SubSecDateTimeOriginal"] as? String, source["Composite:SubSecDateTimeOriginal"] as? String)
        let bytes = try Array(Data(contentsOf: Self.stillsDir().appendingPathComponent("bigtiff/bigtiff-exif-gps.tif")))
        XCTAssertEqual(Array(bytes[0..<4]), [0x49, 0x49, 0x2B, 0x00])
        let m = try XCTUnwrap(try MetadataReader.read(bytes: bytes, modificationTime: nil, options: optionsUTC))
        XCTAssertEqual(try XCTUnwrap(m.altitude), try XCTUnwrap(source["Composite:GPSAltitude"] as? Double), accuracy: 1e-9)
    }
}
