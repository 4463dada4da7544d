import Foundation
@testable import PinCore
@testable import PinMetadata
import TestSupport
import XCTest

/// Fixtures: scripts/fixtures-thumbnail (ImageMagick + ExifTool); the expected bytes are
/// ExifTool's own `-b -ThumbnailImage` of the same file.
final class ExifThumbnailTests: XCTestCase {
    let folder = Repository.url("Fixtures/thumbnail")

    func testReadsTheIFD1ThumbnailExifToolReads() throws {
        let expected = [UInt8](try Data(contentsOf: folder.appendingPathComponent("exiftool-thumbnail.jpg")))
        XCTAssertEqual(expected.prefix(2), [0xFF, 0xD8])
        let thumbnail = try ExifThumbnail.read(path: RawPath(folder.appendingPathComponent("with-exif-thumbnail.jpg").path))
        XCTAssertEqual(thumbnail, expected)
    }

    /// A TIFF's IFD1 JPEG is read from the file at its JPEGInterchangeFormat offset, in both
    /// byte orders; the expected bytes are ExifTool's `-b -ThumbnailImage` of each file
    /// (scripts/fixtures-thumbnail compares them with exiftool-thumbnail.jpg).
    func testReadsTheIFD1ThumbnailOfATIFF() throws {
        let expected = [UInt8](try Data(contentsOf: folder.appendingPathComponent("exiftool-thumbnail.jpg")))
        for name in ["exif-thumbnail-mm.tif", "exif-thumbnail-ii.tif"] {
            XCTAssertEqual(try ExifThumbnail.read(path: RawPath(folder.appendingPathComponent(name).path)), expected, name)
        }
    }

    func testAnIFD1ThatIsASecondImageIsNoThumbnail() throws {
        XCTAssertNil(try ExifThumbnail.read(path: RawPath(folder.appendingPathComponent("two-pages-no-thumbnail.tif").path)))
    }

    func testNoThumbnailIsNil() throws {
        XCTAssertNil(try ExifThumbnail.read(path: RawPath(folder.appendingPathComponent("without-thumbnail.jpg").path)))
        XCTAssertNil(try ExifThumbnail.read(path: RawPath(folder.appendingPathComponent("../../Resources/COUNTRIES.md").path)))
    }

    func testEveryPrefixFailsCleanly() throws {
        for name in ["with-exif-thumbnail.jpg", "exif-thumbnail-mm.tif"] {
            try everyPrefixFailsCleanly(name)
        }
    }

    func everyPrefixFailsCleanly(_ name: String) throws {
        let bytes = [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pins-thumb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("cut.jpg").path
        for length in stride(from: 0, to: bytes.count, by: name.hasSuffix(".tif") ? 1 : 7) {
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes.prefix(length))))
            // A thumbnail cut short is no thumbnail (or an error); never a crash, never garbage.
            if let thumbnail = try? ExifThumbnail.read(path: RawPath(path)) {
                XCTAssertEqual(thumbnail.prefix(2), [0xFF, 0xD8], "prefix \(length)")
            }
        }
    }
}
