import Foundation
import PinCore
@testable import PinMetadata
import XCTest

/// Fixtures: scripts/fixtures-thumbnail (ImageMagick + ExifTool); the expected bytes are
/// ExifTool's own `-b -ThumbnailImage` of the same file.
final class ExifThumbnailTests: XCTestCase {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/thumbnail")

    func testReadsTheIFD1ThumbnailExifToolReads() throws {
        let expected = [UInt8](try Data(contentsOf: folder.appendingPathComponent("exiftool-thumbnail.jpg")))
        XCTAssertEqual(expected.prefix(2), [0xFF, 0xD8])
        let thumbnail = try ExifThumbnail.read(path: RawPath(folder.appendingPathComponent("with-exif-thumbnail.jpg").path))
        XCTAssertEqual(thumbnail, expected)
    }

    func testNoThumbnailIsNil() throws {
        XCTAssertNil(try ExifThumbnail.read(path: RawPath(folder.appendingPathComponent("without-thumbnail.jpg").path)))
        XCTAssertNil(try ExifThumbnail.read(path: RawPath(folder.appendingPathComponent("../../Resources/COUNTRIES.md").path)))
    }

    func testEveryPrefixFailsCleanly() throws {
        let bytes = [UInt8](try Data(contentsOf: folder.appendingPathComponent("with-exif-thumbnail.jpg")))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pins-thumb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("cut.jpg").path
        for length in stride(from: 0, to: bytes.count, by: 7) {
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes.prefix(length))))
            // A thumbnail cut short is no thumbnail (or an error); never a crash, never garbage.
            if let thumbnail = try? ExifThumbnail.read(path: RawPath(path)) {
                XCTAssertEqual(thumbnail.prefix(2), [0xFF, 0xD8], "prefix \(length)")
            }
        }
    }
}
