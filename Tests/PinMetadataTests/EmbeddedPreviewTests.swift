import Foundation
@testable import PinCore
@testable import PinMetadata
import TestSupport
import XCTest

/// A raw's embedded preview, read by pins' own walker, is byte for byte the one ExifTool
/// extracts (`exiftool -b -PreviewImage`): for the DNG of scripts/fixtures-previews the 640x480
/// baseline JPEG of SubIFD 1, not the larger lossless one of SubIFD 2 nor IFD1's thumbnail; for
/// the RAF fixture the JPEG its header points to. Damaged copies never crash it.
final class EmbeddedPreviewTests: XCTestCase {
    let dng = Repository.url("Fixtures/previews/dng-preview-subifd-rotated.dng").path
    let raf = Repository.url("Fixtures/formats/containers/other/fujifilm-embedded-jpeg.raf").path

    func exiftool(_ tag: String, _ path: String) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
        process.arguments = ["-b", "-" + tag, path]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        return Array(data)
    }

    func testTheLargestViewableJPEGIsExifToolsPreviewImage() throws {
        let found = try XCTUnwrap(try EmbeddedPreview.read(path: RawPath(dng)))
        let expected = try exiftool("PreviewImage", dng)
        XCTAssertEqual(expected.count, found.jpeg.count)
        XCTAssertTrue(found.jpeg == expected, "not ExifTool's PreviewImage")
        XCTAssertEqual(found.orientation, 6)
        let fuji = try XCTUnwrap(try EmbeddedPreview.read(path: RawPath(raf)))
        XCTAssertTrue(fuji.jpeg == (try exiftool("PreviewImage", raf)))
        XCTAssertNil(fuji.orientation)
    }

    func testDamagedCopiesNeverCrashAndStayBounded() throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: dng)))
        var generator = SystemRandomNumberGenerator()
        for length in stride(from: 0, to: bytes.count, by: 997) {
            var source = MemorySource(Array(bytes.prefix(length)))
            _ = try? EmbeddedPreview.find(in: &source)
        }
        for _ in 0..<2_000 {
            var damaged = bytes
            for _ in 0..<8 { damaged[Int.random(in: 0..<1_200, using: &generator)] = UInt8.random(in: 0...255, using: &generator) }
            var source = MemorySource(damaged)
            if let found = try? EmbeddedPreview.find(in: &source) {
                XCTAssertLessThanOrEqual(found.jpeg.count, EmbeddedPreview.maxBytes)
                XCTAssertEqual(Array(found.jpeg.prefix(2)), [0xFF, 0xD8])
            }
        }
    }
}
