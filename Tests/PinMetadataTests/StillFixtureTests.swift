import Foundation
@testable import PinCore
@testable import PinMetadata
import XCTest

/// Every file `scripts/fixtures-stills` wrote (issue 14's remaining still-image containers: BigTIFF,
/// JPEG Extended XMP, GIF XMP after the first image, camera raws), read by us and compared with
/// ExifTool's own reading (`Fixtures/formats/exiftool-stills.json`, `exiftool -j -n -G1 -a`), by
/// the rules of `ExifToolComparison`. Fails, never skips, when the fixtures are missing.
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
        // JPEG Extended XMP: the main packet holds only xmpNote:HasExtendedXMP.
        "jpeg/jpeg-extended-xmp.jpg": ContainerFixtureTests.xmpOnly("jpeg"),
        "jpeg/jpeg-extended-xmp-split-reordered.jpg": ContainerFixtureTests.xmpOnly("jpeg"),
        // GIF: the XMP extension after both frames' image data.
        "gif/gif-xmp-after-the-images.gif": ContainerFixtureTests.xmpOnly("gif"),
        // Older camera raws: MRW's TTW TIFF; CRW's CIFF TimeStamp (a wall clock, no GPS).
        "raw/minolta-ttw-exif-gps.mrw": ContainerFixtureTests.exifWithOffset("mrw"),
        "raw/canon-ciff-timestamp.crw":
            Expected(format: "crw", time: .tag("CanonRaw:DateTimeOriginal"), timeSource: .assumedZone,
                     timeTag: "DateTimeOriginal", positionSource: nil),
        "raw/sigma-jpgfromraw-exif.x3f": ContainerFixtureTests.exifWithOffset("x3f"),
        "raw/sigma-prop-time.x3f":
            Expected(format: "x3f", time: .tag("SigmaRaw:DateTimeOriginal"), timeSource: .assumedZone,
                     timeTag: "DateTimeOriginal", positionSource: nil),
    ]

    static func stillsDir() -> URL { repoRoot().appendingPathComponent("Fixtures/formats/stills") }

    static func loadReadings() throws -> [String: [String: Any]] {
        try exifToolReadings("exiftool-stills.json", madeBy: "scripts/fixtures-stills",
                             droppingPrefix: "Fixtures/formats/stills/")
    }

    func testAgainstExifTool() throws {
        try ExifToolComparison.assertEveryFileAgrees(expected, readings: Self.loadReadings(), dir: Self.stillsDir())
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

    /// Extended XMP chunks of another GUID than the one the main packet names are left out
    /// (ExifTool's rule): with the GUID of the fixture's chunk changed in memory, nothing of
    /// the extension is read. A chunk missing makes it incomplete, with a warning.
    func testExtendedXMPChunksAreCheckedAndComplete() throws {
        let url = Self.stillsDir().appendingPathComponent("jpeg/jpeg-extended-xmp-split-reordered.jpg")
        let bytes = try Array(Data(contentsOf: url))
        let id = Array("http://ns.adobe.com/xmp/extension/\0".utf8)
        var chunks: [Int] = []
        var i = 0
        while let at = JPEG.firstIndex(of: id, in: Array(bytes[i...])).map({ $0 + i }) {
            chunks.append(at)
            i = at + id.count
        }
        XCTAssertEqual(chunks.count, 3)
        let whole = try XCTUnwrap(try MetadataReader.read(bytes: bytes, modificationTime: nil, options: optionsUTC))
        XCTAssertNotNil(whole.coordinate)

        var otherGUID = bytes
        for chunk in chunks { otherGUID[chunk + id.count] ^= 0x01 }  // 'E' -> 'D'
        let other = try XCTUnwrap(try MetadataReader.read(bytes: otherGUID, modificationTime: nil, options: optionsUTC))
        XCTAssertNil(other.coordinate)
        XCTAssertNil(other.takenAt)
        XCTAssertEqual(other.warnings, [])

        // The first chunk in the file (the last third) renamed to an unknown APP1.
        var missing = bytes
        missing[chunks[0]] = UInt8(ascii: "X")
        let partial = try XCTUnwrap(try MetadataReader.read(bytes: missing, modificationTime: nil, options: optionsUTC))
        XCTAssertNil(partial.coordinate)
        XCTAssertEqual(partial.warnings.count, 1)
        XCTAssertTrue(partial.warnings[0].hasPrefix("Extended XMP E7C87FFBE6CF8092BC5E471735EA46E4 is incomplete"), partial.warnings[0])
    }

    /// The GIF walk past the first image is bounded: an image of more than
    /// `maxGIFBytesPastFirstImage` inserted before the fixture's images hides the XMP after
    /// them, and says so; a smaller one does not. A GIF cut inside its image data gives a
    /// warning, no error.
    func testGIFWalkPastTheFirstImageIsBounded() throws {
        let bytes = try Array(Data(contentsOf: Self.stillsDir().appendingPathComponent("gif/gif-xmp-after-the-images.gif")))
        // The first image: after the header, the global colour table and the extensions (GIF89a).
        var firstImage = 13 + (bytes[10] & 0x80 != 0 ? 3 << (Int(bytes[10] & 7) + 1) : 0)
        while bytes[firstImage] == 0x21 {
            firstImage += 2
            while bytes[firstImage] != 0 { firstImage += 1 + Int(bytes[firstImage]) }
            firstImage += 1
        }
        XCTAssertEqual(bytes[firstImage], 0x2C)
        func withImage(ofBytes n: Int) -> [UInt8] {
            let blocks = n / 255
            var image: [UInt8] = [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2]
            image.reserveCapacity(11 + blocks * 256 + 1)
            for _ in 0..<blocks { image += [255] + [UInt8](repeating: 0, count: 255) }
            image.append(0)
            return Array(bytes[..<firstImage]) + image + Array(bytes[firstImage...])
        }
        let near = try XCTUnwrap(try MetadataReader.read(bytes: withImage(ofBytes: 64 * 1024), modificationTime: nil, options: optionsUTC))
        XCTAssertNotNil(near.coordinate)
        let far = try XCTUnwrap(try MetadataReader.read(bytes: withImage(ofBytes: MetadataLimits.maxGIFBytesPastFirstImage + 1024),
                                                        modificationTime: nil, options: optionsUTC))
        XCTAssertNil(far.coordinate)
        // Not silent: a warning (pins inspect) and the reason the import's skip detail gives.
        // The walk stops at the first block more than 4 MiB past the first image: the
        // fixture's own first image, right after the inserted one (11 bytes, its 256-byte
        // sub-blocks, the 0 terminator).
        let stop = firstImage + 11 + (MetadataLimits.maxGIFBytesPastFirstImage + 1024) / 255 * 256 + 1
        XCTAssertEqual(far.warnings, ["GIF walked to byte \(stop) only (4 MiB past its first image): an XMP packet after that is not read"])
        XCTAssertEqual(far.locationIssue, "no position in the first 4 MiB past the GIF's first image (an XMP packet after that is not read)")
        XCTAssertNil(near.locationIssue)

        let cut = Array(bytes[..<(firstImage + 20)])
        let m = try XCTUnwrap(try MetadataReader.read(bytes: cut, modificationTime: nil, options: optionsUTC))
        XCTAssertNil(m.coordinate)
        XCTAssertEqual(m.warnings, ["GIF ends at byte \(cut.count) inside the image at byte \(firstImage)"])
    }

    /// The X3F directory is found from the last 4 bytes: a pointer that misses `SECd` is a
    /// one-line error, not a crash or a silent nothing.
    func testX3FDirectoryPointerIsChecked() throws {
        var bytes = try Array(Data(contentsOf: Self.stillsDir().appendingPathComponent("raw/sigma-prop-time.x3f")))
        bytes[bytes.count - 4] ^= 0x01
        XCTAssertThrowsError(try MetadataReader.read(bytes: bytes, modificationTime: nil, options: optionsUTC)) {
            XCTAssertTrue("\($0)".hasPrefix("malformed X3F at byte \(bytes.count - 4): no SECd directory at byte"), "\($0)")
        }
    }

    /// A CIFF heap whose table lists itself 100 times reads at most `maxCIFFRecords` records in
    /// all (not 100^8), with one warning. Laid out by hand: header, then a root heap of no data
    /// whose table holds 100 records of type 0x300A (a heap) covering the root heap itself.
    func testCIFFHeapsListingThemselvesAreBounded() throws {
        func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        let records = 100, heapLength = 2 + 10 * records + 4
        var bytes: [UInt8] = [0x49, 0x49] + le32(26) + Array("HEAPCCDR".utf8) + [1, 0, 2, 0] + [UInt8](repeating: 0, count: 8)
        bytes += [UInt8(records), 0]
        for _ in 0..<records { bytes += [0x0A, 0x30] + le32(heapLength) + le32(0) }
        bytes += le32(0)
        let m = try XCTUnwrap(try MetadataReader.read(bytes: bytes, modificationTime: nil, options: optionsUTC))
        XCTAssertNil(m.takenAt)
        XCTAssertEqual(m.warnings, ["more than \(MetadataLimits.maxCIFFRecords) CIFF records: the rest skipped"])
    }
}
